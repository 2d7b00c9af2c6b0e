//! Files that only appear under their real name when complete.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use super::temporaries::Listed;

/// A file written under a hidden temporary name (`.NAME.partial` in the same
/// directory, so the rename is atomic and readers of the directory that skip
/// dot files never see it) and renamed to its real name by
/// [`commit`](PartialFile::commit). Dropped without a commit, the temporary
/// file is removed; [`remove_temporaries`](super::remove_temporaries)
/// removes it too (for a signal handler: a signal ends the process
/// without running drops).
///
/// # Examples
///
/// ```
/// use std::io::Write;
/// use spool_io::write::PartialFile;
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-partial-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("out.tsv");
/// let mut file = PartialFile::create(&path)?;
/// file.file().write_all(b"done\n")?;
/// assert!(!path.exists()); // not yet
/// file.commit()?;
/// assert_eq!(std::fs::read(&path)?, b"done\n");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct PartialFile {
    file: Option<File>,
    temp: PathBuf,
    path: PathBuf,
    committed: bool,
    /// Listed for [`remove_temporaries`](super::remove_temporaries) until
    /// renamed or removed.
    listed: Option<Listed>,
}

impl PartialFile {
    /// Creates (truncating) the temporary file for `path`.
    ///
    /// # Errors
    ///
    /// If it cannot be created; the message names `path` (what the user
    /// asked for), then the temporary name.
    pub fn create(path: &Path) -> io::Result<Self> {
        let temp = Self::temp_path(path);
        let (file, listed) = Listed::create(&temp, || File::create(&temp))
            .map_err(|e| super::beside(e, path, &temp))?;
        Ok(PartialFile {
            file: Some(file),
            temp,
            path: path.to_owned(),
            committed: false,
            listed: Some(listed),
        })
    }

    /// The temporary name used for `path`: `.NAME.partial` beside it.
    pub fn temp_path(path: &Path) -> PathBuf {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        path.with_file_name(format!(".{name}.partial"))
    }

    /// Opens the temporary file of `path` again for appending (after it was
    /// closed to stay under an open-file limit).
    ///
    /// # Errors
    ///
    /// If it cannot be opened; the message names `path`, then the
    /// temporary name.
    pub fn reopen_file(path: &Path) -> io::Result<File> {
        let temp = Self::temp_path(path);
        OpenOptions::new()
            .append(true)
            .open(&temp)
            .map_err(|e| super::beside(e, path, &temp))
    }

    /// The temporary file's path (for messages that name it).
    pub fn temp(&self) -> &Path {
        &self.temp
    }

    /// The open temporary file.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until commit")
    }

    /// Flushes the file's data to disk (`fsync`).
    ///
    /// # Errors
    ///
    /// If the flush fails; the message is [`error`](Self::error)'s.
    pub fn sync(&self) -> io::Result<()> {
        self.file
            .as_ref()
            .expect("open until commit")
            .sync_all()
            .map_err(|e| self.error(e))
    }

    /// An error reading or writing the temporary file, told as an error on
    /// the real path (the one the user asked for), naming the temporary
    /// after: `out.idx: No space left on device (os error 28) (writing
    /// .out.idx.partial, renamed to it when complete)`.
    pub fn error(&self, err: io::Error) -> io::Error {
        let temp = self.temp.file_name().unwrap_or_default().to_string_lossy();
        io::Error::new(
            err.kind(),
            format!(
                "{}: {err} (writing {temp}, renamed to it when complete)",
                self.path.display()
            ),
        )
    }

    /// Flushes, closes and renames the file to its real name.
    ///
    /// # Errors
    ///
    /// If closing or renaming fails; the temporary file is then removed.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("open until commit");
        drop(file);
        let listed = self.listed.take().expect("listed until commit");
        listed
            .finish(|| std::fs::rename(&self.temp, &self.path))
            .map_err(|e| crate::input::with_path(e, &self.path))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.committed {
            self.file.take();
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}
