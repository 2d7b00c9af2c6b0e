//! `--format parquet`: the same run, with each group's records written as
//! a Parquet dataset in the Hive layout (`OUT/COL=KEY/part-NNNNN.parquet`)
//! by arrow-rs's [`ArrowWriter`](parquet::arrow::ArrowWriter).
//!
//! The router buffers and routes text exactly as for text output; the
//! writer threads turn each group's buffered records into Arrow batches,
//! checking every record against the [`Table`] as they parse it, and
//! append them to the group's open Parquet file, whose in-progress row
//! group is charged to the run's memory budget (see the bounds of the
//! `open_writers` module). A record that does not fit stops the run,
//! which then reads its inputs again to name the file, line and byte
//! offset (the router checks every record itself where that cannot be
//! done: see the crate's `rescan` module).
//!
//! | module | its job |
//! |---|---|
//! | `options` | what `--format parquet` adds to the options; the writer properties |
//! | `parquet_run` | what the router and the writer threads of a run share |
//! | `writer_costs` | what an open writer costs, as the budget charges it |
//! | [`syntax`] | buffered text into records, records into unquoted field values, as the router reads them |
//! | [`values`] | one parser per column type |
//! | [`schema`] | `--schema`, the table, each grouping's file schema |
//! | `batch` | buffered records into an Arrow batch |
//! | [`dictionary`] | which string columns of a file get a dictionary |
//! | `part` | one part file, its writer created at its first batch |
//! | `group_parts` | what a writer thread knows of a group: its parts, their records, its spill |
//! | `open_writers` | a writer thread's open writers, charged to the budget, flushed under pressure |
//! | `spill` | the records of groups without an open writer, in one log per thread, until the end |
//! | `conversion_queue`, `conversion` | the spilled groups of every thread at the end, converted by whichever thread is free |
//! | `sink` | a writer thread's Parquet output: the parts above put together |

pub(crate) mod batch;
mod conversion;
mod conversion_queue;
pub mod dictionary;
mod group_parts;
mod open_writers;
mod options;
mod parquet_run;
mod part;
pub mod schema;
mod sink;
pub(crate) mod spill;
pub mod syntax;
pub mod values;
mod writer_costs;

pub(crate) use batch::Unfit;
pub(crate) use conversion_queue::{Board, Poster};
pub use dictionary::Dictionaries;
pub use options::{
    dictionary_columns, file_properties, Encodings, ParquetCompression, ParquetOptions,
    DEFAULT_ROW_GROUP_ROWS,
};
pub(crate) use parquet_run::ParquetRun;
pub(crate) use part::FILE_BUFFER;
pub use schema::{ColumnType, Misfit, SchemaSpec, Table};
pub(crate) use sink::ParquetSink;
pub(crate) use spill::{READ_PIECE, WRITE_BUFFER as SPILL_WRITE_BUFFER};
pub use writer_costs::{
    codec_state_bytes, row_group_metadata_bytes, writer_state_bytes, DELTA_LENGTHS_RESERVE,
    DICTIONARY_TABLE_BYTES,
};
