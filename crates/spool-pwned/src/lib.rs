//! An on-disk index of Have I Been Pwned password hashes with their
//! prevalence counts: build it once from the HIBP text files, then ask
//! "was this password pwned, and how often" in microseconds.
//!
//! - [`build()`](build::build) reads `HASH:COUNT` lines (full file, range
//!   directory, NTLM; gzip/zstd streamed), streams hash-ordered input
//!   straight through, sorts anything else in bounded memory by dealing
//!   records into buckets by their leading bits, and writes the index in one
//!   sequential pass ([`IndexWriter`]).
//! - [`Index`] maps an index read-only and looks hashes up through a 16-bit
//!   fanout table and a binary search within one prefix's records;
//!   [`Index::range`] hands out the [`Records`] of a five-hex-digit range
//!   query without copying them.
//! - [`sample`] generates deterministic sample data.
//! - [`check`] and [`okon`] hold what the commands that query an index
//!   make of their input lines and arguments.
//!
//! The file format is in [`format`](mod@format) and `docs/pwned-format.md`: 22 bytes per
//! SHA-1 hash (18 hash bytes + a 4-byte count) plus a 512 KiB table.
//!
//! This crate holds what is particular to the index — its format, the
//! builder's sort and the lookup. The rest is shared: lines are split and
//! parsed by the core's sans-IO `spool::text` (records, HIBP lines, hex);
//! inputs are opened and read ahead, the index written under a temporary
//! name, and progress reported by `spool-io`.
//!
//! # Examples
//!
//! ```
//! use spool_pwned::{build::{build, BuildOptions}, input::Source, HashKind, Index};
//! let dir = std::env::temp_dir().join(format!("spool-pwned-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let text = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:10\n";
//! let source = Source::from_reader("doc", text.as_bytes());
//! let out = dir.join("index");
//! build(vec![source], &out, &BuildOptions::default()).unwrap();
//! let index = Index::open(&out).unwrap();
//! assert_eq!(index.lookup(&HashKind::Sha1.hash_password("password")), Ok(Some(10)));
//! assert_eq!(index.lookup(&HashKind::Sha1.hash_password("correct horse")), Ok(None));
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```
#![deny(missing_docs)]
// Safe Rust throughout but for mapping the index file (`mapped.rs`) and a
// plain input file (`mapped_input.rs`), and the prefetch hint beside the
// first (`mapped::prefetch`), each saying why that is sound.
#![deny(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

mod any;
mod batch;
mod blocks;
mod body;
mod buckets;
pub mod build;
pub mod check;
mod compact;
pub mod convert;
mod direct_input;
mod direct_output;
mod filter;
mod filter_read;
mod filter_write;
pub mod format;
mod hash;
mod index;
pub mod input;
#[allow(unsafe_code)]
mod mapped;
mod mapped_input;
pub mod okon;
mod ordered;
mod output_lock;
mod range;
mod readahead;
mod record;
pub mod sample;
mod sink;
mod sort;
mod t64;
mod t64_write;
mod writer;

pub use any::{Answer, AnyIndex, CheckMany, RangeError};
pub use blocks::Damaged;
pub use format::HeaderError;
pub use hash::{to_hex, HashKind};
pub use index::{Index, IndexError};
pub use range::{Record, Records};
pub use spool::text::hibp::LineErrorKind;
pub use writer::IndexWriter;
