//! The end of a run: the whole dataset appears, or none of it does.
//!
//! Every file of the run is written under its final name inside the run's
//! [`StagedDir`](spool_io::write::StagedDir) (a hidden directory beside the output, locked against a
//! second run). [`publish`] waits for the workers, writes the
//! `_partitions.tsv` manifest last, and publishes the staging directory as
//! the output with one rename (an existing dataset, with `--force`, is
//! swapped out whole and removed). A run that fails stops the workers and
//! drops the staging directory, which removes it. A kill at any moment
//! leaves either the old output or the new one, never a part; the next
//! run removes the dead run's staging directory.
//!
//! With `--append` (and a run id), the run adds its files to a dataset
//! other runs write into too: it stages inside the output
//! (`OUT/_staging-ID/`) and [`AppendRun`](crate::append_run::AppendRun) moves each file into place with
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
//! A writer of another format writes into the same staging directory and
//! is published by the same commit: a Parquet group's part files
//! (`part-00000.parquet`, `part-00001.parquet`, …) are written under their
//! final names beside each other, and [`Outputs::part_paths`] lists them
//! for `--fsync`.

use std::path::{Path, PathBuf};

use spool_io::input::with_path;
use spool_io::write::sync_directory;

use crate::dataset::{write_manifest, ManifestRow};
use crate::escape::{escape_full, EMPTY_KEY_NAME};
use crate::file_layout::part_path;
use crate::outputs::Outputs;
use crate::staging::Staging;
use crate::{GroupSummary, PartitionError};

/// Waits for the workers of `outputs`, writes the manifest listing
/// `groups`, calls `before_publish` and publishes the dataset from
/// `staging`. On an error the staging directory is dropped, with
/// everything written into it.
///
/// # Errors
///
/// A worker's error, or a manifest, sync or rename error naming its
/// path.
pub(crate) fn publish(
    outputs: &mut Outputs,
    staging: Staging,
    groups: &[GroupSummary],
    fsync: bool,
    before_publish: &dyn Fn(),
) -> Result<(), PartitionError> {
    outputs.join_workers()?;
    write_manifest_file(outputs, groups, fsync)?;
    if fsync {
        sync_files(outputs)?;
    }
    before_publish();
    let files: Vec<PathBuf> = match staging {
        Staging::Whole(_) => Vec::new(),
        Staging::Append(_) => relative_files(outputs),
    };
    staging.publish(&files, fsync)?;
    Ok(())
}

/// Every file written, relative to the staging directory.
fn relative_files(outputs: &Outputs) -> Vec<PathBuf> {
    (0..outputs.len())
        .flat_map(|gid| outputs.part_paths(gid))
        .filter_map(|path| {
            path.strip_prefix(outputs.root())
                .ok()
                .map(Path::to_path_buf)
        })
        .collect()
}

/// `_partitions.tsv` (`_partitions-ID.tsv` with a run id): column, full
/// key (escaped, always reversible), path relative to the output
/// directory, records; one row per file, so a Parquet group with several
/// parts has a row for each, with its own records. Readers of Hive
/// datasets skip names starting with `_`, and no key's file can take this
/// name (a key's leading `_` is escaped).
fn write_manifest_file(
    outputs: &Outputs,
    groups: &[GroupSummary],
    fsync: bool,
) -> Result<(), PartitionError> {
    let path = outputs.root().join(outputs.layout.manifest());
    let mut rows: Vec<ManifestRow> = Vec::with_capacity(groups.len());
    for (gid, g) in groups.iter().enumerate() {
        let column = escape_full(g.column.as_bytes());
        let key = if g.key.is_empty() {
            EMPTY_KEY_NAME.to_owned()
        } else {
            escape_full(&g.key)
        };
        let first = outputs.relative(gid);
        let parts = match outputs.part_records(gid) {
            Some(records) => records.to_vec(),
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
fn sync_files(outputs: &Outputs) -> Result<(), PartitionError> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for gid in 0..outputs.len() {
        for path in outputs.part_paths(gid) {
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
