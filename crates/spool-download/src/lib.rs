//! Downloads the Pwned Passwords range API — all 16⁵ ranges — straight into
//! a `spool-pwned` index, and updates such an index by asking for each
//! range only if it changed.
//!
//! ```text
//!  prefixes ─► fetch tasks (HTTP/2 streams or HTTP/1.1 connections, retries)
//!                 │ bodies checked, hashes packed
//!                 ▼
//!  reorder (REACH × concurrency ranges at most) ─► journal, in prefix order
//!                                                   │ complete
//!                                                   ▼
//!                   index (full, t64 or filter) + ETags + text (file or folder)
//! ```
//!
//! - `client.rs`: the HTTP client and the URL of a range;
//! - `reorder.rs`: a lane's ranges handed out in prefix order, a slow
//!   range not stopping the others;
//! - `fetch_lanes.rs`: the fetching spread over the cores, one thread and
//!   connection (or pool of them) per core, handing blocks of ranges to
//!   the journal in prefix order;
//! - `fetch.rs`: one range, checked and retried until it arrives whole;
//!   `body.rs`: its body, taken only if its end is proven, decoded if
//!   compressed; `closed.rs`: a connection the server closed under a
//!   request, which is re-sent rather than counted as a failure;
//! - `journal.rs`: the ranges accepted so far, in prefix order, in a file
//!   that survives any interruption: the next run resumes from it;
//! - `publish.rs`: the complete journal made into the index by the
//!   writers `build` uses ([`SortedWriter`](spool_pwned::build::SortedWriter));
//! - `text.rs`: the text kept beside the index when asked, one file in
//!   hash order or one file per range as the API sent it;
//! - `etags.rs`, `previous.rs`: what an update needs — each range's ETag
//!   beside the index, and the previous index's ranges for `304`s.
//!
//! The network lives in this crate, apart from `spool-pwned`, so that the
//! index library (and the bindings built on it) carries no HTTP client, TLS
//! or async runtime.
//!
//! # Bounds
//!
//! At most `Options::concurrency` ranges are in flight, and at most
//! `REACH` times that are in flight or waiting for an earlier one (one
//! reorder per lane, `reorder.rs`: ranges complete in any order and are
//! written in prefix order, and a lane asks for no range `REACH` windows
//! past the oldest not yet taken, so that a range being retried does not
//! stop the others), and
//! three blocks of 128 ranges per lane wait to be appended (`fetch_lanes.rs`).
//! Each range holds its hashes packed (22 bytes per SHA-1 hash) and, while
//! it is read, its body of at most [`MAX_BODY`] bytes. The journal is a
//! file; building a filter at the end holds one shard's keys within
//! `Options::memory`.
//!
//! # Resume
//!
//! The journal (`.NAME.download` beside the output) is appended to and
//! synced as ranges arrive; a run that stops in any way leaves it, and the
//! same command continues from the first range it lacks. Nothing appears
//! at the output until the journal is complete and the index is written
//! and renamed into place. See `journal.rs`.

#![deny(missing_docs)]
#![deny(unsafe_code)]

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use spool_io::write::OutputLock;
use spool_pwned::format::IndexLayout;
use spool_pwned::range_body::RANGES;

mod body;
pub mod client;
mod closed;
pub mod etags;
mod fetch;
mod fetch_lanes;
pub mod journal;
mod options;
mod previous;
mod publish;
mod reorder;
mod text;

pub use body::{ACCEPT, MAX_BODY, ZSTD_WINDOW_LOG};
pub use closed::MAX_RESENDS;
pub use fetch::{FIRST_PAUSE, LONGEST_PAUSE, LONGEST_RETRY_AFTER};
pub use options::{DownloadProgress, Options, Report, OFFICIAL};

use journal::{RangeJournal, Shape};
use previous::Previous;

/// Why a download failed.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// A range failed every attempt.
    #[error("range {range}: failed {attempts} attempts; the last: {last}")]
    Range {
        /// The range's prefix.
        range: String,
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// Too many attempts failed over the whole download.
    #[error("{failures} failed attempts, more than the error budget (the last, at range {range}: {last})")]
    Budget {
        /// Failed attempts.
        failures: u64,
        /// The range of the last failure.
        range: String,
        /// The last failure.
        last: String,
    },
    /// The server refused a range in a way a retry will not change.
    #[error("{url}: HTTP {status}")]
    Refused {
        /// The range's URL.
        url: String,
        /// The status.
        status: String,
    },
    /// The server answered a range with a redirect the download does not
    /// follow.
    #[error(
        "range {range}: {url} answered {status}, redirecting to {location}; redirects are not \
         followed (--follow-redirects follows those to the same range's path)"
    )]
    Redirected {
        /// The range's prefix.
        range: String,
        /// The URL that answered.
        url: String,
        /// The status.
        status: String,
        /// Its `Location`.
        location: String,
    },
    /// No connection to the server.
    #[error("{0}")]
    Connect(String),
    /// The previous index of an update is unusable.
    #[error("{0}")]
    Previous(String),
    /// An index could not be read.
    #[error(transparent)]
    Index(#[from] spool_pwned::IndexError),
    /// Reading or writing a file failed (the message names it).
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Downloads every range into `opts.output` (an update if
/// `opts.previous` is set), resuming from the journal of an earlier run
/// with the same output; `progress` counts as it goes.
///
/// # Errors
///
/// See [`DownloadError`]. The journal is kept on failure, for the next run.
pub fn download(opts: &Options, progress: Arc<DownloadProgress>) -> Result<Report, DownloadError> {
    let start = Instant::now();
    let _lock = OutputLock::for_file(
        &opts.output,
        "another download or build is writing this index",
    )?;
    let previous = opts.previous.as_deref().map(Previous::open).transpose()?;
    if let Some(p) = &previous {
        // Every unchanged range is copied from it at the end: a damaged
        // block found then would waste the whole run's requests.
        p.index.verify().map_err(|e| {
            DownloadError::Previous(format!(
                "{e}; the index to update is damaged: build or download it again"
            ))
        })?;
        if opts.layout != IndexLayout::Sorted {
            return Err(DownloadError::Previous(format!(
                "{}: an update writes a full index, not a {} one (convert it after)",
                opts.output.display(),
                opts.layout.name()
            )));
        }
        if p.index.kind() != opts.kind {
            return Err(DownloadError::Previous(format!(
                "{}: holds {:?} hashes, not {:?}",
                p.index.path(),
                p.index.kind(),
                opts.kind
            )));
        }
    }
    let kind = opts.kind;
    let ranges = text::RangesDir::begin(opts)?;
    let kept = if opts.layout == IndexLayout::Sorted || text::TextOutputs::wanted(opts) {
        kind.byte_len()
    } else {
        8
    };
    let (first, end) = (opts.prefixes.start, opts.prefixes.end.min(RANGES));
    let shape = Shape {
        kind,
        kept,
        first,
        end,
        previous: previous.as_ref().map(Previous::id),
    };
    let path = journal_path(&opts.output)?;
    let (mut journal, resumed) = RangeJournal::open(&path, shape)?;
    progress
        .ranges
        .store(u64::from(resumed.next), Ordering::Relaxed);
    progress.hashes.store(resumed.hashes, Ordering::Relaxed);
    let mut report = Report {
        ranges: u64::from(end - first),
        resumed: u64::from(resumed.next - first),
        started_over: resumed.started_over,
        ..Report::default()
    };
    let previous = if resumed.next < end {
        let _read_ahead = opts
            .previous
            .as_deref()
            .map(|path| previous::ReadAhead::start(path, progress.clone()));
        let parts = Parts {
            opts: opts.clone(),
            shape,
            previous,
            progress: progress.clone(),
        };
        let (shared, protocol) = fetch_lanes::fetch_all(parts, resumed.next..end, &mut journal)?;
        journal.sync()?;
        report.protocol = Some(protocol);
        report.fetched = u64::from(end - resumed.next);
        report.retries = shared.failures.load(Ordering::Relaxed);
        report.resent = progress.resent.load(Ordering::Relaxed);
        report.bytes = progress.bytes.load(Ordering::Relaxed);
        report.decoded = progress.decoded.load(Ordering::Relaxed);
        report.compressed = progress.compressed.load(Ordering::Relaxed);
        shared.previous
    } else {
        previous
    };
    drop(journal);
    let hashes = progress.hashes.load(Ordering::Relaxed);
    let published = publish::publish(opts, shape, &path, hashes, previous.as_ref(), ranges)?;
    report.hashes = published.header.map_or(hashes, |h| h.records);
    report.not_modified = published.not_modified;
    report.changed_hashes = published.changed_hashes;
    std::fs::remove_file(&path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// What the fetching lanes will share.
pub(crate) struct Parts {
    opts: Options,
    shape: Shape,
    previous: Option<Previous>,
    progress: Arc<DownloadProgress>,
}

/// `.NAME.download` beside `output`.
fn journal_path(output: &Path) -> io::Result<PathBuf> {
    let name = output.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a file name to write an index to", output.display()),
        )
    })?;
    let mut journal = std::ffi::OsString::from(".");
    journal.push(name);
    journal.push(".download");
    Ok(output.with_file_name(journal))
}
