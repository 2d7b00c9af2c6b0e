//! # spool — move bytes through a program without wasted copies
//!
//! This crate is spool's sans-IO core: every type here works on memory the
//! caller hands in and never opens a file, reads a clock or starts a thread.
//! The password index (`spool-pwned`), the command-line tool and the C,
//! C++ and Python bindings are thin layers around it.
//!
//! | module | what it holds |
//! |---|---|
//! | [`stream`] | [`ByteStream`](stream::ByteStream): a bounded ring-buffer pipe with Writer and Reader halves and in-place writes |
//! | [`reassembler`] | [`Reassembler`](reassembler::Reassembler): out-of-order substrings written straight into the stream's spare capacity |
//! | [`chain`] | a queue of `Bytes` chunks with linear-time front operations |
//! | [`codec`] | frame decoders (length-delimited, Banana) on top of the chain |
//! | [`pool`] | one pre-allocated arena handed out as owned, `Send` slices |
//! | [`text`] | text formats split without I/O: CSV records and fields |
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
