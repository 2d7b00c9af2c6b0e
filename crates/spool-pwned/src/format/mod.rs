//! The on-disk index format, documented in `docs/pwned-format.md`: what
//! both the writers (`build`) and the readers (`lookup`) agree on, and
//! nothing that reads or writes a file.
//!
//! ```text
//! offset  size        field
//! 0       8           magic "SPOOLPWN"
//! 8       4           format version (2), u32 LE
//! 12      1           hash kind (1 = SHA-1, 2 = NTLM)
//! 13      1           prefix bits (16): the fanout table's key width
//! 14      1           record length in bytes (hash length - 2 + 4)
//! 15      1           layout (1 = sorted records behind a fanout table;
//!                     2 = t64, 3 = filter: see `t64.rs`, `filter.rs`)
//! 16      8           record count, u64 LE
//! 24      8           sum of all counts, u64 LE
//! 32      4           CRC-32 of the fanout table and the records (64..E)
//! 36      1           block shift S: checksum blocks are 2^S bytes
//! 37      3           reserved (0)
//! 40      8           layout's item count: t64 escapes, filter
//!                     fingerprints (0 for layout 1), u64 LE
//! 48      12          reserved (0)
//! 60      4           CRC-32 of bytes 0..60
//! 64      8 * 65537   fanout table: u64 LE; entry p is the index of the
//!                     first record whose hash starts with the 16 bits p;
//!                     entry 65536 is the record count
//! ...     n * len     records, sorted by hash: hash bytes 2.. then the
//!                     count, u32 LE
//! E       4 * blocks  block checksums: CRC-32C of each 2^S-byte block of
//!                     bytes 0..E (the last block may be short), u32 LE
//! ```
//!
//! The parts, each depending only on the ones before it:
//!
//! - [`HashKind`] (`hash_kind.rs`): which hashes an index holds;
//! - `frame.rs`: what every file has, whatever its layout: the magic
//!   number, the version, the header's length, checksum block sizes;
//! - `full.rs`: the full layout's fanout table and records;
//! - `t64.rs`, `filter.rs`: the smaller layouts' records, escapes, shard
//!   entries and the filter's lookup arithmetic;
//! - [`IndexLayout`] (`layout.rs`): which of the three a file holds, and
//!   its sizes;
//! - `blocks.rs`: the block checksums every layout ends with, and
//!   [`Damaged`], the error of a block that fails its checksum;
//! - [`Header`] (`header.rs`): the 64 bytes every layout starts with;
//! - [`IndexError`] (`error.rs`): why a file could not be opened as an
//!   index.
//!
//! # Why block checksums
//!
//! A lookup reads a few dozen bytes of a file of gigabytes; a whole-file
//! checksum cannot be checked per lookup, and without a check a flipped
//! bit answers a wrong count silently. Each lookup instead checks the
//! blocks holding the bytes its answer rests on (see `lookup`): with
//! 256-byte blocks that is one CRC-32C of 256 bytes per block, tens of
//! nanoseconds with the CPU's CRC instruction, for a table of 1.6% of the
//! file. Blocks are aligned to file offsets so that a block never spans two
//! pages: checking one reads no page the lookup did not read anyway, but
//! for the page of the checksum table.
//!
//! # Versions and layouts
//!
//! Version 1 had no block checksums and is refused with a message saying
//! to rebuild (answering from it could be silently wrong). The layout byte
//! says how the bytes after the header are laid out: the full layout
//! above, or one of the smaller ones (`t64.rs`, `filter.rs`), which keep
//! this header, its checksums and the block checksums.

mod blocks;
mod error;
pub(crate) mod filter;
mod frame;
mod full;
mod hash_kind;
mod header;
mod layout;
pub(crate) mod t64;

pub(crate) use blocks::BlockCheck;
pub use blocks::Damaged;
pub use error::IndexError;
pub use frame::{BLOCK_SHIFT, BLOCK_SHIFTS, HEADER_LEN, MAGIC, VERSION};
pub(crate) use full::fanout_table;
pub use full::{
    checked_len, record_len, FANOUT_ENTRIES, PREFIX_BITS, PREFIX_BYTES, RECORDS_OFFSET,
};
pub use hash_kind::{to_hex, HashKind};
pub use header::{Header, HeaderError};
pub use layout::IndexLayout;
