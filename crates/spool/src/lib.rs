//! # spool — move bytes through a program without wasted copies
//!
//! This crate is spool's sans-IO core: every type here works on memory the
//! caller hands in and never opens a file, reads a clock or starts a thread.
//! Everything else is a layer around it:
//!
//! ```text
//!  spool-cli ──► spool-pwned ──► spool-io ──► spool (this crate)
//!  bindings/c, bindings/cpp, bindings/python ───► spool
//! ```
//!
//! (An arrow reads "is built on"; a layer may also use any crate further
//! right.)
//!
//! `spool-io` adds threads, files and compression (read-ahead, budgeted
//! chunked writing, `spool partition`); `spool-pwned` the password index's
//! file format, builder and lookup; the bindings a C ABI and Python
//! classes. Parsers of untrusted bytes live here, where each is fuzzed
//! alone.
//!
//! | module | what it holds |
//! |---|---|
//! | [`stream`] | [`ByteStream`](stream::ByteStream): a bounded ring-buffer pipe with Writer and Reader halves and in-place writes |
//! | [`reassembler`] | [`Reassembler`](reassembler::Reassembler): out-of-order substrings written straight into the stream's spare capacity |
//! | [`chain`] | a queue of `Bytes` chunks with linear-time front operations |
//! | [`codec`] | frame decoders: length-delimited and Banana on top of the chain, Stratum V2 into the pool |
//! | [`pool`] | one pre-allocated arena handed out as owned, `Send` slices |
//! | [`text`] | text split without I/O: records and fields, CSV, Have I Been Pwned lines, hex |
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

extern crate alloc;

pub mod chain;
pub mod codec;
#[allow(unsafe_code)]
pub mod pool;
pub mod reassembler;
#[allow(unsafe_code)]
pub mod stream;
pub mod text;
