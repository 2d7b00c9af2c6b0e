//! `build`: HIBP text in, index out, in bounded memory.

use std::io;
use std::path::{Path, PathBuf};

use crate::buckets::{self, Buckets, Record};
use crate::input::{Input, Source};
use crate::parse::{parse_line, LineErrorKind};
use crate::writer::IndexWriter;
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
    /// Threads that sort buckets at the end (default: one per core).
    pub threads: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            kind: HashKind::Sha1,
            memory: 512 << 20,
            skip_invalid: false,
            temp_dir: None,
            threads: std::thread::available_parallelism().map_or(2, usize::from),
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

/// Memory kept out of the record arena: read-ahead ring (4 MiB), write
/// buffer (1 MiB), buckets in flight while sorting, and the program.
const RESERVED_MEMORY: usize = 24 << 20;

/// Adds the counts of adjacent equal hashes and feeds the writer.
struct Dedup {
    writer: IndexWriter,
    pending: Option<Record>,
    kind: HashKind,
    duplicates: u64,
}

impl Dedup {
    fn new(output: &Path, kind: HashKind) -> io::Result<Self> {
        Ok(Dedup {
            writer: IndexWriter::create(output, kind)?,
            pending: None,
            kind,
            duplicates: 0,
        })
    }

    /// Adds `r`; records must come in non-decreasing hash order.
    #[inline]
    fn push(&mut self, r: &Record) -> io::Result<()> {
        match &mut self.pending {
            Some(p) if buckets::sort_key(p) == buckets::sort_key(r) => {
                let sum = buckets::count(p).saturating_add(buckets::count(r));
                p[20..].copy_from_slice(&sum.to_le_bytes());
                self.duplicates += 1;
            }
            Some(p) => {
                self.writer
                    .push(&p[..self.kind.byte_len()], buckets::count(p))?;
                *p = *r;
            }
            None => self.pending = Some(*r),
        }
        Ok(())
    }

    /// Writes the last record and finishes the index; returns its header
    /// and the number of duplicates merged.
    fn finish(mut self) -> io::Result<(crate::format::Header, u64)> {
        if let Some(p) = self.pending.take() {
            self.writer
                .push(&p[..self.kind.byte_len()], buckets::count(&p))?;
        }
        Ok((self.writer.finish()?, self.duplicates))
    }
}

/// Where parsed records go: straight into the index while the input is in
/// hash order, into buckets from the first record that is not.
enum Sink {
    Streaming(Dedup),
    Sorting(Buckets),
}

impl Sink {
    #[inline]
    fn push(&mut self, r: Record, make_buckets: &dyn Fn() -> Buckets) -> io::Result<u64> {
        match self {
            Sink::Streaming(dedup) => {
                if dedup
                    .pending
                    .is_none_or(|p| buckets::sort_key(&p) <= buckets::sort_key(&r))
                {
                    dedup.push(&r)?;
                    return Ok(0);
                }
                // Out of order: everything streamed so far goes into the
                // buckets too (the duplicates merged while streaming are
                // already single records; their number is returned).
                let Sink::Streaming(dedup) = std::mem::replace(self, Sink::Sorting(make_buckets()))
                else {
                    unreachable!("matched above")
                };
                let Sink::Sorting(store) = self else {
                    unreachable!("just replaced")
                };
                let Dedup {
                    writer,
                    pending,
                    duplicates,
                    ..
                } = dedup;
                writer.into_records(|rec| store.push(rec))?;
                if let Some(p) = pending {
                    store.push(p)?;
                }
                store.push(r)?;
                Ok(duplicates)
            }
            Sink::Sorting(store) => store.push(r).map(|()| 0),
        }
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
    let arena = opts.memory.saturating_sub(RESERVED_MEMORY);
    let make_buckets = || Buckets::new(arena, spill_dir.clone());
    let mut report = BuildReport::default();
    let mut sink = Sink::Streaming(Dedup::new(output, kind)?);
    let mut streamed_duplicates = 0u64;
    let mut next_progress = 0u64;

    let mut parse = |name: &str, prefix: &[u8], line: &[u8], line_no: u64, start: u64| {
        report.bytes += line.len() as u64 + 1;
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        if text.is_empty() {
            return Ok(());
        }
        report.lines += 1;
        let mut key = [0u8; 20];
        match parse_line(text, prefix, kind, &mut key) {
            Ok(count) => {
                streamed_duplicates += sink.push(buckets::record(&key, count), &make_buckets)?;
            }
            Err(_) if opts.skip_invalid => report.invalid += 1,
            Err(kind) => {
                return Err(BuildError::Malformed {
                    source_name: name.to_string(),
                    line: line_no,
                    offset: start,
                    kind,
                })
            }
        }
        if report.bytes >= next_progress {
            next_progress = report.bytes + (8 << 20);
            progress(Progress {
                phase: "reading",
                bytes: report.bytes,
            });
        }
        Ok(())
    };

    let mut sources = sources.into_iter().peekable();
    while let Some(Source {
        name,
        prefix,
        input,
    }) = sources.next()
    {
        match input {
            Input::Reader(reader) => {
                let reader = NamedRead {
                    inner: reader,
                    name: name.clone(),
                };
                crate::readahead::for_each_line(Box::new(reader), |line, line_no, start| {
                    parse(&name, &prefix, line, line_no, start)
                })?;
            }
            Input::Path(path) => {
                // A run of files opened when their turn comes (range
                // files): read whole, a few ahead, on one thread.
                let mut files = vec![(name, prefix, path)];
                while let Some(Source {
                    input: Input::Path(_),
                    ..
                }) = sources.peek()
                {
                    let Some(Source {
                        name,
                        prefix,
                        input: Input::Path(path),
                    }) = sources.next()
                    else {
                        unreachable!("peeked")
                    };
                    files.push((name, prefix, path));
                }
                let paths: Vec<PathBuf> = files.iter().map(|f| f.2.clone()).collect();
                crate::readahead::for_each_line_in_files(&paths, |i, line, line_no, start| {
                    parse(&files[i].0, &files[i].1, line, line_no, start)
                })?;
            }
        }
    }
    let (header, duplicates) = match sink {
        Sink::Streaming(dedup) => dedup.finish()?,
        Sink::Sorting(mut store) => {
            progress(Progress {
                phase: "sorting",
                bytes: report.bytes,
            });
            report.spills = store.spills();
            let mut dedup = Dedup::new(output, kind)?;
            store.drain_sorted(opts.threads, |r| dedup.push(r))?;
            store.remove_spills();
            dedup.finish()?
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
