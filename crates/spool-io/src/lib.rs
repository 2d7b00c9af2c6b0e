//! Chunked file I/O around spool's sans-IO core.
//!
//! Programs that chew through gigabytes of delimited text lose most of their
//! time in three places: a system call or an allocation per line, copying each
//! record into an owned string, and output buffers that grow with the number
//! of groups written. This crate removes all three, for any engine built on
//! it (`spool-partition`, `spool-pwned`):
//!
//! * [`read`](mod@read) — a [`ChunkReader`](read::ChunkReader) reads large chunks on a
//!   read-ahead thread into a small ring of recycled buffers (decompressing
//!   gzip or zstd on the way). Each chunk it hands out holds whole records
//!   only — the record cut by a chunk edge is moved to the next chunk by the
//!   reader thread — so records and fields are plain `&[u8]` views, found
//!   with `memchr`, and chunks can be parsed on any thread.
//! * [`write`](mod@write) — fixed-size chunks from a [`ChunkPool`](write::ChunkPool)
//!   with a global budget, encoded block by block (plain, zstd frames or gzip
//!   members, which concatenate into valid streams), into files written
//!   under a hidden temporary name and renamed only when complete; a
//!   directory tree published whole ([`StagedDir`](write::StagedDir)) or
//!   file by file beside other runs (spool-partition's append runs), under
//!   an exclusive lock, with what dead runs left removed.
//! * [`input`] — opening "a path or `-`", decompressing by magic number,
//!   and [`with_path`](input::with_path) for errors that name their file;
//!   [`progress`] — live counters for a progress display;
//!   [`size`] — byte counts in messages, in the units they were given in.
//! * [`journal`] — one format for every crash journal (a download's, an
//!   S3 commit's, an append run's): checksummed records appended in order
//!   and replayed up to the last whole one.
//! * [`parallel`] — ordered parallel maps: work on every core, results in
//!   the items' order.
//! * [`direct`] — large files read around the page cache (`O_DIRECT`),
//!   where that pays and the file system takes it.
//!
//! ```text
//!  file ──read thread──► [ chunk │ chunk │ chunk │ chunk ]  recycled ring
//!                              │ whole records only
//!                              ▼
//!                   the engine: parse, route, sort ──► chunk (pool, budget)
//!                                                        │ full
//!                                                        ▼
//!                   writer thread: encode ──► hidden name ──rename──► file
//! ```
#![deny(missing_docs, unsafe_code)]
#![doc(test(attr(deny(warnings))))]

#[cfg(unix)]
pub mod direct;
pub mod input;
pub mod journal;
pub mod parallel;
pub mod progress;
pub mod read;
pub mod size;
pub mod write;
