//! The index an update starts from: its ranges are kept when the server
//! says they have not changed (`304 Not Modified` to the range's ETag),
//! copied from it as stored when the new index is written.
//!
//! Only a full index can be updated: it holds each range's whole hashes,
//! which the new index needs again. A t64 index keeps 64 bits of each and
//! a filter none.
//!
//! Every kept range is read (its hash count, its blocks checked) as its
//! `304` arrives, in prefix order, and copied at the end. The index is
//! mapped, so a range not in the page cache — the usual case for an index
//! last touched a month ago — stops the fetching thread on a page fault
//! and a small disk read. [`ReadAhead`] reads the file in order on a
//! thread of its own, a little ahead of the fetching, in large reads.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use spool_pwned::format::IndexLayout;
use spool_pwned::range_body::{prefix_hex, RANGES};
use spool_pwned::{AnyIndex, Index};

use crate::etags::{sidecar_path, Etags};
use crate::journal::{Frame, Origin, PreviousId};
use crate::options::DownloadProgress;
use crate::DownloadError;

/// The previous index and its ranges' ETags.
pub(crate) struct Previous {
    pub index: Index,
    pub etags: Etags,
}

impl Previous {
    /// Opens the index at `path` and its ETags. An index without ETags
    /// (built from text) gets none: every range is fetched.
    pub fn open(path: &Path) -> Result<Previous, DownloadError> {
        let layout = AnyIndex::open(path)?.layout();
        if layout != IndexLayout::Sorted {
            return Err(DownloadError::Previous(format!(
                "{}: a {} index cannot be updated, only a full one (it keeps the whole hashes of each range); \
                 download it again",
                path.display(),
                layout.name()
            )));
        }
        let index = Index::open(path)?;
        let etags = match Etags::read_beside(path)? {
            Some(etags) if etags.belongs_to(index.header()) => etags,
            Some(_) => {
                return Err(DownloadError::Previous(format!(
                    "{}: these ETags are not {}'s (another index's, or the index was rebuilt); \
                     remove the file to fetch every range",
                    sidecar_path(path).display(),
                    path.display()
                )))
            }
            None => Etags::new(index.kind()),
        };
        Ok(Previous { index, etags })
    }

    /// Hashes of range `prefix` in the previous index.
    pub fn hashes(&self, prefix: u32) -> Result<usize, DownloadError> {
        Ok(self.range(prefix)?.len())
    }

    /// Which index this is, for the journal's header.
    pub fn id(&self) -> PreviousId {
        let header = self.index.header();
        PreviousId {
            records: header.records,
            total: header.total_count,
            data_crc: header.data_crc,
        }
    }

    /// The records of range `prefix` as the index stores them, their
    /// blocks checked.
    pub fn records(&self, prefix: u32) -> Result<&[u8], DownloadError> {
        Ok(self.range(prefix)?.as_bytes())
    }

    /// Range `prefix`, unchanged since the previous index (a `304` to
    /// `tag`), as a journal frame: its hashes stay in the previous index.
    pub fn kept(&self, prefix: u32, tag: &[u8]) -> Result<Frame, DownloadError> {
        Ok(Frame {
            prefix,
            hashes: self.hashes(prefix)? as u32,
            origin: Origin::Kept,
            etag: tag.to_vec(),
            records: Vec::new(),
        })
    }

    fn range(&self, prefix: u32) -> Result<spool_pwned::RangeEntries<'_>, DownloadError> {
        self.index.range(prefix).map_err(|e| {
            DownloadError::Previous(format!(
                "{}: range {}: {e}",
                self.index.path(),
                String::from_utf8_lossy(&prefix_hex(prefix))
            ))
        })
    }
}

/// How far [`ReadAhead`] reads ahead of the fetching.
const AHEAD: u64 = 256 << 20;

/// A thread reading the previous index's file in order into the page
/// cache, at most [`AHEAD`] bytes past where the fetching is (the
/// fetching's share of the ranges, as a share of the file). Stops at the
/// file's end, at the first error (reading ahead is only a help), or when
/// dropped.
pub(crate) struct ReadAhead {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ReadAhead {
    /// Starts reading `path` ahead of `progress`.
    pub fn start(path: &Path, progress: Arc<DownloadProgress>) -> ReadAhead {
        let stop = Arc::new(AtomicBool::new(false));
        let (path, flag) = (PathBuf::from(path), stop.clone());
        let thread = std::thread::Builder::new()
            .name("spool-read-ahead".into())
            .spawn(move || {
                let _ = read_ahead(&path, &progress, &flag);
            })
            .ok();
        ReadAhead { stop, thread }
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn read_ahead(path: &Path, progress: &DownloadProgress, stop: &AtomicBool) -> std::io::Result<()> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut buf = vec![0u8; 1 << 20];
    let mut read = 0u64;
    while !stop.load(Ordering::Relaxed) && read < len {
        let done = progress.ranges.load(Ordering::Relaxed);
        let fetched = (len as u128 * u128::from(done) / u128::from(RANGES)) as u64;
        if read >= fetched + AHEAD {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        match file.read(&mut buf)? {
            0 => break,
            n => read += n as u64,
        }
    }
    Ok(())
}
