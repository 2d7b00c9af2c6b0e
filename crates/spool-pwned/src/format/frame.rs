//! What every index file has, whatever its layout: the magic number and
//! version at its start, the 64-byte header they open, and checksum blocks
//! of `2^S` bytes over everything before its checksums.
//!
//! These constants come first because every layout's offsets start after
//! the header and every layout ends in block checksums.

/// First bytes of every index file.
pub const MAGIC: &[u8; 8] = b"SPOOLPWN";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 2;
/// Header size in bytes.
pub const HEADER_LEN: usize = 64;
/// Log2 of the checksum block size of the full and t64 layouts (256
/// bytes: see the format module's docs); a filter's is
/// `filter::BLOCK_SHIFT` (`format/filter.rs`).
pub const BLOCK_SHIFT: u8 = 8;
/// Block shifts a reader accepts: 64 bytes to one 4 KiB page.
pub const BLOCK_SHIFTS: std::ops::RangeInclusive<u8> = 6..=12;
