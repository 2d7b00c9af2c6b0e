//! An on-disk index of Have I Been Pwned password hashes with their
//! prevalence counts: build it once from the HIBP text files, then ask
//! "was this password pwned, and how often" in microseconds.
//!
//! The crate has three parts, each a folder, each depending only on the
//! ones before it:
//!
//! ```text
//!  format/   the file: header, layouts (full, t64, filter), block
//!            checksums, errors — what writers and readers agree on
//!     ▲
//!  lookup/   reading: the map, one reader per layout, AnyIndex, range
//!            queries; what `check` makes of its input lines
//!     ▲
//!  build/    writing: inputs, parsing, the bucket sort, the writers of
//!            each layout, conversion to the smaller ones
//! ```
//!
//! - [`build()`](build::build) reads `HASH:COUNT` lines (full file, range
//!   directory, NTLM; gzip/zstd streamed), streams hash-ordered input
//!   straight through, sorts anything else in bounded memory by dealing
//!   records into buckets by their leading bits, and writes the index in one
//!   sequential pass ([`IndexWriter`]).
//! - [`Index`] maps an index read-only and looks hashes up through a 16-bit
//!   fanout table and a search within one prefix's records;
//!   [`Index::range`] hands out the [`RangeEntries`] of a five-hex-digit
//!   range query without copying them; [`AnyIndex`] opens any layout.
//! - [`range_body`] checks an answer of the range API (a download's
//!   input) before any of it is used.
//! - [`sample`] generates deterministic sample data.
//!
//! The file format is in [`format`](mod@format) and
//! `docs/pwned-format.md`: 22 bytes per SHA-1 hash (18 hash bytes + a
//! 4-byte count) plus a 512 KiB table.
//!
//! # What lives elsewhere, and the parsers that live here
//!
//! This crate holds what is particular to the index — its format, its
//! text ([`text`]: HIBP lines and the hex under them, sans-IO, fuzzed as
//! `pwned_parse`), the builder's sort and the lookup. The rest is shared:
//! lines are split by the core's sans-IO `spool::text`; inputs are opened,
//! read ahead and decompressed, the index written under a temporary name
//! and locked, the work spread over the cores in order, and progress
//! reported by `spool-io`.
//!
//! Three more small parsers stay with their domain, because they are the
//! domain's own rules, and each is sans-IO (bytes or strings in, values
//! out) and fuzzed in-process: the header ([`format::Header::decode`]) and
//! a filter's shard entries (`format/filter.rs`), which take untrusted
//! files (`pwned_index`, `pwned_formats`); and the lines of
//! `check --batch` ([`lookup::check`]; `pwned_check_batch`).
//!
//! # Examples
//!
//! ```
//! use spool_pwned::build::{build, BuildOptions, Source};
//! use spool_pwned::{HashKind, Index};
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
// Safe Rust throughout but for mapping an index file and the prefetch
// hint beside it (`lookup/mapped.rs`) and giving the sorting arena's
// unused pages back (`build/buckets/arena.rs`), each saying why that is
// sound.
#![deny(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

pub mod build;
pub mod format;
pub mod lookup;
pub mod range_body;
pub mod sample;
pub mod text;

pub use build::IndexWriter;
pub use format::{to_hex, Damaged, HashKind, HeaderError, IndexError};
pub use lookup::{Answer, AnyIndex, CheckMany, Index, RangeEntries, RangeEntry, RangeError};
pub use text::hibp::LineErrorKind;
