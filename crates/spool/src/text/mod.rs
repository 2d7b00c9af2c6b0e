//! Parsing text without I/O: bytes in, views out.
//!
//! Every parser here takes a buffer the caller already holds and returns
//! slices of it (or decodes into the caller's buffer): no file, no thread,
//! no allocation per record. That is what lets one parser serve a
//! read-ahead file reader on one thread, parsing workers on eight, a test
//! on a byte string and a fuzz target, unchanged; threads, files and
//! decompression wrap it from outside (`spool-io`, `spool-pwned`).
//!
//! ```text
//!  buffer ──PlainRecords──► PlainRecord (bytes, raw, line, offset)
//!                             │
//!                             └──fields──► field n, PlainFields, count
//!  buffer ──csv────────────► record boundaries, csv::Records, unquoted fields
//! ```
//!
//! - [`PlainRecords`] / [`PlainRecord`]: plain delimited text (no
//!   quoting: TSV, logs) split at a terminator byte, each record with its
//!   line number and byte offset (for error messages); CRLF aware.
//! - [`fields`]: a plain record's fields, scanning only as far as the field
//!   asked for.
//! - [`Position`]: an offset and a line, where every splitter here starts
//!   (`starting_at`) and what its errors name.
//! - [`csv`]: RFC 4180 CSV (and unquoted TSV): record boundaries for a
//!   block reader, record iteration, field access with unquoting. Its
//!   types keep their module's name out of theirs (`csv::Record`), and no
//!   name here is used for two things: the plain splitter's are
//!   `PlainRecord`, `PlainRecords` and `PlainFields`.
//!
//! The parsers of one system's own format live with that system: Have I
//! Been Pwned `HASH:COUNT` lines and the hex decoder under them are
//! `spool_pwned::text`.
//!
//! # Examples
//!
//! ```
//! use spool::text::{fields, PlainRecords};
//! let data = b"de\tBerlin\r\nfr\tParis\n";
//! let cities: Vec<(&[u8], u64)> = PlainRecords::new(data, b'\n')
//!     .map(|r| (fields::field(r.bytes(), b'\t', 1).unwrap(), r.line()))
//!     .collect();
//! assert_eq!(cities, [(&b"Berlin"[..], 1), (b"Paris", 2)]);
//! ```

pub mod csv;
pub mod fields;
mod position;
mod records;

pub use position::Position;
pub use records::{PlainRecord, PlainRecords};
