//! Groups without an open Parquet writer: their records, as the router
//! buffered them (text), appended to one spill log per writer thread, and
//! turned into each group's Parquet part once, when the input ends.
//!
//! A writer thread keeps an `ArrowWriter` open only for as many groups as
//! `--max-open` and the budget allow (see the bounds of the
//! `open_writers` module); closing one to make room for another would
//! finish its part file, and the group would come back with a new part
//! each time — with many more keys than open writers, several part files
//! per key of a few rows each. The other groups' blocks go to the log instead, each as
//! a *run* that points back at the same group's previous run:
//!
//! ```text
//!  offset 0                 r1                       r2
//!  ├─ gid 7, len, prev: ∅ ─┼─ gid 3, len, prev: ∅ ──┼─ gid 7, len, prev: 0 ─┼─ …
//!  │  text of block        │  text of block         │  text of block        │
//! ```
//!
//! so the thread remembers one offset per spilled group (its last run)
//! and nothing else; [`SpillLog::drain`] walks a group's chain back to its
//! first run, and [`Drain`] hands its text back in order. One log per
//! thread, written through one buffer, replaces a file per group: with
//! many keys the per-group files cost an `open` call for nearly every
//! block (an LRU of `--max-open` files thrashing) and a creation and a
//! removal per group, most of the run's time in the kernel; the log costs
//! one sequential write of the spilled text and one read of each run
//! back.
//!
//! The log is hidden (`.spill-N`) at the root of the run's staging
//! directory. When the input ends it is [finished](Spill::finish): its
//! name is removed and its groups are read back through the open file
//! ([`SpillLog`]), by whichever writer thread converts them (see the
//! `conversion_queue` module), the space freed when the last is done. A failed or
//! killed run before that removes it with the rest of the staging
//! directory.
//!
//! # Bounds
//!
//! Appending holds [`WRITE_BUFFER`] bytes. Draining a group holds one
//! [`READ_PIECE`] and its chain: 12 bytes per run of that group (a run is
//! a block the router sent, at least one record), given back before the
//! next group.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use spool_io::input::with_path;

/// Bytes read back from the log at a time when converting a group: its
/// runs' text, joined.
pub(crate) const READ_PIECE: usize = 1 << 20;

/// The log's write buffer: blocks spilled under memory pressure are often
/// a few hundred bytes, and are joined into writes of this size.
pub(crate) const WRITE_BUFFER: usize = 64 << 10;

/// Bytes of a run's header: group, length, the group's previous run.
const HEADER: usize = 16;

/// `prev` of a group's first run.
const NONE: u64 = u64::MAX;

/// One writer thread's spill log, being written; see the module docs.
/// Which groups spill and the offset of each one's last run, the caller
/// keeps.
pub(crate) struct Spill {
    path: PathBuf,
    /// Created with the first run.
    log: Option<BufWriter<File>>,
    /// Bytes appended so far (the next run's offset).
    len: u64,
}

impl Spill {
    /// A log at `path`, created when the first run is appended.
    pub fn new(path: PathBuf) -> Self {
        Spill {
            path,
            log: None,
            len: 0,
        }
    }

    /// Appends `data` as a run of group `gid`, whose previous run is at
    /// `prev` (`None` for its first); returns the new run's offset, to be
    /// passed as `prev` next time.
    ///
    /// # Errors
    ///
    /// The log cannot be created or written, or a run longer than 4 GiB.
    pub fn append(&mut self, gid: u32, prev: Option<u64>, data: &[u8]) -> io::Result<u64> {
        let len = u32::try_from(data.len()).map_err(|_| {
            io::Error::new(io::ErrorKind::InvalidInput, "a spilled block over 4 GiB")
        })?;
        let log = match &mut self.log {
            Some(log) => log,
            None => {
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .open(&self.path)
                    .map_err(|e| with_path(e, &self.path))?;
                self.log
                    .insert(BufWriter::with_capacity(WRITE_BUFFER, file))
            }
        };
        let mut header = [0u8; HEADER];
        header[..4].copy_from_slice(&gid.to_le_bytes());
        header[4..8].copy_from_slice(&len.to_le_bytes());
        header[8..].copy_from_slice(&prev.unwrap_or(NONE).to_le_bytes());
        let at = self.len;
        (log.write_all(&header).and_then(|()| log.write_all(data)))
            .map_err(|e| with_path(e, &self.path))?;
        self.len += (HEADER + data.len()) as u64;
        Ok(at)
    }

    /// Ends the appending: writes out what is buffered and removes the
    /// log's name, handing back the open file to read the runs from
    /// (`None` if nothing was spilled).
    ///
    /// # Errors
    ///
    /// The write or the removal fails.
    pub fn finish(&mut self) -> io::Result<Option<Arc<SpillLog>>> {
        let Some(log) = self.log.take() else {
            return Ok(None);
        };
        let file = log
            .into_inner()
            .map_err(|e| with_path(e.into_error(), &self.path))?;
        std::fs::remove_file(&self.path).map_err(|e| with_path(e, &self.path))?;
        Ok(Some(Arc::new(SpillLog {
            file,
            path: self.path.clone(),
        })))
    }
}

/// A [finished](Spill::finish) spill log: its runs, read back by any
/// thread.
pub(crate) struct SpillLog {
    /// Open for reading; its name is gone.
    file: File,
    /// The name it had, for messages.
    path: PathBuf,
}

impl SpillLog {
    /// Group `gid`'s text, whose last run is at `last`, to be read back
    /// in input order into `buf` (any buffer: it is resized to one
    /// [`READ_PIECE`]; [`Drain::into_buffer`] gives it back).
    ///
    /// # Errors
    ///
    /// Reading fails, or a run's header does not belong to `gid` (the log
    /// was changed under the run).
    pub fn drain(self: &Arc<Self>, gid: u32, last: u64, mut buf: Vec<u8>) -> io::Result<Drain> {
        let runs = self.chain(gid, last)?;
        buf.resize(READ_PIECE, 0);
        Ok(Drain {
            log: self.clone(),
            runs: runs.into_iter(),
            run: (0, 0),
            buf,
        })
    }

    /// Group `gid`'s runs as (offset of its text, length), first first.
    fn chain(&self, gid: u32, last: u64) -> io::Result<Vec<(u64, u32)>> {
        let mut runs = Vec::new();
        let mut at = last;
        while at != NONE {
            let mut header = [0u8; HEADER];
            (self.file.read_exact_at(&mut header, at)).map_err(|e| with_path(e, &self.path))?;
            let [g0, g1, g2, g3, l0, l1, l2, l3, prev @ ..] = header;
            if u32::from_le_bytes([g0, g1, g2, g3]) != gid {
                return Err(io::Error::other(format!(
                    "{}: spill log corrupt at byte {at}",
                    self.path.display()
                )));
            }
            runs.push((at + HEADER as u64, u32::from_le_bytes([l0, l1, l2, l3])));
            at = u64::from_le_bytes(prev);
        }
        runs.reverse();
        Ok(runs)
    }
}

/// One group's text read back from a spill log ([`SpillLog::drain`]).
pub(crate) struct Drain {
    log: Arc<SpillLog>,
    /// The runs not started yet.
    runs: std::vec::IntoIter<(u64, u32)>,
    /// What is left of the run being read: offset, length.
    run: (u64, u32),
    buf: Vec<u8>,
}

impl Drain {
    /// The next piece of the group's text: its runs joined, at most
    /// [`READ_PIECE`] bytes (a piece may end inside a record; the next one
    /// goes on from there); `None` at the end.
    ///
    /// # Errors
    ///
    /// Reading fails.
    pub fn next_piece(&mut self) -> io::Result<Option<&[u8]>> {
        let mut filled = 0;
        while filled < READ_PIECE {
            if self.run.1 == 0 {
                match self.runs.next() {
                    Some(run) => self.run = run,
                    None => break,
                }
                continue;
            }
            let (at, len) = self.run;
            let n = (len as usize).min(READ_PIECE - filled);
            (self
                .log
                .file
                .read_exact_at(&mut self.buf[filled..filled + n], at))
            .map_err(|e| with_path(e, &self.log.path))?;
            filled += n;
            self.run = (at + n as u64, len - n as u32);
        }
        Ok((filled > 0).then(|| &self.buf[..filled]))
    }

    /// Its buffer, for the next drain: a fresh one per group would be
    /// fresh pages, zeroed by the kernel, for every spilled group.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }
}

/// Where writer thread `index` of a run keeps its log: hidden, at the
/// root of the staging directory `root`.
pub(crate) fn log_path(root: &Path, index: usize) -> PathBuf {
    root.join(format!(".spill-{index}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interleaved groups come back whole and in order, in pieces no
    /// larger than `READ_PIECE` (a run larger than one is split).
    #[test]
    fn drain_returns_each_groups_runs_in_order() {
        let dir = std::env::temp_dir().join(format!("spool-spill-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut spill = Spill::new(log_path(&dir, 0));
        let mut last: [Option<u64>; 3] = [None; 3];
        let mut expected: [Vec<u8>; 3] = Default::default();
        for i in 0..500u32 {
            let g = (i * 7 % 3) as usize;
            let len = if i == 250 {
                READ_PIECE + 17
            } else {
                (i % 50) as usize
            };
            let data: Vec<u8> = (0..len).map(|j| (i as usize + j) as u8).collect();
            last[g] = Some(spill.append(g as u32, last[g], &data).unwrap());
            expected[g].extend_from_slice(&data);
        }
        let log = spill.finish().unwrap().expect("runs were appended");
        assert!(
            !log_path(&dir, 0).exists(),
            "the name outlived the appending"
        );
        let mut buf = Vec::new();
        for g in 0..3 {
            let mut got = Vec::new();
            let mut drain = log.drain(g as u32, last[g].unwrap(), buf).unwrap();
            while let Some(piece) = drain.next_piece().unwrap() {
                assert!(piece.len() <= READ_PIECE);
                got.extend_from_slice(piece);
            }
            buf = drain.into_buffer();
            assert_eq!(got, expected[g], "group {g}");
        }
        assert!(log.drain(1, last[0].unwrap(), Vec::new()).is_err());
        assert!(Spill::new(log_path(&dir, 1)).finish().unwrap().is_none());
        std::fs::remove_dir(&dir).unwrap();
    }
}
