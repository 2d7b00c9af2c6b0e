//! Replaying a journal's frames in order: each whole, checked frame with
//! the next prefix is good; the first that is not ends the replay (a
//! resumed journal is cut there).

use std::io;
use std::path::Path;

use spool_io::journal::{Replay, HEADER_LEN};

use super::{parse_frame, FrameView, Resumed, Shape, KIND};

/// Reads the complete journal at `path` (after [`RangeJournal::sync`](super::RangeJournal::sync)) and
/// hands each frame to `each`, in prefix order.
///
/// # Errors
///
/// I/O errors naming `path`, `InvalidData` if a frame is damaged or
/// missing, and what `each` returns.
pub fn read(
    path: &Path,
    shape: Shape,
    mut each: impl FnMut(&FrameView<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let mut replay = Replay::open(path, KIND)?;
    replay.next_record()?; // the settings, checked when the journal was opened
    let mut next = shape.first;
    while next < shape.end {
        let Some(payload) = replay.next_record()? else {
            break;
        };
        let Some(frame) = parse_frame(payload, shape, next) else {
            break;
        };
        each(&frame).map_err(named)?;
        next += 1;
    }
    if next != shape.end {
        return Err(named(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the journal ends at range {next:05X}"),
        )));
    }
    Ok(())
}

/// What a journal file held.
pub(super) struct Found {
    /// Its settings record.
    pub settings: Vec<u8>,
    /// Where its last good frame ends.
    pub valid_len: u64,
    /// What its good frames held.
    pub resumed: Resumed,
}

/// Replays the journal at `path`: its settings and its good frames; `None`
/// if there is none, or it was cut before its settings were whole.
///
/// # Errors
///
/// I/O errors naming `path`, and `InvalidData` if the file is not a
/// download journal.
pub(super) fn replay(path: &Path, shape: Shape) -> io::Result<Option<Found>> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() < HEADER_LEN as u64 => return Ok(None),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    }
    let mut replay = Replay::open(path, KIND).map_err(|e| {
        if e.kind() == io::ErrorKind::InvalidData {
            io::Error::new(
                e.kind(),
                format!("{e}; not a download journal: remove it to start over"),
            )
        } else {
            e
        }
    })?;
    let Some(settings) = replay.next_record()?.map(<[u8]>::to_vec) else {
        return Ok(None);
    };
    let mut resumed = Resumed {
        next: shape.first,
        hashes: 0,
        started_over: false,
    };
    let mut valid_len = replay.valid_len();
    while resumed.next < shape.end {
        let Some(payload) = replay.next_record()? else {
            break;
        };
        let Some(frame) = parse_frame(payload, shape, resumed.next) else {
            break;
        };
        resumed.next += 1;
        resumed.hashes += u64::from(frame.hashes);
        valid_len = replay.valid_len();
    }
    Ok(Some(Found {
        settings,
        valid_len,
        resumed,
    }))
}
