//! Where a run hands its finished files: the one destination door.
//!
//! A run writes its files the same way whatever their destination (into a
//! local staging directory, under their final names); only how they are
//! published differs. [`Destination::of`] decides that once, from
//! `--out`, `--append`, `--run-id` and `--force`, when the run is planned
//! ([`Run::new`](crate::Run::new)), and refuses there what cannot work
//! together, so each refusal has one text whatever the output:
//!
//! | destination | files staged in | published by |
//! |---|---|---|
//! | local, [`Mode::New`] or [`Mode::Replace`] | a hidden directory beside `--out` | one rename (`commit`) |
//! | local, [`Mode::AppendRun`] | the run's directory inside `--out` | a rename per file, the run's manifest last (`append_run`) |
//! | [`S3`](Destination::S3), any mode | a directory under `TMPDIR` | multipart uploads, completed by the run's journal (`s3`) |
//!
//! The memory plan and the open-file reserve ask it whether parts are
//! sent while the run reads ([`Destination::is_s3`]).

use std::path::PathBuf;

use crate::append_run::check_run_id;
use crate::s3::S3Url;
use crate::{Options, PartitionError};

/// Where a run's files go; see the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// A directory on a local file system.
    Local {
        /// The dataset's directory (`--out`).
        dir: PathBuf,
        /// How the run's files join what is there.
        mode: Mode,
    },
    /// A prefix in an S3 bucket (`--out s3://BUCKET/PREFIX/`).
    S3 {
        /// The bucket and prefix.
        url: S3Url,
        /// How the run's files join what is there.
        mode: Mode,
    },
}

/// How a run's files join what its destination holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A new dataset: the destination must hold none.
    New,
    /// A dataset replacing the one there, if any (`--force`).
    Replace,
    /// One run's files added to a dataset other runs write into
    /// (`--append --run-id ID`).
    AppendRun(String),
}

impl Destination {
    /// The destination `options` name.
    ///
    /// # Errors
    ///
    /// [`PartitionError::Usage`]: `--append` without a `--run-id`, or with
    /// `--force`; a run id that cannot name files; a malformed `s3://`
    /// URL.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::destination::{Destination, Mode};
    /// use spool_partition::{ColumnRef, Options};
    /// let mut options = Options::new(vec!["in.tsv".into()], "s3://data/sales".into(), vec![ColumnRef("1".into())]);
    /// (options.append, options.run_id) = (true, Some("task-7".into()));
    /// let destination = Destination::of(&options)?;
    /// assert!(destination.is_s3());
    /// assert_eq!(destination.mode(), &Mode::AppendRun("task-7".into()));
    /// options.force = true;
    /// assert!(Destination::of(&options).is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn of(options: &Options) -> Result<Self, PartitionError> {
        let usage = |m: &str| Err(PartitionError::Usage(m.to_owned()));
        if let Some(id) = &options.run_id {
            check_run_id(id).map_err(PartitionError::Usage)?;
        }
        let mode = match (options.append, &options.run_id, options.force) {
            (false, _, false) => Mode::New,
            (false, _, true) => Mode::Replace,
            (true, None, _) => {
                return usage("--append needs --run-id (each run's files are named after its id)")
            }
            (true, Some(_), true) => {
                return usage(
                    "--append adds to a dataset and --force replaces it: give one of them",
                )
            }
            (true, Some(id), false) => Mode::AppendRun(id.clone()),
        };
        Ok(match S3Url::parse(&options.out)? {
            Some(url) => Destination::S3 { url, mode },
            None => Destination::Local {
                dir: options.out.clone(),
                mode,
            },
        })
    }

    /// A new local dataset in `dir` (where an S3 run stages its files).
    #[cfg(feature = "s3")]
    pub(crate) fn staging(dir: &std::path::Path) -> Self {
        Destination::Local {
            dir: dir.to_owned(),
            mode: Mode::New,
        }
    }

    /// Whether the files go to S3 (their parts are then sent while the
    /// run reads, and count in its memory and open files).
    pub fn is_s3(&self) -> bool {
        matches!(self, Destination::S3 { .. })
    }

    /// How the run's files join what the destination holds.
    pub fn mode(&self) -> &Mode {
        match self {
            Destination::Local { mode, .. } | Destination::S3 { mode, .. } => mode,
        }
    }
}
