//! `--format parquet`: the same run, with each group's records written as
//! a Parquet dataset in the Hive layout (`OUT/COL=KEY/part-NNNNN.parquet`)
//! by arrow-rs's [`ArrowWriter`](parquet::arrow::ArrowWriter).
//!
//! The router buffers and routes text exactly as for text output, and also
//! checks every record against the [`Table`] (it knows the file, line and
//! byte offset an error must name); the writer threads turn each group's
//! buffered records into Arrow batches and append them to the group's
//! open Parquet file, whose in-progress row group is charged to the run's
//! memory budget (see the bounds of the `sink` module).
//!
//! | module | its job |
//! |---|---|
//! | [`values`] | a record's unquoted field values, one parser per type |
//! | [`schema`] | `--schema`, the table, each grouping's file schema |
//! | `batch` | buffered records into an Arrow batch |
//! | `sink` | a writer thread's open Parquet files under the budget |

mod batch;
pub mod schema;
pub(crate) mod sink;
pub mod values;

use std::sync::{Arc, OnceLock};

use parquet::basic::{Compression as Codec, ZstdLevel};
use parquet::file::properties::WriterProperties;

pub use schema::{ColumnType, Misfit, SchemaSpec, Table};

use super::writer_memory::WriterMemory;
use super::PartitionError;
use crate::read::Format;
use values::Syntax;

/// Rows in a row group unless `--row-group-size` says otherwise (arrow-rs's
/// default; memory pressure makes row groups smaller, never larger).
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1 << 20;

/// How column chunks are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParquetCompression {
    /// Uncompressed pages.
    None,
    /// Snappy.
    Snappy,
    /// Zstandard at a level (1–22).
    Zstd(i32),
}

/// What `--format parquet` adds to a run's options.
#[derive(Clone, Debug)]
pub struct ParquetOptions {
    /// Declared column types; the others are strings.
    pub schema: SchemaSpec,
    /// Most rows in a row group.
    pub row_group_size: usize,
    /// Column chunk compression.
    pub compression: ParquetCompression,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            schema: SchemaSpec::default(),
            row_group_size: DEFAULT_ROW_GROUP_ROWS,
            compression: ParquetCompression::Zstd(3),
        }
    }
}

/// What the router and the writer threads of one Parquet run share.
pub(crate) struct ParquetRun {
    /// Set by the router once the columns are known (from the header or
    /// the first record), before the first block is sent.
    pub table: OnceLock<Arc<Table>>,
    pub properties: Arc<WriterProperties>,
    pub memory: Arc<WriterMemory>,
    /// How the buffered records split into records and field values.
    pub syntax: Syntax,
    /// A row group is flushed when its writer holds this many bytes.
    pub row_group_bytes: usize,
}

impl ParquetRun {
    /// The shared state of a run writing `options` with memory `memory`,
    /// row groups of at most `row_group_bytes` bytes in memory, from
    /// records of the `input` format.
    ///
    /// # Errors
    ///
    /// A zstd level the codec refuses.
    pub fn new(
        options: &ParquetOptions,
        memory: Arc<WriterMemory>,
        input: Format,
        field_delimiter: u8,
        record_delimiter: u8,
        row_group_bytes: usize,
    ) -> Result<Self, PartitionError> {
        let codec = match options.compression {
            ParquetCompression::None => Codec::UNCOMPRESSED,
            ParquetCompression::Snappy => Codec::SNAPPY,
            ParquetCompression::Zstd(level) => Codec::ZSTD(
                ZstdLevel::try_new(level)
                    .map_err(|e| PartitionError::Usage(format!("--level {level}: {e}")))?,
            ),
        };
        let rows = options.row_group_size.max(1);
        let properties = WriterProperties::builder()
            .set_compression(codec)
            .set_max_row_group_row_count(Some(rows))
            // One page per column chunk: compressed once, at the flush.
            .set_data_page_row_count_limit(rows)
            .set_data_page_size_limit(row_group_bytes)
            .set_created_by(format!("spool {}", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(ParquetRun {
            table: OnceLock::new(),
            properties: Arc::new(properties),
            memory,
            syntax: Syntax::new(input, field_delimiter, record_delimiter),
            row_group_bytes,
        })
    }
}
