//! The end of a run: the whole dataset appears, or none of it does.
//!
//! Every file of the run is written under its final name inside the run's
//! [`StagedDir`] (a hidden directory beside the output, locked against a
//! second run). [`Outputs::commit`] waits for the workers, writes the
//! `_partitions.tsv` manifest last, and publishes the staging directory as
//! the output with one rename (an existing dataset, with `--force`, is
//! swapped out whole and removed). [`Outputs::abort`] stops the workers
//! and drops the staging directory, which removes it. A kill at any moment
//! leaves either the old output or the new one, never a part; the next
//! run removes the dead run's staging directory.
//!
//! With `--append` (and a run id), the run adds its files to a dataset
//! other runs write into too: it stages inside the output
//! (`OUT/_staging-ID/`) and [`AppendRun`] moves each file into place with
//! one rename, the run's `_partitions-ID.tsv` last. [`Staging`] is the
//! choice between the two.
//!
//! With `--fsync`, the files, the directories inside and the staging
//! directory are flushed before the publish, and the parent after it.
//!
//! # The protocol, for any writer
//!
//! ```text
//!  StagedDir::begin(OUT, replace)  lock .OUT.spool-lock, clean dead runs,
//!                                  mkdir .OUT.spool-staging-RUNID
//!  write files under staged.dir()  any format, final names, any order
//!  write the manifest last         (its absence marks an unfinished tree)
//!  staged.publish(fsync)           one rename (or exchange) → OUT
//! ```
//!
//! A writer of another format writes into the same [`Outputs::root`] and
//! is published by the same commit: a Parquet group's part files
//! (`part-00000.parquet`, `part-00001.parquet`, …) are written under their
//! final names beside each other, and [`Outputs::part_paths`] lists them
//! for `--fsync`.

use std::path::{Path, PathBuf};

use super::dataset::{write_manifest, ManifestRow};
use super::escape::{escape_full, EMPTY_KEY_NAME};
use super::layout::{manifest_name, part_path, MANIFEST_PREFIX};
use super::outputs::Outputs;
use super::{GroupSummary, Options, PartitionError};
use spool_io::input::with_path;
use spool_io::write::{check_run_id, sync_directory, AppendRun, StagedDir};

/// Where a run writes its files until they are published.
pub(super) enum Staging {
    /// A whole new dataset, published with one rename.
    Whole(StagedDir),
    /// This run's files, added to a shared dataset one rename each.
    Append(AppendRun),
}

impl Staging {
    /// Locks the output (or, with `--append`, the run id) and starts a
    /// staging directory, removing what dead runs left.
    ///
    /// # Errors
    ///
    /// `--append` without a run id or with `--force`, a bad run id, or
    /// what [`StagedDir::begin`] or [`AppendRun::begin`] refuse.
    pub fn begin(options: &Options) -> Result<Self, PartitionError> {
        let usage = |m: &str| Err(PartitionError::Usage(m.to_owned()));
        if let Some(id) = &options.run_id {
            check_run_id(id).map_err(PartitionError::Usage)?;
        }
        if !options.append {
            let marker = options.force.then_some(MANIFEST_PREFIX);
            return Ok(Staging::Whole(StagedDir::begin(&options.out, marker)?));
        }
        let Some(id) = &options.run_id else {
            return usage("--append needs --run-id (each run's files are named after its id)");
        };
        if options.force {
            return usage("--append adds to a dataset and --force replaces it: give one of them");
        }
        let manifest = manifest_name(Some(id));
        let run = AppendRun::begin(&options.out, id, &manifest, MANIFEST_PREFIX)?;
        Ok(Staging::Append(run))
    }

    /// The directory files are written into.
    pub fn dir(&self) -> &Path {
        match self {
            Staging::Whole(staged) => staged.dir(),
            Staging::Append(run) => run.dir(),
        }
    }

    /// What dead runs left that [`begin`](Self::begin) removed.
    pub fn stale_removed(&self) -> &[PathBuf] {
        match self {
            Staging::Whole(staged) => staged.stale_removed(),
            Staging::Append(run) => run.stale_removed(),
        }
    }
}

impl Outputs {
    /// Waits for the workers, writes the manifest listing `groups` and
    /// publishes the dataset. On an error the run is
    /// [aborted](Self::abort) first.
    ///
    /// # Errors
    ///
    /// A worker's error, or a manifest, sync or rename error naming its
    /// path.
    pub fn commit(&mut self, groups: &[GroupSummary], fsync: bool) -> Result<(), PartitionError> {
        let result = self.join_workers().and_then(|()| {
            self.write_manifest(groups, fsync)?;
            if fsync {
                self.sync_files()?;
            }
            match self.staged.take().expect("committed once") {
                Staging::Whole(staged) => staged.publish(fsync)?,
                Staging::Append(run) => run.publish(&self.relative_files(), fsync)?,
            }
            Ok(())
        });
        if result.is_err() {
            self.abort();
        }
        result
    }

    /// Every file written, relative to the staging directory.
    fn relative_files(&self) -> Vec<PathBuf> {
        (0..self.files.len())
            .flat_map(|gid| self.part_paths(gid))
            .filter_map(|path| path.strip_prefix(self.root()).ok().map(Path::to_path_buf))
            .collect()
    }

    /// `_partitions.tsv` (`_partitions-ID.tsv` with a run id): column, full key (escaped, always reversible),
    /// path relative to the output directory, records; one row per file,
    /// so a Parquet group with several parts has a row for each, with its
    /// own records. Readers of Hive datasets skip names starting with `_`,
    /// and no key's file can take this name (a key's leading `_` is
    /// escaped).
    fn write_manifest(&self, groups: &[GroupSummary], fsync: bool) -> Result<(), PartitionError> {
        let path = self.root().join(self.layout.manifest());
        let mut rows: Vec<ManifestRow> = Vec::with_capacity(groups.len());
        for (gid, g) in groups.iter().enumerate() {
            let column = escape_full(g.column.as_bytes());
            let key = if g.key.is_empty() {
                EMPTY_KEY_NAME.to_owned()
            } else {
                escape_full(&g.key)
            };
            let first = self.relative(gid);
            let parts = match self.parts.get(&(gid as u32)) {
                Some(records) => records.clone(),
                None => vec![g.records],
            };
            debug_assert_eq!(parts.iter().sum::<u64>(), g.records, "{}", first.display());
            rows.extend(
                parts
                    .into_iter()
                    .enumerate()
                    .map(|(n, records)| ManifestRow {
                        column: column.clone(),
                        key: key.clone(),
                        path: if n == 0 {
                            first.clone()
                        } else {
                            part_path(&first, n as u32)
                        },
                        records,
                    }),
            );
        }
        let write = || -> std::io::Result<()> {
            let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
            write_manifest(&mut file, &rows)?;
            let file = file.into_inner().map_err(|e| e.into_error())?;
            if fsync {
                file.sync_all()?;
            }
            Ok(())
        };
        write().map_err(|e| with_path(e, &path).into())
    }

    /// Flushes every output file (every part of a Parquet group) and every
    /// directory that holds one to disk (the staging directory itself is
    /// flushed by the publish).
    fn sync_files(&self) -> Result<(), PartitionError> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        for gid in 0..self.files.len() {
            for path in self.part_paths(gid) {
                std::fs::File::open(&path)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| with_path(e, &path))?;
                dirs.extend(path.parent().map(Path::to_path_buf));
            }
        }
        dirs.sort();
        dirs.dedup();
        for dir in dirs {
            sync_directory(&dir).map_err(|e| with_path(e, &dir))?;
        }
        Ok(())
    }

    /// Stops the workers and removes the staging directory with everything
    /// written into it. Returns the first error a worker reported, if any.
    pub fn abort(&mut self) -> Option<std::io::Error> {
        let worker_error = match self.join_workers() {
            Err(PartitionError::Io(e)) => Some(e),
            _ => None,
        };
        drop(self.staged.take());
        worker_error
    }
}
