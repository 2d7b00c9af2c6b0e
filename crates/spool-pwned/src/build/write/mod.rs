//! The writers of the three layouts, and what they share: the body of an
//! index file streamed behind a gap for its header and table (`body.rs`),
//! its block checksums computed on the way (`block_sums.rs`).
//!
//! - [`IndexWriter`] (`full.rs`): the full layout, fed one hash at a time
//!   while the input streams in hash order, or whole runs encoded on the
//!   sorting threads (`encoded_run.rs`) at the end of a sorting build;
//! - `t64.rs`, `filter.rs`: the smaller layouts, fed from a full index in
//!   hash order (`convert.rs`);
//! - [`SortedWriter`] (`sorted.rs`): any layout from hashes already in
//!   hash order (a conversion, a download).
//!
//! Every writer writes through one [`BodyWriter`](body::BodyWriter) into a
//! [`PartialFile`](spool_io::write::PartialFile): the file appears under
//! its name only once complete and synced, like every output of spool.

mod block_sums;
pub(crate) mod body;
pub(crate) mod encoded_run;
pub(crate) mod filter;
pub(crate) mod full;
mod sorted;
pub(crate) mod t64;

pub use full::IndexWriter;
pub use sorted::SortedWriter;
