//! `build`: HIBP text in, index out, in bounded memory.
//!
//! ```text
//!  inputs ──readahead──► chunks of whole lines ──batch (worker threads)──►
//!    records grouped by bucket, in input order ──sink──► index (streaming)
//!                                                    └──► buckets ──sort──► index
//! ```
//!
//! Reading and decompression are `spool_io`'s, line parsing the core's
//! (`spool::text`); this module wires them to the sink and reports
//! progress through [`spool_io::progress`].

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use spool::text::hibp::LineErrorKind;
use spool_io::input::{counting, decompress, with_path};
use spool_io::progress::Progress;

use crate::batch::{parse_chunk, Parsed};
use crate::buckets::{self, Buckets};
use crate::input::{Input, Source};
use crate::readahead::{file_chunks, plain_chunks, stream_chunks, Chunk};
use crate::sink::{Sink, DRAIN_HEADROOM};
use crate::HashKind;

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Which hashes the input holds.
    pub kind: HashKind,
    /// Memory for the whole build, in bytes: most of it holds records
    /// waiting to be sorted; the rest is read-ahead and write buffers.
    pub memory: usize,
    /// Skip malformed lines (counting them) instead of failing.
    pub skip_invalid: bool,
    /// Where spill files go (default: next to the output).
    pub temp_dir: Option<PathBuf>,
    /// Threads that parse lines and sort buckets (default: one per core, at
    /// most 8; a build uses at most [`max_threads`], see there).
    pub threads: usize,
    /// Live counters for a progress display (updated once per chunk of
    /// input).
    pub progress: Option<Arc<Progress>>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            kind: HashKind::Sha1,
            memory: 512 << 20,
            skip_invalid: false,
            temp_dir: None,
            // One thread takes every parsed batch in order; beyond about
            // eight parsing threads it is the limit, and more would only
            // add read-ahead buffers.
            threads: std::thread::available_parallelism().map_or(2, |n| n.get().min(8)),
            progress: None,
        }
    }
}

/// The most threads a build uses: four per core, at most 64. Each thread
/// takes a share of the memory budget and two read-ahead buffers, and
/// beyond one per core threads only wait for each other; a large count
/// (`--threads 20000`) is capped to this rather than spawned.
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().saturating_mul(4).min(64))
}

impl BuildOptions {
    /// The least [`memory`](Self::memory) within which a build with these
    /// options stays: what is kept out of the record arena (the program,
    /// read-ahead, write and spill buffers, 4 MiB per thread) and an arena
    /// of 8 MiB. Below it the build still runs, but its peak memory can
    /// exceed `memory`.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_pwned::build::BuildOptions;
    /// let two = BuildOptions { threads: 2, ..BuildOptions::default() };
    /// let eight = BuildOptions { threads: 8, ..BuildOptions::default() };
    /// assert!(two.min_memory() < eight.min_memory());
    /// assert!(two.min_memory() <= 48 << 20); // what the memory test uses
    /// ```
    pub fn min_memory(&self) -> usize {
        self.reserved() + MIN_ARENA
    }

    /// Memory kept out of the record arena: the program, read-ahead, write
    /// and spill buffers, each thread's batches and the final drain.
    fn reserved(&self) -> usize {
        RESERVED_MEMORY + DRAIN_HEADROOM + RESERVED_PER_THREAD * self.threads.max(1)
    }
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Lines read (excluding empty lines).
    pub lines: u64,
    /// Malformed lines skipped (with `skip_invalid`).
    pub invalid: u64,
    /// Lines whose hash repeated an earlier one (counts were added).
    pub duplicates: u64,
    /// Distinct hashes written.
    pub records: u64,
    /// Bytes of (decompressed) input read (each line counted with its newline).
    pub bytes: u64,
    /// Spill files written (0 when the input was sorted or fit in memory).
    pub spills: usize,
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// An I/O error (the message names the file).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A line that is not `HASH:COUNT`.
    #[error("{source_name}:{line}: byte offset {offset}: {kind} (use --skip-invalid to skip such lines)")]
    Malformed {
        /// The input's name.
        source_name: String,
        /// 1-based line number.
        line: u64,
        /// Byte offset of the line's start in the (decompressed) input.
        offset: u64,
        /// What is wrong.
        kind: LineErrorKind,
    },
}

/// Memory kept out of the record arena for everything else, in all and
/// per parsing thread. Measured: with two threads the process holds about
/// 17 MiB beyond the arena while reading (program, write and spill
/// buffers, a read-ahead ring of 2 MiB and two record batches of 0.5 MiB
/// per thread).
const RESERVED_MEMORY: usize = 20 << 20;
const RESERVED_PER_THREAD: usize = 4 << 20;
/// The smallest record arena [`BuildOptions::min_memory`] allows: smaller
/// arenas work, but spill so often that the build crawls.
const MIN_ARENA: usize = 8 << 20;

/// A stretch of the inputs read the same way: one stream, or a run of
/// files opened when their turn comes (range files). The number is the
/// first input's index.
enum Group {
    Stream(usize, Box<dyn io::Read + Send>),
    Files(usize, Vec<PathBuf>),
    /// A plain regular file of the given length, read with `O_DIRECT` or maps.
    Plain(usize, File, u64),
}

/// Builds the index at `output` from `sources`.
///
/// While the input is in hash order (what the official downloader writes)
/// records stream straight into the index: one pass, no temporary files,
/// little memory. From the first record out of order they are dealt into
/// buckets by their leading bits, spilled to disk when memory runs out,
/// and each bucket is sorted at the end (see `buckets.rs`). Duplicated
/// hashes get their counts added.
///
/// # Errors
///
/// I/O errors naming the file, and malformed lines naming file, line and
/// byte offset (unless `skip_invalid`); `WouldBlock` naming `output` if
/// another build is writing it. Nothing is left at `output` on failure.
/// Spill files have no names (see `buckets.rs`) and vanish however the
/// build ends; the index's hidden temporary file is removed on failure and
/// taken over by the next build to the same output after a kill (the
/// output lock, `output_lock.rs`, tells that its writer is dead).
pub fn build(
    sources: Vec<Source>,
    output: &Path,
    opts: &BuildOptions,
) -> Result<BuildReport, BuildError> {
    let _lock = crate::output_lock::lock(output)?;
    let opts = &BuildOptions {
        threads: opts.threads.clamp(1, max_threads()),
        ..opts.clone()
    };
    let kind = opts.kind;
    let spill_dir = buckets::spill_dir(output, opts.temp_dir.as_deref());
    let arena = opts.memory.saturating_sub(opts.reserved());
    let make_buckets = || Buckets::new(arena, kind.byte_len(), spill_dir.clone());
    let bits = Buckets::bits_for(arena);
    let mut report = BuildReport::default();
    let mut sink = Sink::new(output, kind)?;
    let mut streamed_duplicates = 0u64;
    let raw_bytes = Arc::new(AtomicU64::new(0));

    // Names and prefixes by input index; streams and runs of lazily opened
    // files (range files) in order.
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::with_capacity(sources.len());
    let mut groups: Vec<Group> = Vec::new();
    for (i, source) in sources.into_iter().enumerate() {
        match source.input {
            Input::Reader(reader) => groups.push(Group::Stream(i, reader)),
            Input::File(raw) => {
                let raw = counting(raw, raw_bytes.clone());
                let reader = decompress(raw).map_err(|e| with_path(e, source.name.as_ref()))?;
                groups.push(Group::Stream(i, reader.0));
            }
            Input::Regular(file) => match plain_len(&file) {
                Ok(Some(len)) => groups.push(Group::Plain(i, file, len)),
                Ok(None) => {
                    let raw = counting(Box::new(file), raw_bytes.clone());
                    let reader = decompress(raw).map_err(|e| with_path(e, source.name.as_ref()))?;
                    groups.push(Group::Stream(i, reader.0));
                }
                Err(e) => return Err(with_path(e, source.name.as_ref()).into()),
            },
            Input::RangeFile(path) => match groups.last_mut() {
                Some(Group::Files(_, paths)) => paths.push(path),
                _ => groups.push(Group::Files(i, vec![path])),
            },
        }
        inputs.push((source.name, source.prefix));
    }

    let workers = opts.threads.max(1);
    let batches = Mutex::new(Vec::new());
    for group in groups {
        let chunks: Box<dyn Iterator<Item = io::Result<Chunk>>> = match group {
            Group::Stream(i, reader) => {
                // Read errors (and records too long) name the input.
                let name = inputs[i].0.clone();
                Box::new(
                    stream_chunks(reader, i, 2 * workers)
                        .map(move |c| c.map_err(|e| with_path(e, name.as_ref()))),
                )
            }
            Group::Files(first, paths) => Box::new(file_chunks(paths, first, raw_bytes.clone())),
            Group::Plain(i, file, len) => {
                let name = inputs[i].0.clone();
                Box::new(
                    plain_chunks(file, len, i, workers, raw_bytes.clone())
                        .map(move |c| c.map_err(|e| with_path(e, name.as_ref()))),
                )
            }
        };
        // Lines before the current chunk in its input, for chunks that
        // number their lines from their own first line.
        let mut lines_before = (usize::MAX, 0u64);
        crate::ordered::for_each_ordered(
            chunks.map(|c| c.map_err(BuildError::from)),
            workers,
            Vec::new,
            |chunk, scratch| {
                parse_chunk(
                    &chunk,
                    &inputs[chunk.input].1,
                    opts,
                    bits,
                    &batches,
                    scratch,
                )
            },
            |parsed: Parsed| {
                report.bytes += parsed.bytes;
                report.lines += parsed.lines;
                report.invalid += parsed.invalid;
                streamed_duplicates +=
                    sink.push_batch(&parsed.records, parsed.sorted, &parsed.runs, &make_buckets)?;
                if lines_before.0 != parsed.input {
                    lines_before = (parsed.input, 0);
                }
                let line_base = if parsed.numbered_from_chunk {
                    lines_before.1
                } else {
                    0
                };
                lines_before.1 += parsed.all_lines;
                if let Some((line, offset, kind)) = parsed.error {
                    let line = line_base + line;
                    return Err(BuildError::Malformed {
                        source_name: inputs[parsed.input].0.clone(),
                        line,
                        offset,
                        kind,
                    });
                }
                batches
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(parsed.records);
                if let Some(progress) = &opts.progress {
                    let raw = raw_bytes.load(Ordering::Relaxed);
                    progress.raw_bytes.store(raw, Ordering::Relaxed);
                    progress.records.store(report.lines, Ordering::Relaxed);
                }
                Ok(())
            },
        )?;
    }
    // The parsed batches kept for reuse are not needed while sorting.
    drop(batches);
    let finished = sink.finish(output, kind, opts.threads, opts.progress.as_deref())?;
    report.spills = finished.spills;
    report.duplicates = finished.duplicates + streamed_duplicates;
    report.records = finished.header.records;
    Ok(report)
}

/// The length of `file` if it holds plain text (no gzip or zstd magic
/// number), to be read in windows (`O_DIRECT` or maps); `None` if it is compressed.
#[cfg(unix)]
fn plain_len(file: &File) -> io::Result<Option<u64>> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    let mut head = [0u8; 4];
    let mut have = 0;
    // `read_at` leaves the file's position at 0 for a decompressor.
    while have < head.len() {
        match file.read_at(&mut head[have..], have as u64) {
            Ok(0) => break,
            Ok(n) => have += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let plain = spool_io::input::detect(&head[..have]) == spool_io::input::Detected::Plain;
    Ok(plain.then_some(len))
}

/// Elsewhere every file is read through `read`.
#[cfg(not(unix))]
fn plain_len(_: &File) -> io::Result<Option<u64>> {
    Ok(None)
}
