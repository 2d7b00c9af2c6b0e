//! Building an index: HIBP text in, index out, in bounded memory.
//!
//! ```text
//!  sources ──read──► blocks of whole lines ──parse (worker threads)──►
//!    records grouped by bucket, in input order ──sink──► index (streaming)
//!                                                   └──► buckets ──drain──► index
//! ```
//!
//! - `input.rs`: what the command-line inputs are ([`Source`]);
//! - `read.rs`: the inputs as blocks of whole lines, read ahead by
//!   `spool_io`'s readers;
//! - `parse.rs`: a block's lines parsed by the core's sans-IO HIBP parser
//!   ([`crate::text::hibp`]) into 24-byte records (`hash_count.rs`),
//!   grouped by bucket (`sort.rs`);
//! - `sink.rs`: records streamed into the index while the input is in hash
//!   order, dealt into `buckets/` from the first one that is not; the
//!   buckets are sorted and written at the end (`buckets/drain.rs`);
//! - `write/`: the writers of the three layouts; [`convert`] makes the
//!   smaller ones from a full index.
//!
//! The threads are `spool_io`'s ordered parallel map: parsing runs on
//! worker threads while records reach the sink in input order, so that
//! hash-ordered input is recognised as such and the first malformed line
//! reported is the first in the file.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use spool_io::input::{counting, decompress, with_path};
use spool_io::parallel::for_each_ordered;
use spool_io::write::OutputLock;

mod buckets;
mod compact;
mod convert;
mod hash_count;
mod input;
mod options;
mod parse;
mod read;
mod sink;
mod sort;
pub(crate) mod write;

pub use convert::{build_as, convert, shard_bits, ConvertError, FILTER_BYTES_PER_KEY};
pub use input::{sources, Input, Source};
pub use options::{max_threads, BuildError, BuildOptions, BuildReport};
pub use write::{IndexWriter, SortedWriter};

use hash_count::HashCount;
use parse::{parse_block, Parsed};
use read::{file_blocks, range_file_blocks, stream_blocks, LineBlock};
use sink::Sink;

/// Builds the index at `output` from `sources`.
///
/// While the input is in hash order (what the official downloader writes)
/// records stream straight into the index: one pass, no temporary files,
/// little memory. From the first record out of order they are dealt into
/// buckets by their leading bits, spilled to disk when memory runs out,
/// and each bucket is sorted at the end (see `buckets/`). Duplicated
/// hashes get their counts added.
///
/// # Errors
///
/// I/O errors naming the file, and malformed lines naming file, line and
/// byte offset (unless `skip_invalid`); `WouldBlock` naming `output` if
/// another build is writing it. Nothing is left at `output` on failure.
/// Spill files have no names (see `buckets/spill.rs`) and vanish however
/// the build ends; the index's hidden temporary file is removed on failure
/// and taken over by the next build to the same output after a kill (the
/// output lock, [`OutputLock`], tells that its writer is dead).
pub fn build(
    sources: Vec<Source>,
    output: &Path,
    opts: &BuildOptions,
) -> Result<BuildReport, BuildError> {
    let _lock = OutputLock::for_file(output, "another build is writing this index")?;
    build_locked(sources, output, opts)
}

/// [`build`] for a caller that holds `output`'s lock, or the lock of the
/// output `output` is a scratch file of (see [`build_as`]).
fn build_locked(
    sources: Vec<Source>,
    output: &Path,
    opts: &BuildOptions,
) -> Result<BuildReport, BuildError> {
    let opts = &BuildOptions {
        threads: opts.threads.clamp(1, max_threads()),
        ..opts.clone()
    };
    let arena = opts.memory.saturating_sub(opts.reserved());
    let spill_dir = buckets::spill_dir(output, opts.temp_dir.as_deref());
    let make_buckets =
        move || buckets::Buckets::new(arena, opts.kind.byte_len(), spill_dir.clone());
    let run = Run {
        opts,
        bits: buckets::Buckets::bits_for(arena),
        raw_bytes: Arc::new(AtomicU64::new(0)),
        batches: Mutex::new(Vec::new()),
    };
    let mut taken = Taken {
        sink: Sink::new(output, opts.kind)?,
        make_buckets: &make_buckets,
        report: BuildReport::default(),
        streamed_duplicates: 0,
        lines_before: (usize::MAX, 0),
    };
    let (names, groups) = groups(sources);
    for group in groups {
        run.parse(group, &names, &mut taken)?;
    }
    // The parsed batches kept for reuse are not needed while sorting.
    drop(run);
    let Taken {
        sink,
        mut report,
        streamed_duplicates,
        ..
    } = taken;
    let finished = sink.finish(output, opts.kind, opts.threads, opts.progress.as_deref())?;
    report.spills = finished.spills;
    report.duplicates = finished.duplicates + streamed_duplicates;
    report.records = finished.header.records;
    Ok(report)
}

/// A stretch of the inputs read the same way: one stream, one regular
/// file, or a run of range files. The number is the first input's index.
enum Group {
    Stream(usize, Box<dyn io::Read + Send>),
    File(usize, File),
    RangeFiles(usize, Vec<PathBuf>),
}

/// The sources' names and prefixes by input index, and the sources as
/// streams and runs of range files, in order.
fn groups(sources: Vec<Source>) -> (Vec<(String, Vec<u8>)>, Vec<Group>) {
    let mut names = Vec::with_capacity(sources.len());
    let mut groups: Vec<Group> = Vec::new();
    for (i, source) in sources.into_iter().enumerate() {
        match source.input {
            Input::Stream(raw) => groups.push(Group::Stream(i, raw)),
            Input::File(file) => groups.push(Group::File(i, file)),
            Input::RangeFile(path) => match groups.last_mut() {
                Some(Group::RangeFiles(_, paths)) => paths.push(path),
                _ => groups.push(Group::RangeFiles(i, vec![path])),
            },
        }
        names.push((source.name, source.prefix));
    }
    (names, groups)
}

/// What the parsing threads share while a build parses.
struct Run<'a> {
    opts: &'a BuildOptions,
    /// Bucket bits of the arena, for grouping parsed batches.
    bits: u32,
    /// Input bytes read from disk (before decompression), for progress.
    raw_bytes: Arc<AtomicU64>,
    /// Record vectors handed back by the sink for the parsers to reuse.
    batches: Mutex<Vec<Vec<HashCount>>>,
}

/// What takes the parsed batches, in input order, on the calling thread.
struct Taken<'a> {
    sink: Sink,
    make_buckets: &'a dyn Fn() -> io::Result<buckets::Buckets>,
    report: BuildReport,
    streamed_duplicates: u64,
    /// The input of the last batch taken, and the lines of its batches so
    /// far (see [`read`]'s line numbers).
    lines_before: (usize, u64),
}

impl Run<'_> {
    /// Parses a group's blocks on the worker threads and hands the records
    /// to `taken` in input order.
    fn parse(
        &self,
        group: Group,
        names: &[(String, Vec<u8>)],
        taken: &mut Taken<'_>,
    ) -> Result<(), BuildError> {
        let workers = self.opts.threads.max(1);
        let counter = self.raw_bytes.clone();
        let (blocks, name): (Box<dyn Iterator<Item = _>>, _) = match group {
            Group::Stream(i, raw) => {
                let name = &names[i].0;
                let raw = counting(raw, counter);
                let (input, _) = decompress(raw).map_err(|e| with_path(e, name.as_ref()))?;
                (Box::new(stream_blocks(input, i, workers)), Some(name))
            }
            Group::File(i, file) => {
                let name = &names[i].0;
                let blocks = file_blocks(file, i, workers, counter);
                (blocks.map_err(|e| with_path(e, name.as_ref()))?, Some(name))
            }
            // Their errors name the file already.
            Group::RangeFiles(first, paths) => {
                (Box::new(range_file_blocks(paths, first, counter)), None)
            }
        };
        // Read errors (and lines too long) name the input.
        let blocks = blocks.map(move |b: io::Result<LineBlock>| match (b, name) {
            (Err(e), Some(name)) => Err(with_path(e, name.as_ref())),
            (b, _) => b,
        });
        for_each_ordered(
            blocks.map(|b| b.map_err(BuildError::from)),
            workers,
            Vec::new,
            |block, scratch| {
                let prefix = &names[block.input].1;
                parse_block(&block, prefix, self.opts, self.bits, &self.batches, scratch)
            },
            |parsed| self.take(parsed, names, taken),
        )
    }

    /// Takes one parsed batch, in input order: into the sink, or the
    /// build's end at its malformed line.
    fn take(
        &self,
        parsed: Parsed,
        names: &[(String, Vec<u8>)],
        taken: &mut Taken<'_>,
    ) -> Result<(), BuildError> {
        let report = &mut taken.report;
        report.bytes += parsed.bytes;
        report.lines += parsed.lines;
        report.invalid += parsed.invalid;
        let sink = &mut taken.sink;
        taken.streamed_duplicates += sink.push_batch(
            &parsed.records,
            parsed.sorted,
            &parsed.runs,
            taken.make_buckets,
        )?;
        // A block numbers its lines from its own first: add the lines of
        // the input's blocks before it.
        if taken.lines_before.0 != parsed.input {
            taken.lines_before = (parsed.input, 0);
        }
        let line_base = taken.lines_before.1;
        taken.lines_before.1 += parsed.all_lines;
        if let Some((line, offset, kind)) = parsed.error {
            return Err(BuildError::Malformed {
                source_name: names[parsed.input].0.clone(),
                line: line_base + line,
                offset,
                kind,
            });
        }
        self.batches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(parsed.records);
        if let Some(progress) = &self.opts.progress {
            let raw = self.raw_bytes.load(Ordering::Relaxed);
            progress.raw_bytes.store(raw, Ordering::Relaxed);
            progress
                .records
                .store(taken.report.lines, Ordering::Relaxed);
        }
        Ok(())
    }
}
