//! The journal of a download: every range accepted so far, in prefix
//! order, in a file beside the output that survives any interruption.
//!
//! It is a journal in spool-io's format ([`spool_io::journal`]: records
//! appended in order, each with its length and CRC-32C, replayed up to the
//! last whole one), of kind `download`, and holds two kinds of record:
//!
//! ```text
//!  settings  kind code u8 | kept hash bytes u8 | first prefix u32
//!            | end prefix u32 (the prefixes fetched)
//!            | previous index: records u64 | total count u64 | data CRC u32
//!                                                (all zero in a download)
//!  frame     prefix u32 | hashes u32 | origin u8 | ETag length u8 | ETag
//!            | records (fetched frames only)
//!  records   hashes × (hash bytes 2..kept | count u32)
//! ```
//!
//! All integers little-endian. The settings come first, once. A frame holds
//! one range: the range's ETag (empty if none or longer than 255 bytes),
//! its number of hashes and whether it was fetched (origin 0) or is the
//! previous index's, unchanged (origin 1: the server answered `304`). A
//! fetched frame holds the range's hashes with the first two bytes dropped
//! (the prefix gives them back); a kept frame holds none: the range is
//! copied from the previous index when the index is written
//! (`publish.rs`), which is what makes an update with few changes cheap —
//! the unchanged ranges, nearly the whole index, never pass through the
//! journal.
//!
//! Since kept frames point into the previous index, the settings name it
//! (its header's record count, total and data checksum): a journal
//! started against another previous index (the input was replaced
//! meanwhile, e.g. by this very update renaming its output over it) is
//! not resumed but started over — it would copy the wrong ranges.
//!
//! # Resume
//!
//! Frames are only ever appended, in prefix order, and flushed and synced
//! at least every [`SYNC_EVERY`]. Reopening replays the frames from the
//! start and keeps every one that is whole, checks out and has the next
//! prefix; the file is cut after the last such frame and the download
//! goes on from the prefix after it. A kill at any moment loses at most
//! the ranges not yet written (kill -9 loses nothing written, the page
//! cache keeps it); a power cut at most those since the last sync. What is
//! kept is exactly what an uninterrupted run would have written, so the
//! index made from it at the end is the same.
//!
//! # Files
//!
//! - `mod.rs`: the layout (above), the types a frame is made of, the
//!   settings record and a frame's parsing;
//! - `append.rs`: [`RangeJournal`], opened (resuming what it holds) and
//!   appended to;
//! - `scan.rs`: walking the frames, to resume and to [`read`] the whole.
//!
//! # Size
//!
//! `kept` is the hash's whole length when the index is `full` or text
//! (`--text`, `--ranges`) is written too, and 8 bytes otherwise (t64 and
//! filter use only a hash's first 64 bits): 22 bytes per SHA-1 hash, or
//! 10, plus 18 bytes and the ETag per range.

use std::time::Duration;

use spool_io::journal::{FieldReader, FieldWriter, Kind};
use spool_pwned::HashKind;

mod append;
mod scan;
#[cfg(test)]
mod tests;

pub use append::RangeJournal;
pub use scan::read;

/// The longest time between two syncs of the journal while appending.
pub const SYNC_EVERY: Duration = Duration::from_secs(2);

/// The journal's kind in spool-io's format.
const KIND: Kind = *b"download";
/// Bytes of a frame before its ETag.
const FRAME_HEAD: usize = 10;
/// Bytes of the settings record up to the previous index, and in all.
const SETTINGS_LEN: usize = 10;
#[cfg(test)]
const SETTINGS_RECORD_LEN: usize = SETTINGS_LEN + 20;

/// Where a range's hashes came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Fetched: a `200` answer.
    Fetched = 0,
    /// The previous index's, unchanged: a `304` answer. The frame holds
    /// no records.
    Kept = 1,
}

/// One range as it goes into the journal.
pub struct Frame {
    /// The range's prefix.
    pub prefix: u32,
    /// Number of hashes (when kept, of the previous index's range).
    pub hashes: u32,
    /// Fetched or kept.
    pub origin: Origin,
    /// The ETag the server gave (empty if none).
    pub etag: Vec<u8>,
    /// Fetched: `hashes` records of `kept - 2` hash bytes and a count;
    /// kept: none (they are in the previous index).
    pub records: Vec<u8>,
}

impl Frame {
    /// Bytes of records the frame holds in `shape`.
    fn records_len(&self, shape: Shape) -> usize {
        match self.origin {
            Origin::Fetched => self.hashes as usize * shape.record_len(),
            Origin::Kept => 0,
        }
    }
}

/// Which index an update started from: its header's record count, total
/// count and data checksum (a rebuild with any change alters the last).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PreviousId {
    /// Records.
    pub records: u64,
    /// Sum of the counts.
    pub total: u64,
    /// The data checksum.
    pub data_crc: u32,
}

/// The journal's settings: the hashes it holds and how much of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// SHA-1 or NTLM.
    pub kind: HashKind,
    /// Leading bytes of each hash kept (8 or the hash's length).
    pub kept: usize,
    /// The first prefix fetched (0 but in tests).
    pub first: u32,
    /// The prefix after the last fetched ([`RANGES`](spool_pwned::range_body::RANGES) but in tests).
    pub end: u32,
    /// The index an update started from (none for a download).
    pub previous: Option<PreviousId>,
}

impl Shape {
    /// Bytes of one record in a frame.
    pub fn record_len(self) -> usize {
        self.kept - 2 + 4
    }
}

/// What the journal held when it was opened.
#[derive(Clone, Copy, Debug, Default)]
pub struct Resumed {
    /// The next prefix to fetch (`Shape::end` when complete).
    pub next: u32,
    /// Hashes in the frames kept.
    pub hashes: u64,
    /// A journal of an update from another previous index was found and
    /// started over.
    pub started_over: bool,
}

/// The settings record of a journal of `shape`.
fn settings(shape: Shape) -> Vec<u8> {
    let mut record = Vec::new();
    let previous = shape.previous.unwrap_or_default();
    FieldWriter(&mut record)
        .u8(shape.kind.code())
        .u8(shape.kind.byte_len().min(shape.kept) as u8)
        .u32(shape.first)
        .u32(shape.end)
        .u64(previous.records)
        .u64(previous.total)
        .u32(previous.data_crc);
    record
}

/// A frame as read back, borrowed from the replay's buffer (a frame's
/// records are not copied again on their way to the index).
pub struct FrameView<'a> {
    /// The range's prefix.
    pub prefix: u32,
    /// Number of hashes.
    pub hashes: u32,
    /// Fetched or kept.
    pub origin: Origin,
    /// The ETag.
    pub etag: &'a [u8],
    /// The records (fetched frames only).
    pub records: &'a [u8],
}

/// Reads `payload` as the frame with prefix `next`; `None` if it is not
/// one (another prefix, an origin or a length that does not fit).
fn parse_frame(payload: &[u8], shape: Shape, next: u32) -> Option<FrameView<'_>> {
    let mut fields = FieldReader::new(payload);
    let (prefix, hashes) = (fields.u32()?, fields.u32()?);
    let origin = match fields.u8()? {
        0 => Origin::Fetched,
        1 => Origin::Kept,
        _ => return None,
    };
    let etag_end = FRAME_HEAD + usize::from(fields.u8()?);
    let records_len = match origin {
        Origin::Fetched => hashes as usize * shape.record_len(),
        Origin::Kept => 0,
    };
    // A range has far fewer hashes than this; a larger number is a
    // damaged frame.
    if prefix != next || hashes > 1 << 24 || payload.len() != etag_end + records_len {
        return None;
    }
    Some(FrameView {
        prefix,
        hashes,
        origin,
        etag: &payload[FRAME_HEAD..etag_end],
        records: &payload[etag_end..],
    })
}
