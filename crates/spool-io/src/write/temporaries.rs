//! Every hidden temporary name this process has made and not yet renamed
//! or removed, so that an interrupt can remove them before the process
//! exits.
//!
//! A [`PartialFile`](super::PartialFile) removes its temporary file when
//! dropped, but a signal's default action (SIGINT, SIGTERM) ends the
//! process without running any drop. A program that catches those
//! signals calls [`remove_temporaries`] from its handler thread and exits
//! while holding the returned guard.
//!
//! One mutex orders the three things that change the set of names on
//! disk, so no interleaving leaves a name behind or removes a finished
//! output:
//!
//! * **creating** a temporary happens with the lock held, after it is
//!   listed: the handler either removes it or runs before it exists and
//!   then, holding the lock until the process exits, keeps it from being
//!   made;
//! * **renaming** it to the real name happens with the lock held, and the
//!   name leaves the list in the same step: the handler sees either the
//!   temporary (and removes it, so the output never appears) or a
//!   finished output (which it leaves alone);
//! * **removing** it on drop needs no lock: a handler that removes it
//!   first only makes the drop's removal find nothing.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The listed temporaries: (registration number, path).
static LISTED: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(0);

fn listed() -> MutexGuard<'static, Vec<(u64, PathBuf)>> {
    // A panic elsewhere while holding the lock leaves the list whole: it
    // is only ever pushed to and retained from.
    LISTED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary file's place in the list; dropping it unlists the file
/// (without touching the disk).
#[derive(Debug)]
pub(crate) struct Listed(u64);

impl Listed {
    /// Lists `path`, then runs `make` (which creates it) with the lock
    /// held. If `make` fails, `path` is unlisted again.
    pub(crate) fn create<T>(
        path: &Path,
        make: impl FnOnce() -> io::Result<T>,
    ) -> io::Result<(T, Self)> {
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut list = listed();
        list.push((id, path.to_owned()));
        match make() {
            Ok(made) => Ok((made, Listed(id))),
            Err(e) => {
                list.retain(|&(i, _)| i != id);
                Err(e)
            }
        }
    }

    /// Runs `finish` (which renames the file to its real name) with the
    /// lock held, and unlists the file in the same step whatever `finish`
    /// returns.
    pub(crate) fn finish<T>(self, finish: impl FnOnce() -> T) -> T {
        let mut list = listed();
        let done = finish();
        list.retain(|&(i, _)| i != self.0);
        done
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        listed().retain(|&(i, _)| i != self.0);
    }
}

/// An intermediate file that is not an output even once it is complete
/// (for example a full index a smaller layout is converted from): listed
/// before it exists, so [`remove_temporaries`] removes it whether it is
/// still being written under a [`PartialFile`](super::PartialFile) name
/// or already renamed to `path`, and removed from disk when dropped.
///
/// # Examples
///
/// ```
/// use spool_io::write::{remove_temporaries, ScratchFile};
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-scratch-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let scratch = ScratchFile::new(dir.join(".index.full"));
/// std::fs::write(scratch.path(), b"made later, under the listed name")?;
/// let gone = remove_temporaries();
/// assert_eq!(gone.removed, [scratch.path().to_owned()]);
/// drop(gone);
/// drop(scratch);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct ScratchFile {
    path: PathBuf,
    _listed: Listed,
}

impl ScratchFile {
    /// Lists `path` (which need not exist yet) for removal on interrupt
    /// and on drop.
    pub fn new(path: PathBuf) -> Self {
        let ((), listed) = Listed::create(&path, || Ok(())).expect("listing makes nothing");
        ScratchFile {
            path,
            _listed: listed,
        }
    }

    /// Where the file is (or will be).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Held after [`remove_temporaries`]: while it lives, no temporary can be
/// made or renamed into place. Exit the process without dropping it.
#[must_use = "exit the process while holding this"]
pub struct TemporariesRemoved {
    _list: MutexGuard<'static, Vec<(u64, PathBuf)>>,
    /// The temporaries removed.
    pub removed: Vec<PathBuf>,
}

/// Removes every temporary file of this process that is not yet in place
/// (for a signal handler, before exiting). Files whose removal fails are
/// left out of [`removed`](TemporariesRemoved::removed).
///
/// # Examples
///
/// ```
/// use spool_io::write::{remove_temporaries, PartialFile};
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-temps-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let file = PartialFile::create(&dir.join("index"))?;
/// let temp = file.temp().to_owned();
/// assert!(temp.exists());
/// let gone = remove_temporaries();
/// assert!(!temp.exists());
/// assert_eq!(gone.removed, [temp]);
/// // A program would now exit with `gone` held; this example lets go.
/// drop(gone);
/// drop(file);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn remove_temporaries() -> TemporariesRemoved {
    let list = listed();
    let removed = list
        .iter()
        .filter(|(_, path)| std::fs::remove_file(path).is_ok())
        .map(|(_, path)| path.clone())
        .collect();
    TemporariesRemoved {
        _list: list,
        removed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests below list and remove temporaries process-wide: one at a
    /// time.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("spool-temps-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_failed_create_is_not_listed_and_a_finished_file_is_not_removed() {
        let _one = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let d = dir("finish");
        let missing = d.join("no-such-folder").join("f");
        assert!(Listed::create(&missing, || std::fs::File::create(&missing)).is_err());
        let temp = d.join("t");
        let done = d.join("done");
        let (_, listed) = Listed::create(&temp, || std::fs::write(&temp, "x")).unwrap();
        listed.finish(|| std::fs::rename(&temp, &done)).unwrap();
        let gone = remove_temporaries();
        assert!(!gone.removed.iter().any(|p| p == &temp || p == &missing));
        drop(gone);
        assert!(done.exists(), "a finished output was removed");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_dropped_listing_is_forgotten() {
        let _one = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let d = dir("drop");
        let temp = d.join("t");
        let (_, listed) = Listed::create(&temp, || std::fs::write(&temp, "x")).unwrap();
        drop(listed);
        let gone = remove_temporaries();
        assert!(!gone.removed.contains(&temp));
        drop(gone);
        assert!(temp.exists(), "an unlisted file was removed");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
