//! The end of a run: every output appears under its name, or none does.
//!
//! Outputs are written as hidden `.NAME.partial` files
//! ([`PartialFile`]'s naming). [`Outputs::commit`] waits for the workers,
//! writes the `_partitions.tsv` manifest (still under its temporary name,
//! so that a full disk fails the run before any output appears), renames
//! every file into place and the manifest last. If a rename fails, the
//! files already renamed are removed again. [`Outputs::abort`] removes
//! every temporary file and every directory the run created that is left
//! empty. With `--fsync`, files are flushed before their renames and the
//! directories holding the renames after them.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::escape::{escape_full, EMPTY_KEY_NAME};
use super::outputs::Outputs;
use super::{GroupSummary, PartitionError};
use crate::input::with_path;
use crate::write::PartialFile;

impl Outputs {
    /// Waits for the workers, writes the manifest listing `groups` and
    /// renames every file into place (the manifest last). On an error the
    /// run is [aborted](Self::abort) first.
    ///
    /// # Errors
    ///
    /// A worker's error, or a manifest, sync or rename error naming its
    /// path.
    pub fn commit(&mut self, groups: &[GroupSummary], fsync: bool) -> Result<(), PartitionError> {
        if let Err(e) = self.join_workers() {
            self.abort();
            return Err(e);
        }
        let manifest = match self.write_manifest(groups) {
            Ok(manifest) => manifest,
            Err(e) => {
                self.abort();
                return Err(e);
            }
        };
        if fsync {
            if let Err(e) = self.sync_files(&manifest) {
                self.abort();
                return Err(e.into());
            }
        }
        for gid in 0..self.files.len() {
            for path in self.part_paths(gid) {
                if let Err(e) = std::fs::rename(PartialFile::temp_path(&path), &path) {
                    let err = with_path(e, &path);
                    // This group's earlier parts are renamed too.
                    self.remove_renamed(gid + 1);
                    self.abort();
                    return Err(err.into());
                }
            }
        }
        if let Err(e) = manifest.commit() {
            self.remove_renamed(self.files.len());
            self.abort();
            return Err(e.into());
        }
        if fsync {
            // The renames themselves are made durable by syncing the
            // directories that hold them.
            self.sync_directories()?;
        }
        Ok(())
    }

    /// `_partitions.tsv`: column, full key (escaped, always reversible),
    /// path relative to the output directory, records. Readers of Hive
    /// datasets skip names starting with `_`. Written under its temporary
    /// name; the caller commits it.
    fn write_manifest(&self, groups: &[GroupSummary]) -> Result<PartialFile, PartitionError> {
        let out = self.layout.out();
        let path = out.join("_partitions.tsv");
        let mut file = PartialFile::create(&path)?;
        let mut text = String::from("column\tkey\tpath\trecords\n");
        for g in groups {
            let relative = g.path.strip_prefix(out).unwrap_or(&g.path);
            text.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                escape_full(g.column.as_bytes()),
                if g.key.is_empty() {
                    EMPTY_KEY_NAME.to_owned()
                } else {
                    escape_full(&g.key)
                },
                relative.display(),
                g.records
            ));
        }
        file.file()
            .write_all(text.as_bytes())
            .map_err(|e| with_path(e, &path))?;
        Ok(file)
    }

    /// Flushes every output file (still under its temporary name) and the
    /// manifest to disk.
    fn sync_files(&self, manifest: &PartialFile) -> std::io::Result<()> {
        for gid in 0..self.files.len() {
            for path in self.part_paths(gid) {
                let temp = PartialFile::temp_path(&path);
                std::fs::File::open(&temp)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| with_path(e, &temp))?;
            }
        }
        manifest.sync()
    }

    /// Flushes the directories of the output files and the output
    /// directory itself (their entries: the renames).
    fn sync_directories(&self) -> Result<(), PartitionError> {
        let mut dirs: Vec<PathBuf> = (0..self.files.len())
            .filter(|&gid| self.files[gid].created)
            .filter_map(|gid| self.path(gid).parent().map(Path::to_path_buf))
            .collect();
        dirs.push(self.layout.out().to_path_buf());
        dirs.sort();
        dirs.dedup();
        for dir in dirs {
            sync_directory(&dir).map_err(|e| with_path(e, &dir))?;
        }
        Ok(())
    }

    /// Removes the output files of groups `..upto`, renamed into place by a
    /// run that then failed: a part of the output must not look complete.
    fn remove_renamed(&self, upto: usize) {
        for gid in 0..upto {
            for path in self.part_paths(gid) {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// Stops the workers and removes every temporary file and every
    /// directory this run created that is left empty. Returns the first
    /// error a worker reported, if any.
    pub fn abort(&mut self) -> Option<std::io::Error> {
        let worker_error = match self.join_workers() {
            Err(PartitionError::Io(e)) => Some(e),
            _ => None,
        };
        let out = self.layout.out().to_path_buf();
        for gid in 0..self.files.len() {
            if self.files[gid].created {
                let path = self.path(gid);
                for part in self.part_paths(gid) {
                    let _ = std::fs::remove_file(PartialFile::temp_path(&part));
                }
                let mut dir = path.parent();
                while let Some(d) = dir {
                    if d == out || std::fs::remove_dir(d).is_err() {
                        break;
                    }
                    dir = d.parent();
                }
            }
        }
        if self.created_out {
            let _ = std::fs::remove_dir(&out);
        }
        worker_error
    }
}

/// Makes a directory's entries durable (a no-op where directories cannot be
/// opened, as on Windows, whose renames need no such step).
fn sync_directory(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}
