//! Where a run writes its files until they are published: a whole new
//! dataset in a hidden directory beside the output ([`StagedDir`]), or,
//! with `--append`, this run's files in a directory inside a dataset
//! other runs write into too ([`AppendRun`]).
//!
//! Both lock what the run owns (the output, or the run id) for the run's
//! whole life and remove what dead runs left before starting; dropping
//! either removes everything written into it. The files are written the
//! same way into either, under their final names; only the publish
//! differs (see the `commit` module).

use std::path::{Path, PathBuf};

use crate::append_run::{check_run_id, AppendRun};
use spool_io::write::StagedDir;

use crate::file_layout::{manifest_name, MANIFEST_PREFIX};
use crate::{Options, PartitionError};

/// Where a run writes its files until they are published.
pub(crate) enum Staging {
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

    /// Publishes the files written: the whole directory with one rename,
    /// or `files` (relative to [`dir`](Self::dir)) one rename each, the
    /// run's manifest last; with `fsync`, flushed to disk.
    ///
    /// # Errors
    ///
    /// A rename or sync error, naming its path.
    pub fn publish(self, files: &[PathBuf], fsync: bool) -> std::io::Result<()> {
        match self {
            Staging::Whole(staged) => staged.publish(fsync),
            Staging::Append(run) => run.publish(files, fsync),
        }
    }
}
