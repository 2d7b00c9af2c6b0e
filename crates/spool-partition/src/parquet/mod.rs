//! `--format parquet`: the same run, with each group's records written as
//! a Parquet dataset in the Hive layout (`OUT/COL=KEY/part-NNNNN.parquet`)
//! by arrow-rs's [`ArrowWriter`](parquet::arrow::ArrowWriter).
//!
//! The router buffers and routes text exactly as for text output; the
//! writer threads turn each group's buffered records into Arrow batches,
//! checking every record against the [`Table`] as they parse it, and
//! append them to the group's open Parquet file, whose in-progress row
//! group is charged to the run's memory budget (see the bounds of the
//! `sink` module). A record that does not fit stops the run, which then
//! reads its inputs again to name the file, line and byte offset (the
//! router checks every record itself where that cannot be done: see its
//! `rescan` module).
//!
//! | module | its job |
//! |---|---|
//! | [`values`] | a record's unquoted field values, one parser per type |
//! | [`schema`] | `--schema`, the table, each grouping's file schema |
//! | `batch` | buffered records into an Arrow batch |
//! | [`dictionary`] | which string columns of a file get a dictionary |
//! | `part` | one part file, its writer created at its first batch |
//! | `group_parts` | what a writer thread knows of a group: its parts, their records, its spill |
//! | `open_writers` | a writer thread's open writers, charged to the budget, flushed under pressure |
//! | `spill` | the records of groups without an open writer, in one log per thread, until the end |
//! | `board` | the spilled groups of every thread at the end, converted by whichever thread is free |
//! | `sink` | a writer thread's Parquet output: the parts above put together |

mod batch;
mod board;
pub mod dictionary;
mod group_parts;
mod open_writers;
mod part;
pub mod schema;
mod sink;
pub(crate) mod spill;
pub mod values;

use std::sync::{Arc, OnceLock};

use arrow_schema::{DataType, Schema};
use parquet::basic::{Compression as Codec, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;

pub(crate) use batch::Unfit;
pub use dictionary::Dictionaries;
pub(crate) use part::FILE_BUFFER;
pub use schema::{ColumnType, Misfit, SchemaSpec, Table};
pub(crate) use sink::ParquetSink;
pub(crate) use spill::{READ_PIECE, WRITE_BUFFER as SPILL_WRITE_BUFFER};

use crate::writer_memory::WriterMemory;
use crate::PartitionError;
use spool_io::read::Format;
use values::Syntax;

/// Rows in a row group unless `--row-group-size` says otherwise (arrow-rs's
/// default; memory pressure makes row groups smaller, never larger).
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1 << 20;

/// What an open `ArrowWriter` of `columns` columns holds beyond what its
/// `memory_size()` reports: its column writers, their level and page
/// buffers and metadata builders (measured with a counting allocator by
/// the `parquet_writer_cost` test: about 4.5 KiB per column, 18 KiB for
/// four, after writing and after a flush), charged while it is open.
///
/// # Examples
///
/// ```
/// use spool_partition::parquet::writer_state_bytes;
/// assert_eq!(writer_state_bytes(4), 24 << 10);
/// ```
pub const fn writer_state_bytes(columns: usize) -> usize {
    (4 << 10) + columns * (5 << 10)
}

/// What each finished row group of `columns` columns adds to its open
/// writer's footer metadata (column chunk metadata, statistics, page
/// index entries; measured at about 1 KiB per column), charged until the
/// file is finished.
///
/// # Examples
///
/// ```
/// use spool_partition::parquet::row_group_metadata_bytes;
/// assert_eq!(row_group_metadata_bytes(4), 4608);
/// ```
pub const fn row_group_metadata_bytes(columns: usize) -> usize {
    512 + columns * 1024
}

/// Address space arrow-rs reserves for the lengths of each
/// `DELTA_LENGTH_BYTE_ARRAY` column of an in-progress row group (its
/// bit-packing encoder starts with a 1 MiB buffer), of which only the
/// bytes of the lengths written — a byte or two a value, which
/// `ArrowWriter::memory_size` reports — are ever touched. Not charged: a
/// page never written is not memory. The `parquet_writer_cost` test pins
/// it; the peak RSS tests check that it stays address space (with dictionary
/// columns given the same encoding as their fallback, the reservations
/// of idle fallbacks raised the peak at 100,000 keys past the budget).
pub const DELTA_LENGTHS_RESERVE: usize = 1 << 20;

/// What a dictionary-encoded column (a string column: see
/// [`file_properties`]) of an open writer is allowed for its dictionary
/// when the writer is admitted: its hash table and distinct values, a few
/// KiB at the first values and growing with each new one. Used to
/// estimate an open writer's typical footprint when admitting it; what it
/// really holds is charged as it grows.
pub const DICTIONARY_TABLE_BYTES: usize = 40 << 10;

/// What the codec of one column of an in-progress row group holds outside
/// the Rust allocator, so that neither `ArrowWriter::memory_size` nor a
/// counting global allocator sees it: arrow-rs's zstd codec keeps a zstd
/// compression and a decompression context per column writer, allocated
/// by libzstd with `malloc`, from a row group's first write to its flush
/// (about 95 KiB per column, measured with heaptrack at 1,000 keys: 64 MB
/// of contexts at the peak, half of a 128 MiB run). Snappy and
/// uncompressed columns hold nothing there.
///
/// # Examples
///
/// ```
/// use spool_partition::parquet::{codec_state_bytes, ParquetCompression};
/// assert_eq!(codec_state_bytes(ParquetCompression::None), 0);
/// assert!(codec_state_bytes(ParquetCompression::Zstd(3)) > 64 << 10);
/// ```
pub fn codec_state_bytes(compression: ParquetCompression) -> usize {
    static ZSTD: OnceLock<usize> = OnceLock::new();
    match compression {
        ParquetCompression::Zstd(_) => *ZSTD.get_or_init(|| {
            use zstd::zstd_safe::{CCtx, DCtx};
            CCtx::create().sizeof() + DCtx::create().sizeof()
        }),
        ParquetCompression::None | ParquetCompression::Snappy => 0,
    }
}

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

/// How the values of string columns without a dictionary are laid out in
/// pages (numbers are always `PLAIN`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encodings {
    /// `DELTA_LENGTH_BYTE_ARRAY` (see the [`dictionary`] module): smaller
    /// files, and far less work for zstd. Read by DuckDB, Polars, PyArrow,
    /// arrow-rs, Spark 3.3 and later, Trino, parquet-mr.
    #[default]
    Delta,
    /// `PLAIN`, for readers that predate the delta encodings (Spark's
    /// vectorized reader before 3.3, for one).
    Plain,
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
    /// Page encodings of columns without a dictionary.
    pub encodings: Encodings,
}

impl ParquetOptions {
    /// The properties every part file of a run is written with, row groups
    /// being flushed at `row_group_bytes` in memory.
    ///
    /// # Errors
    ///
    /// A zstd level the codec refuses.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::parquet::{ParquetCompression, ParquetOptions};
    /// let options = ParquetOptions::default();
    /// let properties = options.writer_properties(1 << 20)?;
    /// assert_eq!(properties.max_row_group_row_count(), Some(options.row_group_size));
    /// let wrong = ParquetOptions { compression: ParquetCompression::Zstd(99), ..options };
    /// assert!(wrong.writer_properties(1 << 20).is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn writer_properties(
        &self,
        row_group_bytes: usize,
    ) -> Result<WriterProperties, PartitionError> {
        let codec = match self.compression {
            ParquetCompression::None => Codec::UNCOMPRESSED,
            ParquetCompression::Snappy => Codec::SNAPPY,
            ParquetCompression::Zstd(level) => Codec::ZSTD(
                ZstdLevel::try_new(level)
                    .map_err(|e| PartitionError::Usage(format!("--level {level}: {e}")))?,
            ),
        };
        let rows = self.row_group_size.max(1);
        let builder = match self.encodings {
            // Each file sets its columns' encodings (`Dictionaries`).
            Encodings::Delta => WriterProperties::builder(),
            // Run-wide, so a file's columns keep it.
            Encodings::Plain => WriterProperties::builder().set_encoding(Encoding::PLAIN),
        };
        Ok(builder
            // Per column, string columns only: see `file_properties`.
            .set_dictionary_enabled(false)
            .set_compression(codec)
            .set_max_row_group_row_count(Some(rows))
            // One page per column chunk: compressed once, at the flush.
            .set_data_page_row_count_limit(rows)
            .set_data_page_size_limit(row_group_bytes)
            .set_created_by(format!("spool {}", env!("CARGO_PKG_VERSION")))
            .build())
    }
}

/// The properties of a file of `schema` before its first batch is known:
/// the run's `properties` with dictionary encoding on for the string
/// columns only. A file's own choice, from its first batch, may turn some
/// off (see [`Dictionaries`]).
///
/// A dictionary pays off where values repeat; a string column (a colour,
/// a country, a status) is where they usually do, and where a reader gains
/// most from it. Numbers, dates and timestamps of a partition are mostly
/// distinct: arrow-rs would hash every value into a dictionary that ends
/// as large as the column, write both, and fall back to plain only past
/// 1 MiB of dictionary — which a partition's column chunk often never
/// reaches. Plain pages of such columns compress as well under zstd.
///
/// # Examples
///
/// ```
/// use arrow_schema::{DataType, Field, Schema};
/// use parquet::schema::types::ColumnPath;
/// use spool_partition::parquet::{file_properties, ParquetOptions};
/// let run = ParquetOptions::default().writer_properties(1 << 20)?;
/// let schema = Schema::new(vec![
///     Field::new("id", DataType::Int64, true),
///     Field::new("name", DataType::Utf8, true),
/// ]);
/// let file = file_properties(&run, &schema);
/// assert!(!file.dictionary_enabled(&ColumnPath::from("id")));
/// assert!(file.dictionary_enabled(&ColumnPath::from("name")));
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
pub fn file_properties(properties: &WriterProperties, schema: &Schema) -> WriterProperties {
    Dictionaries::strings(schema).properties(properties, schema)
}

/// The columns of `schema` written with a dictionary: its strings (see
/// [`file_properties`]).
pub fn dictionary_columns(schema: &Schema) -> impl Iterator<Item = &arrow_schema::FieldRef> {
    (schema.fields().iter()).filter(|field| field.data_type() == &DataType::Utf8)
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            schema: SchemaSpec::default(),
            row_group_size: DEFAULT_ROW_GROUP_ROWS,
            compression: ParquetCompression::Zstd(3),
            encodings: Encodings::Delta,
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
    /// [`codec_state_bytes`] of the run's compression, per column.
    pub codec_bytes: usize,
    /// Every writer thread's spilled groups, once its input ends.
    pub conversions: Arc<board::Board<sink::Conversion>>,
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
        let properties = options.writer_properties(row_group_bytes)?;
        Ok(ParquetRun {
            table: OnceLock::new(),
            properties: Arc::new(properties),
            memory,
            syntax: Syntax::new(input, field_delimiter, record_delimiter),
            row_group_bytes,
            codec_bytes: codec_state_bytes(options.compression),
            conversions: Arc::new(board::Board::new()),
        })
    }
}
