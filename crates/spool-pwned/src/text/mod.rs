//! The text of the Have I Been Pwned corpus, parsed without I/O.
//!
//! Every line of the corpus (about a billion) is a hash in hex, a colon and
//! a count, so these two parsers sit in the index build's hot loop and in
//! every range answer a download checks. They are this crate's own format,
//! not general text syntax, which is why they live here rather than in the
//! core's `spool::text` (records, fields, CSV), whose splitters they are
//! fed by.
//!
//! ```text
//!  line ──hibp::parse_line──► (hash bytes, count)
//!              │
//!              └──hex::decode (SSE2 / AVX2 / table)
//! ```
//!
//! - [`hibp`]: `HASH:COUNT` lines, full or from a range file, one at a
//!   time or a block of whole lines at once.
//! - [`hex`]: hex digits to bytes, checked and decoded in one pass; also
//!   what `check`, `serve` and `spool-okon` decode a typed hash with.
//!
//! Both are fuzzed (`pwned_parse`) and checked against their portable
//! reference decoders on every pair of byte values in every position.
//!
//! # Examples
//!
//! ```
//! use spool_pwned::text::hibp::parse_line;
//! let mut hash = [0u8; 20];
//! let count = parse_line(b"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:10", b"", &mut hash).unwrap();
//! assert_eq!((hash[0], count), (0x5b, 10));
//! ```

// SIMD decoding: each block says why it is sound.
#[allow(unsafe_code)]
pub mod hex;
#[allow(unsafe_code)]
pub mod hibp;
