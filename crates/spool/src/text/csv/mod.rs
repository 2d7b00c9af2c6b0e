//! RFC 4180 CSV, split without I/O: record boundaries for a block reader,
//! records as views of the bytes read, fields with their quoting taken off.
//!
//! ```text
//!  bytes ──► RecordCutter::scan ──► cut a block after the last whole record
//!  block ──► Records ──► Record (raw bytes, line, offset)
//!                          └──► field(n) ──► Field (raw) ──► value(): Cow<[u8]>
//! ```
//!
//! # What is CSV here
//!
//! [`Dialect`] names the delimiter and the quote (or no quote, as for
//! TSV). Records end at LF, CRLF or a lone CR; a field that starts with the
//! quote is quoted and runs to the closing quote, `""` inside it is one
//! quote, and delimiters, CR and LF inside it are data. Blank lines are not
//! records. A UTF-8 byte order mark before the first record is not part of
//! it ([`strip_bom`]; the cutter skips it by itself).
//!
//! Everything RFC 4180 leaves open is read as csv-core (the `csv` crate's
//! parser, which xsv/qsv use) reads it, and the tests check this against
//! the `csv` crate on random input:
//!
//! - **A quote inside an unquoted field** (`5"10,x`) is data: the field is
//!   `5"10`. A quote opens a quoted field only as a field's first byte, so
//!   ` "a"` (space first) is the literal text ` "a"`. DuckDB (2.0, strict
//!   mode or not) reads both the same way.
//! - **Text after a closing quote** (`"a"b,x`) belongs to the field, and
//!   any quote in it is data: the value is `ab`. DuckDB refuses this line
//!   in its default strict mode ("unquoted value") and drops the text
//!   (`a`) without it.
//! - **An unterminated quote** is the one error, [`UnterminatedQuote`],
//!   named by the offset and line of the *opening* quote. Here csv-core
//!   differs on purpose: it ends the field at the end of the input, which
//!   silently turns the rest of a file into one field. DuckDB refuses it too.
//!
//! # Finding records: masks, with the state carried across blocks
//!
//! A read-ahead reader must cut its buffers between records, and with
//! quoting a line break is a record end only outside quotes; whether a
//! byte is inside quotes depends on every quote before it. Two techniques
//! were weighed:
//!
//! - *Speculation from the middle* (DuckDB's parallel reader, simdjson's
//!   chunk stitching): guess the quote state at an arbitrary offset and
//!   check the guess later, so many threads can start at once. That is what
//!   a reader of one file on many cores needs; spool's reader is one
//!   thread reading ahead sequentially, which always knows the state at
//!   the start of its next read. Speculation would buy nothing and add a
//!   failure path.
//! - *State carried across blocks*, which [`RecordCutter`] does: it is
//!   handed each byte once, in order, keeps whether it is inside quotes
//!   (and where the open field's quote was, for the error), and reports
//!   the last record end. The next buffer starts at a record boundary, so
//!   [`Records`] starts from a known state too.
//!
//! Within a block both scan 64 bytes at a time the way simdjson does:
//! compare the chunk against the quote, delimiter, LF and CR (AVX2 when the
//! CPU has it, SSE2 otherwise) to get one bit per byte, take the prefix-XOR
//! of the quote bits (one carry-less multiply when the CPU also has
//! PCLMULQDQ) to get the inside-quotes mask, and read record ends
//! off `line breaks & !inside`; the next record start is the lowest bit of
//! a second mask. Two more masks check that every quote is where RFC 4180
//! puts quotes; a chunk with a stray quote (above) is scanned byte by byte
//! with csv-core's state machine instead, and the masks resume after it.
//!
//! Why masks and not a `memchr` loop (find the next quote or line break;
//! at a quote that opens a field, find its closing quote): the benchmark
//! in docs/perf/csv-split.md has both, and the `memchr` splitter
//! takes 1.6x the time of the masks on CSV where a third of the fields are
//! quoted, because every quoted field costs it two more searches of a few
//! bytes each, while the masks cost the same per 64 bytes whatever the
//! quoting. Under callgrind, records + field 3 of 2 MB cost 21.7 M
//! instructions with a byte-at-a-time field scan, 11.3 M once fields were
//! read off the masks, 10.3 M with AVX2 and line numbers counted only
//! when asked for (the TSV path: 7.8 M).
//!
//! # Fields
//!
//! The masks also say where the delimiters outside quotes are, so each
//! [`Record`] carries them for its first 64 bytes and [`Record::field`]
//! counts bits instead of scanning bytes. Past those 64 bytes, and in
//! [`Fields`], a field is found with a short byte loop (then `memchr`) for
//! the delimiter, after one for the closing quote when the field is
//! quoted; either way a field is found without scanning the rest of the
//! record. [`Field::value`] borrows unless the field holds a `""` or text
//! after its closing quote; for a field in those 64 bytes the masks' quote
//! bits tell which, so the value is not scanned for quotes either.
//!
//! [`Records`] runs in two stages, as simdjson does: a loop scans a run of
//! chunks into a small index of record starts and ends (with each start's
//! masks), keeping its state in registers, and the iterator hands records
//! out of the index without looking at the bytes again (`index.rs` says
//! why and what it measured).
//!
//! # Bounds
//!
//! Nothing here allocates except [`Field::value`] when it must unescape
//! (and [`Field::value_into`] into the caller's buffer). A [`Records`] or
//! [`RecordCutter`] is a few words of state whatever the input; no byte
//! sequence makes any of them panic (the `csv_split` fuzz target checks
//! this against the `csv` crate). A record has no length limit here: a
//! quote that is never closed makes the rest of the input one record, so
//! the reader that buffers records must bound them, and
//! [`RecordCutter::open_quote`] tells it which quote to blame when the
//! bound is hit.
//!
//! # Line numbers and offsets
//!
//! Offsets count bytes from the start of the input (the caller says where a
//! block starts, with `starting_at` and a [`Position`](super::Position)). Lines end at LF, as the `csv` crate counts them, and a
//! record's line is the line of its first byte; [`Record::lines`] tells
//! how many lines a record with quoted line breaks spans. Blank lines
//! count as lines.
//!
//! # Examples
//!
//! Group by a quoted column, and read a header:
//!
//! ```
//! use spool::text::csv::{Dialect, Records};
//!
//! let input = b"name,city\n\"Smith, John\",Paris\n\"Doe, Jane\",\"New York, NY\"\nBob,\"Paris\"\n";
//! let mut records = Records::new(input, Dialect::CSV);
//! let header = records.next().unwrap()?;
//! let city = header.fields().position(|f| f.value() == &b"city"[..]).unwrap();
//! let mut cities = Vec::new();
//! for record in records {
//!     cities.push(record?.field(city).unwrap().value().into_owned());
//! }
//! assert_eq!(cities, [&b"Paris"[..], b"New York, NY", b"Paris"]);
//! # Ok::<(), spool::text::csv::UnterminatedQuote>(())
//! ```

mod block;
mod bom;
mod classify;
mod cutter;
mod dialect;
mod error;
mod fields;
mod index;
mod indexed;
mod record;
mod records;
mod scan;

pub use block::{BlockCutter, BlockIndex, BYTES_PER_ENTRY};
pub use bom::{strip_bom, BOM};
pub use cutter::RecordCutter;
pub use dialect::{Dialect, InvalidDialect};
pub use error::UnterminatedQuote;
pub use fields::{Field, Fields};
pub use indexed::IndexedRecords;
pub use record::Record;
pub use records::Records;
