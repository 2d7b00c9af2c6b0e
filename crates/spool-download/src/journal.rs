//! The journal of a download: every range accepted so far, in prefix
//! order, in a file beside the output that survives any interruption.
//!
//! ```text
//!  header   "SPOOLDL2" | kind code u8 | kept hash bytes u8 | 6 zero bytes
//!           | first prefix u32 | end prefix u32 (the prefixes fetched)
//!           | previous index: records u64 | total count u64 | data CRC u32
//!           | 4 zero bytes                        (all zero in a download)
//!  frame    prefix u32 | hashes u32 | origin u8 | ETag length u8 | ETag
//!           | records (fetched frames only) | CRC-32C u32
//!  records  hashes × (hash bytes 2..kept | count u32)
//! ```
//!
//! All integers little-endian. A frame holds one range: the range's ETag
//! (empty if none or longer than 255 bytes), its number of hashes and
//! whether it was fetched (origin 0) or is the previous index's, unchanged
//! (origin 1: the server answered `304`). A fetched frame holds the
//! range's hashes with the first two bytes dropped (the prefix gives them
//! back); a kept frame holds none: the range is copied from the previous
//! index when the index is written (`publish.rs`), which is what makes an
//! update with few changes cheap — the unchanged ranges, nearly the whole
//! index, never pass through the journal. The checksum covers the frame's
//! bytes before it.
//!
//! Since kept frames point into the previous index, the header names it
//! (its header's record count, total and data checksum): a journal
//! started against another previous index (the input was replaced
//! meanwhile, e.g. by this very update renaming its output over it) is
//! not resumed but started over — it would copy the wrong ranges.
//!
//! # Resume
//!
//! Frames are only ever appended, in prefix order, and flushed and synced
//! at least every [`SYNC_EVERY`]. Reopening walks the frames from the
//! start and keeps every one that is whole, checks out and has the next
//! prefix; the file is cut after the last such frame and the download
//! goes on from the prefix after it. A kill at any moment loses at most
//! the ranges not yet written (kill -9 loses nothing written, the page
//! cache keeps it); a power cut at most those since the last sync. What is
//! kept is exactly what an uninterrupted run would have written, so the
//! index made from it at the end is the same.
//!
//! # Size
//!
//! `kept` is the hash's whole length when the index is `full` or text
//! (`--text`, `--ranges`) is written too, and 8 bytes otherwise (t64 and
//! filter use only a hash's first 64 bits): 22 bytes per SHA-1 hash, or
//! 10, plus 14 bytes and the ETag per range.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use spool_pwned::HashKind;

/// The longest time between two syncs of the journal while appending.
pub const SYNC_EVERY: Duration = Duration::from_secs(2);

const MAGIC: &[u8; 8] = b"SPOOLDL2";
const HEADER_LEN: usize = 48;
/// Bytes of the header that say what the journal is for (the rest names
/// the previous index).
const SETTINGS_LEN: usize = 24;
/// Bytes of a frame before its ETag.
const FRAME_HEAD: usize = 10;

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
}

/// An open journal, appended to.
pub struct Journal {
    path: PathBuf,
    out: BufWriter<File>,
    shape: Shape,
    synced: Instant,
}

impl Journal {
    /// Opens the journal at `path`, or starts one, and returns it with what
    /// it held.
    ///
    /// # Errors
    ///
    /// I/O errors naming `path`, and `InvalidData` if the file is a journal
    /// of another shape (another kind or format) or no journal at all.
    pub fn open(path: &Path, shape: Shape) -> io::Result<(Journal, Resumed)> {
        let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(named)?;
        let header = header(shape);
        let fresh = Resumed {
            next: shape.first,
            hashes: 0,
        };
        let (end, resumed) = if file.metadata().map_err(named)?.len() < HEADER_LEN as u64 {
            file.set_len(0).map_err(named)?;
            file.write_all(&header).map_err(named)?;
            (HEADER_LEN as u64, fresh)
        } else {
            let mut found = [0u8; HEADER_LEN];
            file.read_exact(&mut found).map_err(named)?;
            if found[..SETTINGS_LEN] != header[..SETTINGS_LEN] {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: a download journal of other settings (hash kind or --format/--text/--ranges) or not a journal; \
                         run with the settings it was started with, or remove it to start over",
                        path.display()
                    ),
                ));
            }
            if found != header {
                // Started against another previous index: its kept frames
                // point into that one. Start over.
                file.set_len(0).map_err(named)?;
                file.seek(SeekFrom::Start(0)).map_err(named)?;
                file.write_all(&header).map_err(named)?;
                (HEADER_LEN as u64, fresh)
            } else {
                scan(&mut file, shape, |_| Ok(())).map_err(named)?
            }
        };
        file.set_len(end).map_err(named)?;
        file.seek(SeekFrom::Start(end)).map_err(named)?;
        let journal = Journal {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
            shape,
            synced: Instant::now(),
        };
        Ok((journal, resumed))
    }

    /// Appends `frame`, syncing if the last sync is [`SYNC_EVERY`] ago.
    ///
    /// # Errors
    ///
    /// I/O errors naming the journal.
    pub fn append(&mut self, frame: &Frame) -> io::Result<()> {
        debug_assert_eq!(frame.records.len(), frame.records_len(self.shape));
        let etag = if frame.etag.len() <= 255 {
            &frame.etag[..]
        } else {
            &[]
        };
        let mut head = [0u8; FRAME_HEAD];
        head[..4].copy_from_slice(&frame.prefix.to_le_bytes());
        head[4..8].copy_from_slice(&frame.hashes.to_le_bytes());
        head[8] = frame.origin as u8;
        head[9] = etag.len() as u8;
        let crc = [&head[..], etag, &frame.records]
            .iter()
            .fold(0, |crc, part| crc32c::crc32c_append(crc, part));
        let result = (|| {
            self.out.write_all(&head)?;
            self.out.write_all(etag)?;
            self.out.write_all(&frame.records)?;
            self.out.write_all(&crc.to_le_bytes())?;
            if self.synced.elapsed() >= SYNC_EVERY {
                self.sync()?;
            }
            Ok(())
        })();
        result.map_err(|e: io::Error| self.error(e))
    }

    /// Flushes and syncs what was appended.
    ///
    /// # Errors
    ///
    /// I/O errors naming the journal.
    pub fn sync(&mut self) -> io::Result<()> {
        self.out.flush().map_err(|e| self.error(e))?;
        self.out.get_ref().sync_data().map_err(|e| self.error(e))?;
        self.synced = Instant::now();
        Ok(())
    }

    fn error(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.path.display()))
    }
}

/// Reads the complete journal at `path` (after [`Journal::sync`]) and
/// hands each frame to `each`, in prefix order.
///
/// # Errors
///
/// I/O errors naming `path`, `InvalidData` if a frame is damaged or
/// missing, and what `each` returns.
pub fn read(
    path: &Path,
    shape: Shape,
    each: impl FnMut(&Frame) -> io::Result<()>,
) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let mut file = File::open(path).map_err(named)?;
    file.seek(SeekFrom::Start(HEADER_LEN as u64))
        .map_err(named)?;
    let (_, resumed) = scan(&mut file, shape, each).map_err(named)?;
    if resumed.next != shape.end {
        return Err(named(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the journal ends at range {:05X}", resumed.next),
        )));
    }
    Ok(())
}

fn header(shape: Shape) -> [u8; HEADER_LEN] {
    let mut header = [0u8; HEADER_LEN];
    header[..8].copy_from_slice(MAGIC);
    header[8] = shape.kind.code();
    header[9] = shape.kind.byte_len().min(shape.kept) as u8;
    header[16..20].copy_from_slice(&shape.first.to_le_bytes());
    header[20..24].copy_from_slice(&shape.end.to_le_bytes());
    if let Some(previous) = shape.previous {
        header[24..32].copy_from_slice(&previous.records.to_le_bytes());
        header[32..40].copy_from_slice(&previous.total.to_le_bytes());
        header[40..44].copy_from_slice(&previous.data_crc.to_le_bytes());
    }
    header
}

/// Walks the frames after the header from the file's position, handing
/// each good one to `each`; returns the end of the last good frame and
/// what the good frames held.
fn scan(
    file: &mut File,
    shape: Shape,
    mut each: impl FnMut(&Frame) -> io::Result<()>,
) -> io::Result<(u64, Resumed)> {
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut end = HEADER_LEN as u64;
    let mut resumed = Resumed {
        next: shape.first,
        hashes: 0,
    };
    let mut frame = Frame {
        prefix: 0,
        hashes: 0,
        origin: Origin::Fetched,
        etag: Vec::new(),
        records: Vec::new(),
    };
    while resumed.next < shape.end {
        let mut head = [0u8; FRAME_HEAD];
        if !read_whole(&mut input, &mut head)? {
            break;
        }
        frame.prefix = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
        frame.hashes = u32::from_le_bytes(head[4..8].try_into().expect("4 bytes"));
        frame.origin = match head[8] {
            0 => Origin::Fetched,
            1 => Origin::Kept,
            _ => break,
        };
        // A range has far fewer hashes than this; a larger number is a
        // damaged frame, not a reason to allocate.
        if frame.prefix != resumed.next || frame.hashes > 1 << 24 {
            break;
        }
        frame.etag.resize(usize::from(head[9]), 0);
        frame.records.resize(frame.records_len(shape), 0);
        let mut crc = [0u8; 4];
        if !read_whole(&mut input, &mut frame.etag)?
            || !read_whole(&mut input, &mut frame.records)?
            || !read_whole(&mut input, &mut crc)?
        {
            break;
        }
        let expected = [&head[..], &frame.etag, &frame.records]
            .iter()
            .fold(0, |crc, part| crc32c::crc32c_append(crc, part));
        if expected != u32::from_le_bytes(crc) {
            break;
        }
        each(&frame)?;
        end += (FRAME_HEAD + frame.etag.len() + frame.records.len() + 4) as u64;
        resumed.next += 1;
        resumed.hashes += u64::from(frame.hashes);
    }
    Ok((end, resumed))
}

/// Fills `buf`; `false` if the input ends first.
fn read_whole(input: &mut impl Read, buf: &mut [u8]) -> io::Result<bool> {
    match input.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(previous: Option<PreviousId>) -> Shape {
        Shape {
            kind: HashKind::Sha1,
            kept: 20,
            first: 0,
            end: 4,
            previous,
        }
    }

    fn kept(prefix: u32, hashes: u32) -> Frame {
        Frame {
            prefix,
            hashes,
            origin: Origin::Kept,
            etag: b"\"e\"".to_vec(),
            records: Vec::new(),
        }
    }

    #[test]
    fn kept_frames_resume_against_their_previous_index_only() {
        let dir = std::env::temp_dir().join(format!("spool-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(".out.download");
        let first = PreviousId {
            records: 10,
            total: 20,
            data_crc: 30,
        };
        let one = Some(first);
        let (mut journal, resumed) = Journal::open(&path, shape(one)).unwrap();
        assert_eq!(resumed.next, 0);
        journal.append(&kept(0, 5)).unwrap();
        let fetched = Frame {
            prefix: 1,
            hashes: 1,
            origin: Origin::Fetched,
            etag: Vec::new(),
            records: vec![7; 22],
        };
        journal.append(&fetched).unwrap();
        journal.sync().unwrap();
        drop(journal);
        // The same previous index: both frames are kept (a kept frame is
        // its head alone).
        let (journal, resumed) = Journal::open(&path, shape(one)).unwrap();
        assert_eq!((resumed.next, resumed.hashes), (2, 6));
        drop(journal);
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(len, (HEADER_LEN + 2 * (FRAME_HEAD + 4) + 3 + 22) as u64);
        // Another previous index: started over.
        let other = Some(PreviousId {
            data_crc: 31,
            ..first
        });
        let (journal, resumed) = Journal::open(&path, shape(other)).unwrap();
        assert_eq!((resumed.next, resumed.hashes), (0, 0));
        drop(journal);
        // Other settings: refused, the journal left as it is.
        let settings = Shape {
            kept: 8,
            ..shape(other)
        };
        let err = Journal::open(&path, settings).err().unwrap();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), HEADER_LEN as u64);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
