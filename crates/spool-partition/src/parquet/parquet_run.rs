//! What the router and the writer threads of one Parquet run share: the
//! table (set once the columns are known), the writer properties, the
//! writers' share of the budget, how buffered text splits into values,
//! and the board the spilled groups are converted from at the end.

use std::sync::{Arc, OnceLock};

use parquet::file::properties::WriterProperties;
use spool_io::read::RecordFormat;

use super::conversion::Conversion;
use super::conversion_queue::Board;
use super::options::Encodings;
use super::options::ParquetOptions;
use super::schema::Table;
use super::syntax::Syntax;
use super::writer_costs::{codec_state_bytes, DELTA_LENGTHS_RESERVE};
use crate::options::FileLimits;
use crate::writer_memory::WriterMemory;
use crate::PartitionError;

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
    /// What a string column of an open writer may reserve for its value
    /// lengths: [`DELTA_LENGTHS_RESERVE`] with [`Encodings::Delta`], 0
    /// with plain pages.
    pub lengths_reserve: usize,
    /// Every writer thread's spilled groups, once its input ends.
    pub conversions: Arc<Board<Conversion>>,
    /// When a group's part rolls over to the next (see the `sink` module).
    pub limits: FileLimits,
}

impl ParquetRun {
    /// The shared state of a run writing `options` with memory `memory`,
    /// row groups of at most `row_group_bytes` bytes in memory, parts
    /// within `limits`, from records of the `input` format.
    ///
    /// # Errors
    ///
    /// A zstd level the codec refuses.
    pub fn new(
        options: &ParquetOptions,
        memory: Arc<WriterMemory>,
        input: RecordFormat,
        field_delimiter: u8,
        record_delimiter: u8,
        row_group_bytes: usize,
        limits: FileLimits,
    ) -> Result<Self, PartitionError> {
        let properties = options.writer_properties(row_group_bytes)?;
        Ok(ParquetRun {
            table: OnceLock::new(),
            properties: Arc::new(properties),
            memory,
            syntax: Syntax::new(input, field_delimiter, record_delimiter),
            row_group_bytes,
            codec_bytes: codec_state_bytes(options.compression),
            lengths_reserve: match options.encodings {
                Encodings::Delta => DELTA_LENGTHS_RESERVE,
                Encodings::Plain => 0,
            },
            conversions: Arc::new(Board::new()),
            limits,
        })
    }
}
