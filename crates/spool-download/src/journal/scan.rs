//! Walking a journal's frames in order: each whole, checked frame with
//! the next prefix is good; the first that is not ends the walk (a resumed
//! journal is cut there).

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::{frame_crc, Frame, Origin, Resumed, Shape, FRAME_HEAD, HEADER_LEN};

/// Reads the complete journal at `path` (after [`Journal::sync`](super::Journal::sync)) and
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

/// Walks the frames after the header from the file's position, handing
/// each good one to `each`; returns the end of the last good frame and
/// what the good frames held.
pub(super) fn scan(
    file: &mut File,
    shape: Shape,
    mut each: impl FnMut(&Frame) -> io::Result<()>,
) -> io::Result<(u64, Resumed)> {
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut end = HEADER_LEN as u64;
    let mut resumed = Resumed {
        next: shape.first,
        hashes: 0,
        started_over: false,
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
        let expected = frame_crc(&head, &frame.etag, &frame.records);
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
