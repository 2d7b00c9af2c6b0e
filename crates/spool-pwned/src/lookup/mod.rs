//! Reading an index: memory-mapped, read-only, a lookup in microseconds,
//! and never a wrong answer from a damaged file.
//!
//! - `mapped.rs`: the map, the header and length checked, the fanout
//!   search every sorted layout shares (with `search.rs`);
//! - [`Index`] (`full.rs`), `t64.rs`, `filter.rs`: one reader per layout;
//!   [`AnyIndex`] (`any.rs`) opens whichever a file holds and answers an
//!   [`Answer`];
//! - [`RangeEntries`] (`range.rs`): the records of a range query, as
//!   stored;
//! - [`check`]: what `check` makes of its input lines, kept apart from the
//!   files and the terminal so that it is fuzzed in-process
//!   (`pwned_check_batch`).
//!
//! # What a lookup checks
//!
//! A lookup searches without trusting the bytes, then checks the blocks
//! (the format's `blocks.rs`) holding the bytes its answer rests on, and
//! no others:
//!
//! - the two fanout entries `F[p]`, `F[p+1]`: they bound prefix `p`'s
//!   records;
//! - the records at `at − 1` and `at`, where `at` is where the search
//!   ended. The search guarantees that record `at − 1` compared below the
//!   hash (or `at` is the prefix's first) and record `at` not below it (or
//!   `at` is past the prefix's last). Once both are known intact, the
//!   file's order makes the answer exact: the hash is at `at` or nowhere.
//!
//! A flipped bit elsewhere can steer the search, but never to an answer
//! that passes these checks: it ends at a wrong place, whose neighbours
//! then do not bracket the hash, or it touches a damaged block, which is
//! reported as [`Damaged`](crate::format::Damaged).

mod any;
pub mod check;
mod filter;
mod full;
#[allow(unsafe_code)]
mod mapped;
mod range;
mod search;
mod t64;

pub use any::{Answer, AnyIndex, CheckMany, RangeError};
pub use full::Index;
pub use range::{RangeEntries, RangeEntry};
