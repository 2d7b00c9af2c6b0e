//! The journal opened for appending: resumed from what it holds (or
//! started), then appended to frame by frame, synced at least every
//! [`SYNC_EVERY`].

use std::io;
use std::path::Path;
use std::time::Instant;

use super::scan::replay;
use super::{settings, Frame, Resumed, Shape, KIND, SETTINGS_LEN, SYNC_EVERY};

/// An open journal, appended to.
pub struct RangeJournal {
    out: spool_io::journal::Journal,
    shape: Shape,
    synced: Instant,
}

impl RangeJournal {
    /// Opens the journal at `path`, or starts one, and returns it with what
    /// it held.
    ///
    /// # Errors
    ///
    /// I/O errors naming `path`, and `InvalidData` if the file is a journal
    /// of other settings (another hash kind or format) or no journal at all.
    pub fn open(path: &Path, shape: Shape) -> io::Result<(RangeJournal, Resumed)> {
        let fresh = Resumed {
            next: shape.first,
            hashes: 0,
            started_over: false,
        };
        let (out, resumed) = match replay(path, shape)? {
            // None, or killed before its settings were whole.
            None => (start(path, shape)?, fresh),
            Some(found) if found.settings[..SETTINGS_LEN] != settings(shape)[..SETTINGS_LEN] => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: a download journal of other settings (hash kind or --format/--text/--ranges); \
                         run with the settings it was started with, or remove it to start over",
                        path.display()
                    ),
                ));
            }
            Some(found) if found.settings != settings(shape) => {
                // Started against another previous index: its kept frames
                // point into that one. Start over.
                let started_over = true;
                (
                    start(path, shape)?,
                    Resumed {
                        started_over,
                        ..fresh
                    },
                )
            }
            Some(found) => {
                let out = spool_io::journal::Journal::resume(path, KIND, found.valid_len)?;
                (out, found.resumed)
            }
        };
        let journal = RangeJournal {
            out,
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
        let mut head = [0u8; super::FRAME_HEAD];
        head[..4].copy_from_slice(&frame.prefix.to_le_bytes());
        head[4..8].copy_from_slice(&frame.hashes.to_le_bytes());
        head[8] = frame.origin as u8;
        head[9] = etag.len() as u8;
        self.out.append_parts(&[&head, etag, &frame.records])?;
        if self.synced.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    /// Flushes and syncs what was appended.
    ///
    /// # Errors
    ///
    /// I/O errors naming the journal.
    pub fn sync(&mut self) -> io::Result<()> {
        self.out.sync()?;
        self.synced = Instant::now();
        Ok(())
    }
}

/// A new journal at `path` holding the settings of `shape`, synced (so a
/// resume finds them whole).
fn start(path: &Path, shape: Shape) -> io::Result<spool_io::journal::Journal> {
    let mut out = spool_io::journal::Journal::create(path, KIND)?;
    out.append(&settings(shape))?;
    out.sync()?;
    Ok(out)
}
