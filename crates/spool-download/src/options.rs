//! What a download is asked to do, what it counts as it goes, and what it
//! reports at the end.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use spool_pwned::format::IndexLayout;
use spool_pwned::range_body::RANGES;
use spool_pwned::HashKind;

use crate::client::Protocol;

/// The official range API.
pub const OFFICIAL: &str = "https://api.pwnedpasswords.com/range/{prefix}";

/// Settings of a download or an update.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where ranges are fetched: a URL with `{prefix}` in it, or a base to
    /// which `/range/PREFIX` is appended (see [`range_url`](crate::client::range_url)).
    pub url: String,
    /// SHA-1 or NTLM (`?mode=ntlm`).
    pub kind: HashKind,
    /// The index to write.
    pub output: PathBuf,
    /// Its layout.
    pub layout: IndexLayout,
    /// Also write the hashes as `HASH:COUNT` text here.
    pub text: Option<PathBuf>,
    /// Also write each range's body as `PREFIX.txt` in this folder.
    pub ranges: Option<PathBuf>,
    /// Update: the previous index, whose ranges are kept when the server
    /// answers `304 Not Modified` to their ETags.
    pub previous: Option<PathBuf>,
    /// Requests in flight at once; ranges waiting for an earlier one are
    /// bounded by a multiple of it (see the crate docs).
    pub concurrency: usize,
    /// Speak HTTP/1.1 only, even to a server that offers HTTP/2 (some
    /// proxies pass HTTP/1.1 alone).
    pub http1: bool,
    /// Ask for plain bodies only (no `Accept-Encoding`), for upstreams
    /// that mishandle compression.
    pub no_compression: bool,
    /// Follow a redirect whose target has the requested range's path and
    /// query (another host or scheme); any other redirect fails the
    /// download, as without this.
    pub follow_redirects: bool,
    /// Threads fetching, each with its own runtime and connections
    /// (`fetch_lanes.rs`): one per core by default.
    pub lanes: usize,
    /// Time limit of one request, connecting included.
    pub timeout: Duration,
    /// Attempts per range before the download fails.
    pub attempts: u32,
    /// Failed attempts allowed over the whole download.
    pub error_budget: u64,
    /// Memory for building a filter (as `build --memory`).
    pub memory: usize,
    /// The prefixes fetched: all of them, `0..RANGES`, but in tests, which
    /// take a few thousand to stay fast (the index then holds those
    /// ranges' hashes only).
    pub prefixes: Range<u32>,
}

impl Options {
    /// Defaults for downloading `kind` hashes into `output`.
    pub fn new(output: PathBuf, kind: HashKind) -> Options {
        Options {
            url: OFFICIAL.to_string(),
            kind,
            output,
            layout: IndexLayout::Sorted,
            text: None,
            ranges: None,
            previous: None,
            concurrency: 256,
            http1: false,
            no_compression: false,
            follow_redirects: false,
            lanes: std::thread::available_parallelism().map_or(1, usize::from),
            timeout: Duration::from_secs(30),
            attempts: 10,
            error_budget: 10_000,
            memory: 512 << 20,
            prefixes: 0..RANGES,
        }
    }
}

/// Counters the download updates as it goes, for a progress display.
#[derive(Debug, Default)]
pub struct DownloadProgress {
    /// Ranges written to the journal (resumed ones included).
    pub ranges: AtomicU64,
    /// Body bytes received (compressed, if they came so).
    pub bytes: AtomicU64,
    /// Body bytes after decoding.
    pub decoded: AtomicU64,
    /// Bodies that came compressed.
    pub compressed: AtomicU64,
    /// Hashes written to the journal.
    pub hashes: AtomicU64,
    /// Failed attempts retried.
    pub retries: AtomicU64,
    /// Requests sent again because the server closed the connection
    /// before answering them (not failed attempts).
    pub resent: AtomicU64,
}

impl DownloadProgress {
    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

/// What a finished download did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Ranges in the index (all 16^5 but in tests).
    pub ranges: u64,
    /// Ranges fetched in this run (the others were resumed from the journal).
    pub fetched: u64,
    /// Ranges found in the journal at the start.
    pub resumed: u64,
    /// Update: a journal left by an update from another version of the
    /// previous index (replaced since) was found and started over.
    pub started_over: bool,
    /// Update: ranges the server answered `304` for, over the whole run
    /// (resumed part included).
    pub not_modified: u64,
    /// Update: hashes in the ranges that changed, before and after.
    pub changed_hashes: (u64, u64),
    /// Hashes in the index.
    pub hashes: u64,
    /// Body bytes received in this run (compressed, if they came so).
    pub bytes: u64,
    /// The same bodies' bytes after decoding.
    pub decoded: u64,
    /// Bodies that came compressed, in this run.
    pub compressed: u64,
    /// Failed attempts retried in this run.
    pub retries: u64,
    /// Requests sent again in this run because the server closed the
    /// connection before answering them.
    pub resent: u64,
    /// Seconds of this run.
    pub seconds: f64,
    /// The protocol spoken (none if nothing was left to fetch).
    pub protocol: Option<Protocol>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.seconds.max(1e-9);
        write!(
            f,
            "{} ranges, {} hashes; fetched {} ranges ({:.1} MB) in {:.1}s: {:.0} ranges/s, {:.1} MB/s, {} retries",
            self.ranges,
            self.hashes,
            self.fetched,
            self.bytes as f64 / 1e6,
            self.seconds,
            self.fetched as f64 / secs,
            self.bytes as f64 / 1e6 / secs,
            self.retries,
        )?;
        if self.resent > 0 {
            write!(f, ", {} re-sent after a closed connection", self.resent)?;
        }
        if let Some(p) = self.protocol {
            write!(f, " over {p}")?;
        }
        if self.compressed > 0 {
            write!(
                f,
                "; {} bodies compressed: {:.1} MB decoded ({:.2}x)",
                self.compressed,
                self.decoded as f64 / 1e6,
                self.decoded as f64 / self.bytes.max(1) as f64
            )?;
        }
        if self.resumed > 0 {
            write!(f, "; {} ranges resumed from the journal", self.resumed)?;
        }
        if self.started_over {
            write!(
                f,
                "; the journal of an earlier run was started over: it was made against another \
                 version of the input index"
            )?;
        }
        Ok(())
    }
}
