//! The journal opened for appending: resumed from what it holds (or
//! started), then appended to frame by frame, synced at least every
//! [`SYNC_EVERY`].

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::scan::scan;
use super::{
    frame_crc, header, Frame, Resumed, Shape, FRAME_HEAD, HEADER_LEN, SETTINGS_LEN, SYNC_EVERY,
};

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
            started_over: false,
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
                let started_over = true;
                (
                    HEADER_LEN as u64,
                    Resumed {
                        started_over,
                        ..fresh
                    },
                )
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
        let crc = frame_crc(&head, etag, &frame.records);
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
