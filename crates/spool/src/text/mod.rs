//! Text formats split without I/O: bytes in, views of records and fields
//! out.
//!
//! - [`csv`]: RFC 4180 CSV (and unquoted TSV): record boundaries for a
//!   block reader, record iteration, field access with unquoting.

pub mod csv;
