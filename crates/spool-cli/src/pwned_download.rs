//! `spool pwned download` and `spool pwned update`: the range API into an
//! index (see the `spool-download` crate), with a progress bar on a
//! terminal and a report at the end.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use spool_download::{download, DownloadProgress, Options, Report, OFFICIAL};
use spool_pwned::format::IndexLayout;
use spool_pwned::range_body::RANGES;
use spool_pwned::AnyIndex;

use crate::pwned::IndexFormat;

/// Arguments of `spool pwned download`.
#[derive(clap::Args)]
pub struct DownloadArgs {
    /// The index to write. Nothing appears here until every range is in:
    /// the ranges go to a journal beside it (`.NAME.download`) first, and
    /// running the same command again after an interruption (Ctrl-C, kill,
    /// a lost connection) continues from it.
    #[arg(short, long)]
    output: PathBuf,
    /// NTLM hashes (`?mode=ntlm`) instead of SHA-1.
    #[arg(long)]
    ntlm: bool,
    /// The index's layout (as `build --format`), written from the ranges
    /// as they arrive, in prefix order.
    #[arg(long, value_enum, default_value = "full")]
    format: IndexFormat,
    /// Also write every hash as `HASH:COUNT` text (one file, hash order),
    /// which `build` and other tools read.
    #[arg(long)]
    text: Option<PathBuf>,
    /// Also keep each range as the API sends it, `DIR/PREFIX.txt`
    /// (`SUFFIX:COUNT` lines, CRLF between them): the layout of the
    /// official downloader's one-file-per-range mode, which range mirrors
    /// (and `build`) read. DIR must not exist or be empty; it appears,
    /// whole, after the index.
    #[arg(long, value_name = "DIR")]
    ranges: Option<PathBuf>,
    #[command(flatten)]
    net: NetArgs,
}

/// Arguments of `spool pwned update`.
#[derive(clap::Args)]
pub struct UpdateArgs {
    /// The index to update: a full index, ideally made by `download` or
    /// `update` (its ETags, in `NAME.etags` beside it, let the server answer
    /// "not modified" for unchanged ranges; without them every range is
    /// fetched).
    #[arg(short, long)]
    input: PathBuf,
    /// The updated index (may be the input itself: it is replaced
    /// atomically, so `serve --watch` picks it up). Resumable as `download`.
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    net: NetArgs,
}

/// What download and update share: where from, how hard to try.
#[derive(clap::Args)]
struct NetArgs {
    /// Where the ranges come from: a base URL (`/range/PREFIX` is
    /// appended), e.g. `http://mirror:8080` for another `spool pwned
    /// serve`, or a URL with `{prefix}` in it. HTTP/2 over TLS (ALPN) or in
    /// plain text (prior knowledge), else HTTP/1.1 (see `--http1`).
    #[arg(long, default_value = OFFICIAL)]
    url: String,
    /// Speak HTTP/1.1 only, never HTTP/2 (for proxies that pass HTTP/1.1
    /// alone); `--concurrency` connections are then opened.
    #[arg(long)]
    http1: bool,
    /// Ask for plain bodies only. By default requests ask for compressed
    /// ones (`Accept-Encoding: br, gzip, zstd`), decoded as they arrive,
    /// which moves fewer bytes over the link. For upstreams that mishandle
    /// compression.
    #[arg(long)]
    no_compression: bool,
    /// Follow a redirect to the same range's path and query on another
    /// host or scheme (a CDN, HTTP to HTTPS). Any other redirect, and every
    /// redirect without this, fails the run naming the range and where it
    /// pointed: a range stored under another's prefix would be lost data.
    #[arg(long)]
    follow_redirects: bool,
    /// Requests in flight at once. Ranges arrive in any order and are
    /// written in prefix order; a range being retried does not stop the
    /// others until eight times this many ranges wait in memory for it.
    #[arg(long, default_value_t = 256, value_parser = crate::count::parse_count)]
    concurrency: usize,
    /// Seconds one request may take, connecting included.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// Attempts per range (connection errors, timeouts, 429, 5xx, cut,
    /// unframed or malformed bodies are retried with growing pauses)
    /// before giving up. A request the server did not answer because it
    /// closed or recycled the connection (HTTP/2 GOAWAY, a closed
    /// keep-alive connection) is sent again at once and is not an attempt.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    attempts: u32,
    /// Failed attempts allowed over the whole run before giving up.
    #[arg(long, default_value_t = 10_000)]
    error_budget: u64,
    /// Memory for building a filter at the end (as `build --memory`).
    #[arg(long, default_value = "512M", value_parser = spool_io::size::parse)]
    memory: usize,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
    /// Fetching threads, each with its own connections (default: one per
    /// core), for measurements.
    #[arg(long, hide = true)]
    lanes: Option<usize>,
    /// Only the prefixes FIRST-LAST (hex, inclusive), for tests: the index
    /// then holds those ranges alone.
    #[arg(long, hide = true, value_parser = parse_prefixes)]
    prefixes: Option<std::ops::Range<u32>>,
}

/// `FIRST-LAST` in hex, inclusive, as a range of prefixes.
fn parse_prefixes(text: &str) -> Result<std::ops::Range<u32>, String> {
    let (first, last) = text.split_once('-').ok_or("expected FIRST-LAST")?;
    let hex = |t: &str| u32::from_str_radix(t, 16).map_err(|e| format!("{t}: {e}"));
    let (first, last) = (hex(first)?, hex(last)?);
    if first > last || last >= RANGES {
        return Err(format!("{text}: not a range of five-digit prefixes"));
    }
    Ok(first..last + 1)
}

impl NetArgs {
    fn apply(&self, opts: &mut Options) {
        opts.url = self.url.clone();
        opts.http1 = self.http1;
        opts.no_compression = self.no_compression;
        opts.follow_redirects = self.follow_redirects;
        if let Some(lanes) = self.lanes {
            opts.lanes = lanes.max(1);
        }
        opts.concurrency = self.concurrency;
        opts.timeout = Duration::from_secs(self.timeout.max(1));
        opts.attempts = self.attempts;
        opts.error_budget = self.error_budget;
        opts.memory = self.memory;
        if let Some(prefixes) = &self.prefixes {
            opts.prefixes = prefixes.clone();
        }
    }
}

/// Runs `spool pwned download`.
pub fn run_download(args: DownloadArgs) -> anyhow::Result<ExitCode> {
    let kind = crate::pwned::kind(args.ntlm);
    let mut opts = Options::new(args.output, kind);
    opts.layout = args.format.layout();
    opts.text = args.text;
    opts.ranges = args.ranges;
    args.net.apply(&mut opts);
    let report = run(&opts, args.net.quiet, "spool pwned download")?;
    eprintln!(
        "spool pwned download: {} written ({} index): {report}",
        opts.output.display(),
        opts.layout.name()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `spool pwned update`.
pub fn run_update(args: UpdateArgs) -> anyhow::Result<ExitCode> {
    // Any layout opens here, so that a t64 or filter input gets the
    // update's own message (only a full index can be updated).
    let kind = AnyIndex::open(&args.input)?.kind();
    let mut opts = Options::new(args.output, kind);
    opts.layout = IndexLayout::Sorted;
    opts.previous = Some(args.input);
    args.net.apply(&mut opts);
    let report = run(&opts, args.net.quiet, "spool pwned update")?;
    let (before, after) = report.changed_hashes;
    eprintln!(
        "spool pwned update: {} written: {} ranges unchanged (304), {} changed or new ({before} hashes in them before, {after} now): {report}",
        opts.output.display(),
        report.not_modified,
        report.ranges - report.not_modified,
    );
    Ok(ExitCode::SUCCESS)
}

fn run(opts: &Options, quiet: bool, command: &'static str) -> anyhow::Result<Report> {
    // Ctrl-C removes the outputs' temporary files; the journal stays, for
    // the next run.
    crate::interrupt::exit_on_signal(command);
    let progress = Arc::new(DownloadProgress::default());
    let show = !quiet && io::stderr().is_terminal();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if show {
            let (progress, done) = (&progress, &done);
            scope.spawn(move || draw(progress, done));
        }
        let result = download(opts, progress.clone());
        done.store(true, Ordering::Relaxed);
        Ok(result?)
    })
}

/// The progress bar: ranges of 16^5, with ranges/s, MB/s and the time left.
fn draw(progress: &DownloadProgress, done: &AtomicBool) {
    let bar = indicatif::ProgressBar::new(u64::from(RANGES));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "[{elapsed_precise}] {wide_bar} {pos}/{len} ranges ({per_sec}, eta {eta}) {msg}",
        )
        .expect("valid template"),
    );
    let start = std::time::Instant::now();
    while !done.load(Ordering::Relaxed) {
        bar.set_position(progress.ranges.load(Ordering::Relaxed));
        let bytes = progress.bytes.load(Ordering::Relaxed) as f64;
        bar.set_message(format!(
            "{:.1} MB/s, {} hashes, {} retries",
            bytes / 1e6 / start.elapsed().as_secs_f64().max(1e-3),
            progress.hashes.load(Ordering::Relaxed),
            progress.retries.load(Ordering::Relaxed)
        ));
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish_and_clear();
}
