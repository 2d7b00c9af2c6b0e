//! Groups without an open Parquet writer: their records, as the router
//! buffered them (text), appended to one spill file per group, and turned
//! into the group's Parquet part once, when the input ends.
//!
//! A writer thread keeps an `ArrowWriter` open only for as many groups as
//! `--max-open` and the budget allow (see the bounds of the `sink`
//! module); closing one to make room for another would finish its part
//! file, and the group would come back with a new part each time — with
//! 100,000 keys and 1,024 open writers, several part files per key of a
//! few rows each. A spill file costs a file descriptor and no memory, and
//! can be appended to: the rows of a group that had no writer stay in one
//! file, in input order, until [`drain`] hands them back a piece at
//! a time for the one Parquet part they become.
//!
//! Spill files are hidden (`.part.spill`) in the group's directory inside
//! the run's staging directory, removed once converted; a failed or killed
//! run removes them with the rest of the staging directory.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use lru::LruCache;

use crate::input::with_path;

/// Bytes read back from a spill file at a time when converting it.
pub(crate) const READ_PIECE: usize = 1 << 20;

/// A group's spill file, beside where its part files go.
pub(crate) fn spill_path(first_part: &Path) -> PathBuf {
    first_part.with_file_name(".part.spill")
}

/// One writer thread's open spill files; see the module docs. Which
/// groups spill, and where, the caller keeps (every group's bookkeeping
/// is charged to the budget once, by the router).
pub(crate) struct Spill {
    /// Open spill files, least recently used closed first.
    open: LruCache<u32, File>,
    /// Times a closed spill file was opened again.
    reopened: u64,
}

impl Spill {
    /// Spill files of one thread, at most `max_open` open at once.
    pub fn new(max_open: usize) -> Self {
        let cap = NonZeroUsize::new(max_open.max(1)).expect("at least one");
        Spill {
            open: LruCache::new(cap),
            reopened: 0,
        }
    }

    /// Appends `data` to group `gid`'s spill file at `path`, creating it
    /// with the group's first piece (`create`).
    pub fn append(&mut self, gid: u32, path: &Path, create: bool, data: &[u8]) -> io::Result<()> {
        if create || !self.open.contains(&gid) {
            if self.open.len() == self.open.cap().get() {
                self.open.pop_lru();
            }
            let file = if create {
                File::create(path)
            } else {
                self.reopened += 1;
                OpenOptions::new().append(true).open(path)
            }
            .map_err(|e| with_path(e, path))?;
            self.open.push(gid, file);
        }
        let file = self.open.get_mut(&gid).expect("just opened");
        file.write_all(data).map_err(|e| with_path(e, path))
    }

    /// Times a spill file was opened again after the LRU closed it.
    pub fn reopened(&self) -> u64 {
        self.reopened
    }

    /// Closes every spill file.
    pub fn close_all(&mut self) {
        self.open.clear();
    }
}

/// Feeds the spill file at `path` to `piece` in pieces of at most
/// [`READ_PIECE`] bytes, in order, then removes it.
pub(crate) fn drain(path: &Path, mut piece: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
    let mut file = File::open(path).map_err(|e| with_path(e, path))?;
    let mut buf = vec![0u8; READ_PIECE];
    loop {
        let n = file.read(&mut buf).map_err(|e| with_path(e, path))?;
        if n == 0 {
            break;
        }
        piece(&buf[..n])?;
    }
    drop(file);
    std::fs::remove_file(path).map_err(|e| with_path(e, path))
}
