//! `build`: HIBP text in, index out, in bounded memory.

use std::io;
use std::path::{Path, PathBuf};

use std::sync::{Mutex, PoisonError};

use crate::buckets::{self, Buckets};
use crate::input::{Input, Source};
use crate::readahead::{file_chunks, stream_chunks, Chunk};
use crate::record::{self, sort_key, MergeCounts, Record};
use crate::sort::{group_by_bucket, BucketRun};
use crate::writer::{EncodedRun, IndexWriter};
use crate::HashKind;
use spool::text::hibp::{parse_line, LineErrorKind};

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
    /// most 8).
    pub threads: usize,
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
        }
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

/// Progress of a build, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// "reading", "sorting" or "done".
    pub phase: &'static str,
    /// Input bytes read so far.
    pub bytes: u64,
}

/// Memory kept out of the record arena for everything else, in all and
/// per parsing thread. Measured: with two threads the process holds about
/// 17 MiB beyond the arena while reading (program, write and spill
/// buffers, a read-ahead ring of 2 MiB and two record batches of 0.5 MiB
/// per thread).
const RESERVED_MEMORY: usize = 20 << 20;
const RESERVED_PER_THREAD: usize = 4 << 20;

/// Allowance for the buckets in flight at the end, on top of the arena
/// (about 11 MiB at 100 million hashes). An input whose buckets need more
/// (near a billion hashes) has the arena spilled and given back first: one
/// more spill file, about 2% more spilled data at that size.
const DRAIN_HEADROOM: usize = 12 << 20;

/// Adds the counts of adjacent equal hashes and feeds the writer.
struct Dedup {
    writer: IndexWriter,
    merge: MergeCounts,
    kind: HashKind,
}

impl Dedup {
    fn new(output: &Path, kind: HashKind) -> io::Result<Self> {
        Ok(Dedup {
            writer: IndexWriter::create(output, kind)?,
            merge: MergeCounts::default(),
            kind,
        })
    }

    /// Adds `r`; records must come in non-decreasing hash order.
    #[inline]
    fn push(&mut self, r: &Record) -> io::Result<()> {
        match self.merge.push(r) {
            Some(done) => self.write(&done),
            None => Ok(()),
        }
    }

    fn write(&mut self, r: &Record) -> io::Result<()> {
        self.writer
            .push(&r[..self.kind.byte_len()], record::count(r))
    }

    /// Writes the last record and finishes the index; returns its header
    /// and the number of duplicates merged.
    fn finish(mut self) -> io::Result<(crate::format::Header, u64)> {
        if let Some(last) = self.merge.finish() {
            self.write(&last)?;
        }
        Ok((self.writer.finish()?, self.merge.duplicates))
    }
}

/// Where parsed records go: straight into the index while the input is in
/// hash order, into buckets from the first record that is not.
enum Sink {
    Streaming(Dedup),
    Sorting(Buckets),
}

impl Sink {
    /// Takes a batch from a parsing thread. A batch in hash order keeps
    /// streaming if it follows what was streamed; anything else goes into
    /// buckets, run by run. Returns the duplicates merged while streaming
    /// when the sink switches to sorting.
    fn push_batch(
        &mut self,
        records: &[Record],
        sorted: bool,
        runs: &[BucketRun],
        make_buckets: &dyn Fn() -> io::Result<Buckets>,
    ) -> io::Result<u64> {
        if let Sink::Streaming(dedup) = self {
            let follows = match (dedup.merge.pending(), records.first()) {
                (Some(p), Some(first)) => sort_key(p) <= sort_key(first),
                _ => true,
            };
            if sorted && follows {
                for r in records {
                    dedup.push(r)?;
                }
                return Ok(0);
            }
        }
        let duplicates = self.switch_to_sorting(make_buckets)?;
        let Sink::Sorting(store) = self else {
            unreachable!("switched")
        };
        store.push_runs(records, runs)?;
        Ok(duplicates)
    }

    /// From streaming to sorting: everything streamed so far goes into the
    /// buckets too. The duplicates merged while streaming are already
    /// single records; their number is returned.
    fn switch_to_sorting(
        &mut self,
        make_buckets: &dyn Fn() -> io::Result<Buckets>,
    ) -> io::Result<u64> {
        if let Sink::Sorting(_) = self {
            return Ok(0);
        }
        let Sink::Streaming(dedup) = std::mem::replace(self, Sink::Sorting(make_buckets()?)) else {
            unreachable!("checked above")
        };
        let Sink::Sorting(store) = self else {
            unreachable!("just replaced")
        };
        let Dedup {
            writer, mut merge, ..
        } = dedup;
        writer.into_records(|rec| store.push(rec))?;
        if let Some(p) = merge.finish() {
            store.push(p)?;
        }
        Ok(merge.duplicates)
    }
}

/// Prefixes read errors with the input's name.
struct NamedRead {
    inner: Box<dyn io::Read + Send>,
    name: String,
}

impl io::Read for NamedRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner
            .read(buf)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.name)))
    }
}

/// A stretch of the inputs read the same way: one stream, or a run of
/// files opened when their turn comes (range files). The number is the
/// first input's index.
enum Group {
    Stream(usize, Box<dyn io::Read + Send>),
    Files(usize, Vec<PathBuf>),
}

/// What a parsing thread made of one chunk.
struct Parsed {
    input: usize,
    /// The records, grouped by bucket (in input order if that was hash
    /// order).
    records: Vec<Record>,
    /// Whether the records were in hash order.
    sorted: bool,
    runs: Vec<BucketRun>,
    lines: u64,
    invalid: u64,
    bytes: u64,
    /// The chunk's first malformed line (unless skipping them): line
    /// number, byte offset, what is wrong. Records after it are not parsed.
    error: Option<(u64, u64, LineErrorKind)>,
}

/// Parses a chunk's lines into records (in a recycled vector from
/// `batches`) and groups them by bucket of `bits` bits, using `scratch`.
fn parse_chunk(
    chunk: &Chunk,
    prefix: &[u8],
    opts: &BuildOptions,
    bits: u32,
    batches: &Mutex<Vec<Vec<Record>>>,
    scratch: &mut Vec<Record>,
) -> Parsed {
    let records = batches
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pop()
        .unwrap_or_default();
    let mut parsed = Parsed {
        input: chunk.input,
        records,
        sorted: true,
        runs: Vec::new(),
        lines: 0,
        invalid: 0,
        bytes: 0,
        error: None,
    };
    parsed.records.clear();
    for (line, line_no, offset) in chunk.lines() {
        parsed.bytes += line.len() as u64 + 1;
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        if text.is_empty() {
            continue;
        }
        parsed.lines += 1;
        let mut key = [0u8; 20];
        match parse_line(text, prefix, &mut key[..opts.kind.byte_len()]) {
            Ok(count) => parsed.records.push(record::record(&key, count)),
            Err(_) if opts.skip_invalid => parsed.invalid += 1,
            Err(kind) => {
                parsed.error = Some((line_no, offset, kind));
                break;
            }
        }
    }
    (parsed.sorted, parsed.runs) = group_by_bucket(&mut parsed.records, scratch, bits);
    parsed
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
/// byte offset (unless `skip_invalid`). Nothing is left at `output` on
/// failure, and temporary files are removed either way.
pub fn build(
    sources: Vec<Source>,
    output: &Path,
    opts: &BuildOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<BuildReport, BuildError> {
    let kind = opts.kind;
    let spill_dir = buckets::spill_dir(output, opts.temp_dir.as_deref());
    let arena = opts.memory.saturating_sub(
        RESERVED_MEMORY + DRAIN_HEADROOM + RESERVED_PER_THREAD * opts.threads.max(1),
    );
    let make_buckets = || Buckets::new(arena, spill_dir.clone());
    let bits = Buckets::bits_for(arena);
    let mut report = BuildReport::default();
    let mut sink = Sink::Streaming(Dedup::new(output, kind)?);
    let mut streamed_duplicates = 0u64;
    let mut next_progress = 0u64;

    // Names and prefixes by input index; streams and runs of lazily opened
    // files (range files) in order.
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::with_capacity(sources.len());
    let mut groups: Vec<Group> = Vec::new();
    for (i, source) in sources.into_iter().enumerate() {
        match source.input {
            Input::Reader(reader) => groups.push(Group::Stream(
                i,
                Box::new(NamedRead {
                    inner: reader,
                    name: source.name.clone(),
                }),
            )),
            Input::Path(path) => match groups.last_mut() {
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
            Group::Stream(i, reader) => Box::new(stream_chunks(reader, i, 2 * workers)),
            Group::Files(first, paths) => Box::new(file_chunks(paths, first)),
        };
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
                if let Some((line, offset, kind)) = parsed.error {
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
                if report.bytes >= next_progress {
                    next_progress = report.bytes + (8 << 20);
                    progress(Progress {
                        phase: "reading",
                        bytes: report.bytes,
                    });
                }
                Ok(())
            },
        )?;
    }
    let (header, duplicates) = match sink {
        Sink::Streaming(dedup) => dedup.finish()?,
        Sink::Sorting(mut store) => {
            progress(Progress {
                phase: "sorting",
                bytes: report.bytes,
            });
            if store.drain_memory(opts.threads) > DRAIN_HEADROOM {
                store.release_arena()?;
            }
            report.spills = store.spills();
            let mut writer = IndexWriter::create(output, kind)?;
            let mut duplicates = 0;
            store.drain_sorted(
                opts.threads,
                |bucket| EncodedRun::new(&bucket, kind),
                |run| {
                    duplicates += run.duplicates;
                    writer.append(&run)
                },
            )?;
            store.remove_spills();
            (writer.finish()?, duplicates)
        }
    };
    report.duplicates = duplicates + streamed_duplicates;
    report.records = header.records;
    progress(Progress {
        phase: "done",
        bytes: report.bytes,
    });
    Ok(report)
}
