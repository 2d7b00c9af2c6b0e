//! The end of a download: the journal, complete, becomes the index (and
//! the text and the ETags beside it, when asked for).
//!
//! The journal is read once, in prefix order, and each range goes to the
//! layout's writer ([`SortedWriter`], the writers `build` uses, so the
//! index is byte for byte what `build` makes of the same hashes), to the
//! text outputs (`text.rs`), and its ETag to the sidecar. A range's
//! records are those of its journal frame if it was fetched, and the
//! previous index's if it was kept (an update's `304`): both are laid out
//! as a full index stores records, so a full index takes each range in one
//! copy ([`SortedWriter::push_range`]); with 64 bits kept of each hash
//! (t64 or filter, no text) they go hash by hash. Each
//! output is written under a temporary name; the text file and the sidecar
//! are renamed into place first, then the index, so an index that appears
//! has its ETags, and the `--ranges` folder last. The caller removes the
//! journal once all is in place: a kill before that publishes again on
//! the next run (but for a kill between the folder's rename and the
//! journal's removal: the next run then refuses the folder, which is
//! complete, until it is moved away).

use std::io;
use std::path::Path;

use spool_pwned::build::SortedWriter;
use spool_pwned::format::{Header, IndexLayout};

use crate::etags::Etags;
use crate::journal::{self, Origin, Shape};
use crate::options::Options;
use crate::previous::Previous;
use crate::text::{RangesDir, TextOutputs};
use crate::DownloadError;

/// What the journal held, counted while publishing.
#[derive(Debug, Default)]
pub(crate) struct Published {
    pub header: Option<Header>,
    pub not_modified: u64,
    /// Hashes of the ranges fetched (`200`), in the previous index and now.
    pub changed_hashes: (u64, u64),
}

/// Writes `opts.output` (and its text and ETags) from the complete journal
/// at `path`, which holds `hashes` hashes.
pub(crate) fn publish(
    opts: &Options,
    shape: Shape,
    path: &Path,
    hashes: u64,
    previous: Option<&Previous>,
    ranges: Option<RangesDir>,
) -> Result<Published, DownloadError> {
    let kind = shape.kind;
    let mut writer = SortedWriter::create(&opts.output, kind, opts.layout, hashes, opts.memory)?;
    let mut text = TextOutputs::create(opts, shape, ranges)?;
    let mut etags = Etags::new(kind);
    let mut published = Published::default();
    let (mut records, mut total) = (0u64, 0u64);
    let mut hash = [0u8; 20];
    let key_len = kind.byte_len();
    let whole = shape.kept == key_len;
    let read = journal::read(path, shape, |frame| {
        etags.push(frame.prefix, frame.etag);
        let bytes = match (frame.origin, previous) {
            (Origin::Kept, Some(p)) => {
                published.not_modified += 1;
                p.records(frame.prefix).map_err(io::Error::other)?
            }
            (Origin::Kept, None) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a range kept from a previous index, in a download without one",
                ))
            }
            (Origin::Fetched, Some(p)) => {
                let before = p.hashes(frame.prefix).map_err(io::Error::other)?;
                published.changed_hashes.0 += before as u64;
                published.changed_hashes.1 += u64::from(frame.hashes);
                frame.records
            }
            (Origin::Fetched, None) => frame.records,
        };
        if bytes.len() != frame.hashes as usize * shape.record_len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "range {:05X}: {} hashes in the journal, {} bytes of records",
                    frame.prefix,
                    frame.hashes,
                    bytes.len()
                ),
            ));
        }
        records += u64::from(frame.hashes);
        if whole {
            writer.push_range(frame.prefix, bytes)?;
            total += counts(bytes, shape.record_len());
        } else {
            hash[..2].copy_from_slice(&((frame.prefix >> 4) as u16).to_be_bytes());
            for record in bytes.chunks_exact(shape.record_len()) {
                let (key, count) = record.split_at(shape.kept - 2);
                hash[2..shape.kept].copy_from_slice(key);
                let count = u32::from_le_bytes(count.try_into().expect("4 bytes"));
                writer.push(&hash[..key_len], count)?;
                total += u64::from(count);
            }
        }
        text.push(frame.prefix, frame.hashes, bytes)
    });
    read?;
    let ranges = text.commit_text()?;
    if opts.layout == IndexLayout::Sorted {
        // The header the index will have: a full index has one record per
        // hash.
        let header = Header {
            kind,
            records,
            total_count: total,
            data_crc: 0,
            block_shift: 0,
            layout: IndexLayout::Sorted,
            prefix_bits: 0,
            items: 0,
        };
        etags.write_beside(&opts.output, &header)?.commit()?;
    }
    published.header = Some(writer.finish()?);
    if let Some(ranges) = ranges {
        ranges.publish()?;
    }
    Ok(published)
}

/// The sum of the counts of `records` (each `len` bytes, the count last).
fn counts(records: &[u8], len: usize) -> u64 {
    records
        .chunks_exact(len)
        .map(|r| {
            u64::from(u32::from_le_bytes(
                r[len - 4..].try_into().expect("4 bytes"),
            ))
        })
        .sum()
}
