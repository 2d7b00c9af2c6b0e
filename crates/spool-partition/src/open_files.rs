//! How many output files a run may hold open: `--max-open`, within the
//! process's open-file limit (`RLIMIT_NOFILE`, `ulimit -n`).
//!
//! A run asked for more files than the limit allows would fail part-way
//! with "Too many open files" (EMFILE) as its keys grow — after reading
//! most of its input, at the worst moment. So the plan looks first:
//!
//! ```text
//!  need = --max-open + reserve            reserve = RESERVED
//!   soft limit ≥ need ─► as asked                  + an input per input
//!   soft < need ─► raise soft (≤ hard)               read at once
//!   still short ─► --max-open clamped to the         + 3 per Parquet
//!                  most that fit                       writer thread
//!                                                  + 2 per s3:// upload
//!                                                    in flight
//!   not even one output file fits ─► refused, naming the limit
//! ```
//!
//! The soft limit is raised only as far as the run needs (a library does
//! not own its host's process: a Python interpreter's children inherit
//! it); the `spool` binary, which does own its process, raises it to the
//! hard limit as it starts, as the Go runtime and many servers do
//! ([`raise_soft_limit`]).
//!
//! The reserve is counted, not measured: the descriptors a run holds
//! besides its output files are bounded by its options (see
//! [`RESERVED`]), and whatever its host process holds is within the fixed
//! part. A clamped `--max-open` is less than the user asked, never less
//! than one file; the writer threads are no more than the files
//! ([`Options::workers`]).

use crate::source::EARLY_READS;
use crate::{Options, OutputFormat, PartitionError};

/// Descriptors set aside for everything but the output files, the inputs
/// and an `s3://` run's uploads: the standard streams, the output's lock
/// and its staging directory, the manifest, and what a host process
/// already holds (a Python interpreter's few, a Spark worker's sockets).
pub const RESERVED: usize = 20;

/// Descriptors a Parquet writer thread holds besides its open part files:
/// its spill log, and at the end a spilled group's conversion (the log it
/// reads and the part it writes).
const PER_PARQUET_WRITER: usize = 3;

/// The process's soft open-file limit, raised first to `want` if it is
/// lower (and the hard limit allows: to the hard limit at most). `None`
/// where the limit cannot be read (no such limit on the platform) or is
/// unlimited.
///
/// # Examples
///
/// ```
/// use spool_partition::open_files::raise_soft_limit;
/// let now = raise_soft_limit(0); // reads it, raises nothing
/// assert_eq!(raise_soft_limit(0), now);
/// ```
pub fn raise_soft_limit(want: u64) -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{getrlimit, setrlimit, Resource};
        let limit = getrlimit(Resource::Nofile);
        let soft = limit.current?;
        if soft >= want {
            return Some(soft);
        }
        let raised = limit.maximum.map_or(want, |hard| hard.min(want));
        let new = rustix::process::Rlimit {
            current: Some(raised),
            maximum: limit.maximum,
        };
        // Refused (macOS refuses more than OPEN_MAX even under an
        // unlimited hard limit): the soft limit as it was.
        match setrlimit(Resource::Nofile, new) {
            Ok(()) => Some(raised),
            Err(_) => Some(soft),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = want;
        None
    }
}

/// Descriptors a run of `options` holds besides its output files, with
/// `threads` writer threads.
pub(crate) fn reserve(options: &Options, threads: usize) -> usize {
    let per_writer = match options.format {
        OutputFormat::Parquet(_) => PER_PARQUET_WRITER,
        OutputFormat::Text => 0,
    };
    // An upload holds its part's file and a connection. Most are in
    // flight after the input, when the output files are closed; counting
    // them beside the files keeps one bound for both phases.
    let s3 = options.writes_to_s3();
    let uploads = usize::from(s3) * 2 * crate::memory_plan::uploads_in_flight(options.memory);
    // A remote input holds connections, not files: its ranged reads in
    // flight, and the objects' first ranges read early.
    let remote = match options.reads_remote() {
        true => options.parallel_inputs * crate::source::remote_reads_at_once() + EARLY_READS,
        false => 0,
    };
    RESERVED + options.parallel_inputs + threads * per_writer + uploads + remote
}

/// Descriptors a run of `options` holds with `files` output files open:
/// those and the reserve of their writer threads.
fn with_reserve(options: &Options, files: usize) -> usize {
    files + reserve(options, options.writer_threads(files))
}

/// Descriptors a run of `options` needs for the output files it asks
/// for: `--max-open` and the reserve.
pub(crate) fn need(options: &Options) -> u64 {
    with_reserve(options, options.max_open.max(1)) as u64
}

/// The output files a run of `options` may hold open under a soft limit
/// of `limit` descriptors (`None`: unlimited): `--max-open`, or fewer if
/// it does not fit.
///
/// # Errors
///
/// [`PartitionError::Usage`] if not even one output file fits beside the
/// reserve; the message names the limit and what would do.
pub(crate) fn fit(options: &Options, limit: Option<u64>) -> Result<usize, PartitionError> {
    let asked = options.max_open.max(1);
    let Some(limit) = limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX)) else {
        return Ok(asked);
    };
    let total = |files: usize| with_reserve(options, files);
    if total(asked) <= limit {
        return Ok(asked);
    }
    if total(1) > limit {
        return Err(PartitionError::Usage(format!(
            "the open-file limit (ulimit -n) is {limit}: a run needs {} descriptors besides \
             its output files and at least one output file; raise it (ulimit -n {})",
            total(1) - 1,
            total(1)
        )));
    }
    // The total grows with the files (more files, no fewer threads): the
    // most that fit, by bisection; `fits` fits and `too_many` does not.
    let (mut fits, mut too_many) = (1, asked);
    while too_many - fits > 1 {
        let middle = fits + (too_many - fits) / 2;
        if total(middle) <= limit {
            fits = middle;
        } else {
            too_many = middle;
        }
    }
    Ok(fits)
}
