//! Reading delimited text in large chunks, without a copy or an allocation
//! per record.
//!
//! * [`ChunkReader`] — one input, read ahead on its own thread into a ring of
//!   recycled buffers; hands out [`Block`]s of whole records.
//! * [`PlainRecords`] / [`PlainRecord`] — the records of a block as `&[u8]` views, with
//!   line number and byte offset for error messages.
//! * [`fields`] — field splitting with `memchr`, scanning only as far as the
//!   field asked for.
//! * [`RecordFormat`] — lines of unquoted text or RFC 4180 CSV records; and
//!   [`FieldRecord`], a record of either with the one accessor for a
//!   field's unquoted value ([`FieldRecord::value`]).
//! * [`WholeFiles`] — many small files (thousands to millions), each read
//!   whole by one thread a few files ahead.
//!
//! The record and field splitters are the core's sans-IO parsers
//! ([`spool::text`]), re-exported here because every block hands them out;
//! this module adds the threads and files around them.

mod block;
mod chunk_reader;
mod cut;
mod fill;
mod options;
mod record_format;
mod whole_files;

pub use block::Block;
pub use chunk_reader::ChunkReader;
pub use options::ReadOptions;
pub use record_format::{FieldRecord, Line, RecordFormat};
pub use spool::text::fields;
pub use spool::text::{PlainRecord, PlainRecords};
pub use whole_files::WholeFiles;
