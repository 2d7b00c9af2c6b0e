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

use crate::append_run::AppendRun;
use spool_io::write::StagedDir;

use crate::destination::{Destination, Mode};
use crate::file_layout::{manifest_name, MANIFEST_PREFIX};
use crate::PartitionError;

/// Where a run writes its files until they are published.
pub(crate) enum Staging {
    /// A whole new dataset, published with one rename.
    Whole(StagedDir),
    /// This run's files, added to a shared dataset one rename each.
    Append(AppendRun),
}

impl Staging {
    /// Locks the output (or, for an append run, the run id) and starts a
    /// staging directory, removing what dead runs left.
    ///
    /// # Errors
    ///
    /// What [`StagedDir::begin`] or [`AppendRun::begin`] refuse.
    pub fn begin(destination: &Destination) -> Result<Self, PartitionError> {
        let Destination::Local { dir, mode } = destination else {
            unreachable!("an S3 run stages in a local directory of its own");
        };
        Ok(match mode {
            Mode::New => Staging::Whole(StagedDir::begin(dir, None)?),
            Mode::Replace => Staging::Whole(StagedDir::begin(dir, Some(MANIFEST_PREFIX))?),
            Mode::AppendRun(id) => {
                let manifest = manifest_name(Some(id));
                Staging::Append(AppendRun::begin(dir, id, &manifest, MANIFEST_PREFIX)?)
            }
        })
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
