//! The thread that writes full buffers with `O_DIRECT` while the caller
//! fills the next: a direct write returns only once the device has the
//! bytes, and on the caller's thread that wait would add to the build's
//! wall time.
//!
//! Two buffers go round: the caller fills one while the thread writes
//! the other, then they swap. One hand-off and one wake-up each way per
//! buffer (a few hundred for a 224 MB index), never more than two
//! buffers. The first error ends the writing; the caller gets it at its
//! next swap or at [`finish`](Background::finish), and no later buffer is
//! written.

use std::fs::File;
use std::io;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use std::os::unix::fs::FileExt;

use memmap2::MmapMut;

use super::os;

/// A buffer to write: its first `n` bytes, at a file offset.
struct Job(MmapMut, usize, u64);

/// The writing thread and the spare buffer; see the module docs.
pub(super) struct Background {
    jobs: Option<SyncSender<Job>>,
    done: Receiver<(MmapMut, io::Result<()>)>,
    /// The buffer not being filled, when the thread has handed it back.
    spare: Option<MmapMut>,
    thread: Option<JoinHandle<()>>,
}

impl Background {
    /// Starts the thread, writing to a duplicate of `file`'s descriptor
    /// (which shares its flags), with a spare buffer of `len` bytes.
    pub fn start(file: &File, len: usize) -> io::Result<Self> {
        let file = file.try_clone()?;
        let spare = MmapMut::map_anon(len)?;
        let (jobs, queue) = mpsc::sync_channel::<Job>(1);
        let (back, done) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("spool-direct-writer".into())
            .spawn(move || {
                let (mut direct, mut proven) = (true, false);
                for Job(buf, n, at) in queue {
                    let written = write_at(&file, &buf[..n], at, &mut direct, &mut proven);
                    let failed = written.is_err();
                    if back.send((buf, written)).is_err() || failed {
                        break;
                    }
                }
            })?;
        Ok(Background {
            jobs: Some(jobs),
            done,
            spare: Some(spare),
            thread: Some(thread),
        })
    }

    /// The spare buffer, once the thread has written it.
    ///
    /// # Errors
    ///
    /// The error of that write.
    pub fn take_spare(&mut self) -> io::Result<MmapMut> {
        if let Some(spare) = self.spare.take() {
            return Ok(spare);
        }
        let (buf, written) = self.done.recv().map_err(|_| gone())?;
        written.map(|()| buf)
    }

    /// Hands `buf[..n]` to the thread, to be written at `at`.
    ///
    /// # Errors
    ///
    /// If the thread has stopped.
    pub fn write(&mut self, buf: MmapMut, n: usize, at: u64) -> io::Result<()> {
        let jobs = self.jobs.as_ref().ok_or_else(gone)?;
        jobs.send(Job(buf, n, at)).map_err(|_| gone())
    }

    /// Waits for the last write and stops the thread.
    ///
    /// # Errors
    ///
    /// The error of the last write.
    pub fn finish(mut self) -> io::Result<()> {
        let last = self.take_spare().map(drop);
        self.stop();
        last
    }

    fn stop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Background {
    /// Stops the thread: no write lands after the writer is gone.
    fn drop(&mut self) {
        self.stop();
    }
}

/// The thread stopped after an error it has already handed back.
fn gone() -> io::Error {
    io::Error::other("the writing thread stopped after an error")
}

/// Writes `bytes` at `at` (the writing thread's writes); if the first
/// direct write (`proven` false) is refused with `EINVAL`, turns
/// `O_DIRECT` off (`direct` false) and writes them through the page cache.
fn write_at(
    file: &File,
    bytes: &[u8],
    at: u64,
    direct: &mut bool,
    proven: &mut bool,
) -> io::Result<()> {
    match file.write_all_at(bytes, at) {
        Err(e) if *direct && !*proven && e.raw_os_error() == Some(EINVAL) => {
            os::clear(file);
            *direct = false;
            file.write_all_at(bytes, at)
        }
        Ok(()) => {
            *proven = true;
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// `EINVAL`: what a file system answers to a direct write it cannot do.
const EINVAL: i32 = 22;
