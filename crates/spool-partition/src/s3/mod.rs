//! `--out s3://BUCKET/PREFIX/`: the run's dataset committed to an S3
//! bucket (or any S3-compatible store), with no object under its final
//! name before the commit.
//!
//! ```text
//!  the run, as for a local OUT     every file written under a local staging
//!  (same engine, same names)       directory (TMPDIR), manifest last
//!   └ beside it (early)            a file's whole 8 MiB parts sent as soon
//!                                  as it holds them, then punched out of
//!                                  the local file; uploads begun, their ids
//!                                  written (begun-N) before any part
//!  the rest (upload::send_rest)    every file's unsent tail, small files
//!                                  whole; uploads left pending
//!  journal                         _staging-RUNID/journal: the uploads'
//!                                  keys, ids and parts; the manifest beside
//!  commit                          _staging-RUNID/committing; complete each
//!                                  upload; list the prefix: every object
//!                                  there whole (verify); --force: delete
//!                                  what the run did not write; the
//!                                  manifest; the staging objects
//! ```
//!
//! What lives where, and when:
//!
//! * **memory**: the engine's plan, as for a local run, on `--memory` less
//!   the parts the `parts_during_run` thread may hold at once
//!   ([`MemoryPlan::uploads_during_run`](crate::MemoryPlan::uploads_during_run));
//!   after the input, once the engine has given its memory back, at most
//!   [`MemoryPlan::uploads_in_flight`](crate::MemoryPlan::uploads_in_flight)
//!   parts at once.
//! * **local disk** (`TMPDIR/spool-s3-RUNID-PID/`): every file's bytes not
//!   yet sent — a file's tail below one part, and whatever has grown since
//!   the last look — so about `files × 8 MiB` at most beside the bytes
//!   written since; Parquet runs' spill logs too. Removed at the end of
//!   the run, whatever its outcome; a killed run's by the next S3 run or
//!   `clean` (the `local_staging` module).
//! * **S3**: pending multipart uploads, invisible to listings, from the
//!   moment a file holds its first part until the commit; the
//!   `_staging-RUNID/` objects; the data files and the manifest, from the
//!   commit on.
//!
//! S3 takes parts of 5 MiB and more but the last, so the bytes of a file
//! that has not reached one part wait on local disk: with many keys most
//! of a dataset is sent at the end, with few keys most of it while the run
//! reads.
//!
//! What is atomic and what is not is in the `journal` module and in
//! docs/partition.md: each object appears whole or not at all; the
//! dataset's objects appear one by one during the commit, named by the
//! run's journal until its manifest is written; `clean` finishes a commit
//! that started and undoes a run that did not.

//! Everything that talks to a store is behind the `s3` feature (on by
//! default): without it, [`S3Url`] still parses an `s3://` OUT, and the
//! run refuses it with a clear error instead of pulling an S3 client and
//! an async runtime into every build.

#[cfg(feature = "s3")]
pub(crate) mod answers;
#[cfg(feature = "s3")]
mod dataset;
#[cfg(feature = "s3")]
mod journal;
#[cfg(feature = "s3")]
mod local_staging;
#[cfg(feature = "s3")]
mod parts_during_run;
#[cfg(feature = "s3")]
mod profile;
#[cfg(feature = "s3")]
pub(crate) mod store;
#[cfg(feature = "s3")]
mod upload;
#[cfg(feature = "s3")]
mod verify;

use std::path::Path;
#[cfg(feature = "s3")]
use std::path::PathBuf;

#[cfg(feature = "s3")]
pub(crate) use dataset::execute;
#[cfg(feature = "s3")]
pub use dataset::{clean, CleanedS3};

use crate::PartitionError;

/// The size of every part of an upload but its last: above S3's least
/// (5 MiB), so that a part never needs merging; what the memory plan
/// charges for each part in flight.
pub(crate) const PART_BYTES: usize = 8 << 20;

/// Where an `s3://` output is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Url {
    /// The bucket.
    pub bucket: String,
    /// The key prefix of the dataset: empty, or ending in `/`.
    pub prefix: String,
}

impl S3Url {
    /// `out` as an S3 location, if it starts with `s3://`.
    ///
    /// # Errors
    ///
    /// An `s3://` URL without a bucket, or with an empty segment.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::s3::S3Url;
    /// let url = S3Url::parse("s3://data/sales/2024".as_ref())?.unwrap();
    /// assert_eq!((url.bucket.as_str(), url.prefix.as_str()), ("data", "sales/2024/"));
    /// assert_eq!(S3Url::parse("out/sales".as_ref())?, None);
    /// assert!(S3Url::parse("s3:///sales".as_ref()).is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn parse(out: &Path) -> Result<Option<S3Url>, PartitionError> {
        let Some(rest) = out.to_str().and_then(|s| s.strip_prefix("s3://")) else {
            return Ok(None);
        };
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let prefix = prefix.trim_end_matches('/');
        if bucket.is_empty() || prefix.split('/').any(str::is_empty) && !prefix.is_empty() {
            return Err(PartitionError::Usage(format!(
                "{}: give s3://BUCKET/PREFIX/",
                out.display()
            )));
        }
        let prefix = match prefix {
            "" => String::new(),
            p => format!("{p}/"),
        };
        Ok(Some(S3Url {
            bucket: bucket.to_owned(),
            prefix,
        }))
    }

    /// The URL of the object `relative` to the dataset.
    #[cfg(feature = "s3")]
    fn join(&self, relative: &Path) -> PathBuf {
        PathBuf::from(format!(
            "s3://{}/{}{}",
            self.bucket,
            self.prefix,
            relative.display()
        ))
    }
}

/// Refuses an `s3://` OUT in a build without the `s3` feature.
#[cfg(not(feature = "s3"))]
pub(crate) fn execute(
    _run: crate::run::Run<'_>,
    url: S3Url,
    _mode: crate::destination::Mode,
) -> Result<crate::Summary, PartitionError> {
    Err(PartitionError::Usage(format!(
        "s3://{}/{}: this build has no S3 support (spool-partition's `s3` feature)",
        url.bucket, url.prefix
    )))
}
