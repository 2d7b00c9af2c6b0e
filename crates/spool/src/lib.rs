//! # spool — move bytes through a program without wasted copies
//!
//! This crate is spool's sans-IO core: every type here works on memory the
//! caller hands in and never opens a file, reads a clock or starts a thread.
//! Everything else is a layer around it:
//!
//! ```text
//!  spool-cli ─┬─► spool-serve ──► spool-pwned ──┬─► spool-io ──► spool (this crate)
//!             └─► spool-partition ──────────────┘
//!  bindings/python ──► spool-partition, spool
//!  bindings/c, bindings/cpp ──► spool
//! ```
//!
//! (An arrow reads "is built on"; a layer may also use any crate further
//! right.)
//!
//! `spool-io` adds threads, files and compression (read-ahead reading,
//! budgeted chunked writing, temporary files renamed into place);
//! `spool-partition` holds the engine of `spool partition` (routing
//! records to one file per key, as text or Parquet); `spool-pwned` the
//! password index's file format, builder and lookup, and `spool-serve` its
//! HTTP service; `spool-cli` is the `spool` command. The bindings are a C
//! ABI with a C++ wrapper, and Python classes. `spool-bench` measures each
//! layer next to its peers. Parsers of untrusted bytes live here, where
//! each is fuzzed alone.
//!
//! | module | what it holds |
//! |---|---|
//! | [`stream`] | [`ByteStream`](stream::ByteStream): a bounded ring-buffer pipe with Writer and Reader halves and in-place writes |
//! | [`reassembler`] | [`Reassembler`](reassembler::Reassembler): out-of-order substrings written straight into the stream's spare capacity |
//! | [`buf_list`] | [`BufList`](buf_list::BufList): a queue of `Bytes` chunks with linear-time front operations |
//! | [`codec`] | frame decoders: length-delimited and Banana on top of a `BufList`, Stratum V2 into the pool |
//! | [`pool`] | one pre-allocated arena handed out as owned, `Send` slices |
//! | [`text`] | text split without I/O: records and fields, CSV, Have I Been Pwned lines, hex |
//!
//! # Features
//!
//! Since nothing here does I/O, nothing here needs the standard library:
//! without default features the crate is `#![no_std]` and needs only
//! `alloc` (and atomic `u8`/`usize` for the pool's release protocol), so
//! the same stream, reassembler and decoders run in firmware or a kernel.
//!
//! - `std` (default): `std::io` impls — `Read`/`BufRead` on
//!   [`BufList`](buf_list::BufList), `Read` on the stream's
//!   [`Reader`](stream::Reader), `Write` on its
//!   [`Writer`](stream::Writer), `Buf::chunks_vectored` with `IoSlice`s,
//!   decoder errors into `io::Error` — and run-time CPU
//!   feature detection: the CSV scanner picks AVX2 when the CPU has it.
//!   Without `std` it uses AVX2 only when the build targets it
//!   (`-C target-feature=+avx2`) and SSE2 otherwise, and `memchr` likewise
//!   keeps to the compile-time target features.
//! - `tokio` (implies `std`): [`FramedBufList`](codec::FramedBufList), any
//!   decoder here as a `tokio_util::codec::Decoder`.
#![cfg_attr(not(any(test, feature = "std")), no_std)]
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

extern crate alloc;

pub mod buf_list;
pub mod codec;
#[allow(unsafe_code)]
pub mod pool;
pub mod reassembler;
#[allow(unsafe_code)]
pub mod stream;
pub mod text;
