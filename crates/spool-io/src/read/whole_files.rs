//! Many small files, each read whole, in order, by one reader thread a few
//! files ahead.
//!
//! A [`ChunkReader`](super::ChunkReader) is made for a few large inputs:
//! one each, with its own thread and ring of 1 MiB buffers. For a million files of a few kilobytes (the Have I
//! Been Pwned downloader's range files) that would be a million threads
//! started and a million rings allocated. Here one thread opens the files
//! one at a time, in order, reads each into a buffer of its own size and
//! sends it on, at most [`WholeFiles::new`]'s `ahead` files before the
//! caller: one descriptor open at a time, so any `ulimit -n` works.
//!
//! ```text
//!  paths ──reader thread: open, read whole, close──► [file][file]… ──► caller
//!                                                     at most `ahead`
//! ```
//!
//! Files are decompressed by magic number (gzip, zstd) as they are read,
//! like every input of spool.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The files of a list, each read whole; see the module docs.
///
/// # Examples
///
/// ```
/// use spool_io::read::WholeFiles;
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-whole-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("a.txt"), b"1\n2\n")?;
/// std::fs::write(dir.join("b.txt"), b"3")?;
/// let files = WholeFiles::new(vec![dir.join("a.txt"), dir.join("b.txt")], 4, None);
/// let read: Vec<Vec<u8>> = files.collect::<std::io::Result<_>>()?;
/// assert_eq!(read, [b"1\n2\n".to_vec(), b"3".to_vec()]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct WholeFiles {
    files: Option<Receiver<io::Result<Vec<u8>>>>,
    thread: Option<JoinHandle<()>>,
}

impl WholeFiles {
    /// Starts reading `paths` in order on a new thread, at most `ahead`
    /// files (at least one) before the caller; every byte read from disk
    /// is added to `counter` if given (for progress reports).
    pub fn new(paths: Vec<PathBuf>, ahead: usize, counter: Option<Arc<AtomicU64>>) -> Self {
        let (tx, files) = mpsc::sync_channel(ahead.max(1));
        let thread = std::thread::Builder::new()
            .name("spool-whole-files".into())
            .spawn(move || {
                for path in &paths {
                    let mut bytes = Vec::new();
                    let read = crate::input::open_counted(path, counter.clone())
                        .and_then(|(mut input, _)| input.read_to_end(&mut bytes))
                        .map_err(|e| crate::input::with_path(e, path));
                    let failed = read.is_err();
                    // A closed channel means the caller stopped: stop too.
                    if tx.send(read.map(|_| bytes)).is_err() || failed {
                        return;
                    }
                }
            })
            .expect("spawn the reading thread");
        WholeFiles {
            files: Some(files),
            thread: Some(thread),
        }
    }
}

impl Iterator for WholeFiles {
    type Item = io::Result<Vec<u8>>;

    /// The next file's bytes, or an error naming the file that could not
    /// be opened or read (no file after it is read).
    fn next(&mut self) -> Option<Self::Item> {
        self.files.as_ref()?.recv().ok()
    }
}

impl Drop for WholeFiles {
    /// Stops the thread and waits for it: its next send fails once the
    /// channel is closed, after at most the file it is reading.
    fn drop(&mut self) {
        drop(self.files.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spool-whole-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn files_come_whole_in_order_and_are_counted() {
        let dir = dir("order");
        let paths: Vec<PathBuf> = (0..40)
            .map(|i| {
                let p = dir.join(format!("{i}.txt"));
                std::fs::write(&p, format!("a{i}\r\nb{i}")).unwrap();
                p
            })
            .collect();
        let counter = Arc::new(AtomicU64::new(0));
        let got: Vec<Vec<u8>> = WholeFiles::new(paths, 3, Some(counter.clone()))
            .collect::<io::Result<_>>()
            .unwrap();
        let want: Vec<Vec<u8>> = (0..40)
            .map(|i| format!("a{i}\r\nb{i}").into_bytes())
            .collect();
        assert_eq!(got, want);
        let on_disk: u64 = want.iter().map(|w| w.len() as u64).sum();
        assert_eq!(counter.load(Ordering::Relaxed), on_disk);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_file_is_named_and_ends_the_files() {
        let dir = dir("missing");
        std::fs::write(dir.join("a.txt"), b"a").unwrap();
        let paths = vec![
            dir.join("a.txt"),
            dir.join("missing.txt"),
            dir.join("a.txt"),
        ];
        let mut files = WholeFiles::new(paths, 4, None);
        assert_eq!(files.next().unwrap().unwrap(), b"a");
        let err = files.next().unwrap().unwrap_err();
        assert!(err.to_string().contains("missing.txt"), "{err}");
        assert!(files.next().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dropping_it_early_stops_its_thread() {
        let dir = dir("drop");
        let paths: Vec<PathBuf> = (0..100)
            .map(|i| {
                let p = dir.join(format!("{i}.txt"));
                std::fs::write(&p, b"x\n").unwrap();
                p
            })
            .collect();
        let mut files = WholeFiles::new(paths, 2, None);
        assert!(files.next().is_some());
        drop(files); // joins: must not hang
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
