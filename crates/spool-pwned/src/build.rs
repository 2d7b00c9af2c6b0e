//! `build`: HIBP text in, index out, in bounded memory.

use std::io;
use std::path::{Path, PathBuf};

use crate::input::Source;
use crate::parse::{parse_line, LineErrorKind};
use crate::sort::{merge, sort_chunk, write_run, Record, RECORD_BYTES};
use crate::writer::IndexWriter;
use crate::HashKind;

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Which hashes the input holds.
    pub kind: HashKind,
    /// Memory for buffered records (the sort's budget), in bytes.
    pub memory: usize,
    /// Skip malformed lines (counting them) instead of failing.
    pub skip_invalid: bool,
    /// Where sorted runs go (default: next to the output).
    pub temp_dir: Option<PathBuf>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            kind: HashKind::Sha1,
            memory: 512 << 20,
            skip_invalid: false,
            temp_dir: None,
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
    /// Sorted runs spilled to disk (0 when the input was sorted or fit in memory).
    pub runs: usize,
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
    /// "reading", "merging" or "done".
    pub phase: &'static str,
    /// Input bytes read so far.
    pub bytes: u64,
}

/// Adds the counts of adjacent equal hashes and feeds the writer.
struct Dedup {
    writer: IndexWriter,
    pending: Option<Record>,
    kind: HashKind,
    duplicates: u64,
}

impl Dedup {
    fn push(&mut self, r: Record) -> io::Result<()> {
        match &mut self.pending {
            Some(p) if p.key == r.key => {
                p.count = p.count.saturating_add(r.count);
                self.duplicates += 1;
            }
            Some(p) => {
                self.writer.push(&p.key[..self.kind.byte_len()], p.count)?;
                *p = r;
            }
            None => self.pending = Some(r),
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(p) = self.pending.take() {
            self.writer.push(&p.key[..self.kind.byte_len()], p.count)?;
        }
        Ok(())
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

/// Removes the run directory on drop (success or failure).
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds the index at `output` from `sources`.
///
/// Records are buffered up to the memory budget. While every chunk is
/// sorted and follows the previous one (hash-ordered input), records stream
/// straight into the index: one pass, no temporary files. Otherwise chunks
/// are sorted (two buckets by the top bit, in parallel) and spilled as runs,
/// then merged into the index. Duplicated hashes get their counts added.
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
    // Half the budget for records: a growing Vec may briefly hold twice its length.
    let cap = (opts.memory / RECORD_BYTES / 2).max(1024);
    let temp_root = opts.temp_dir.clone().unwrap_or_else(|| {
        output
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| ".".into())
    });
    let temp = TempDir(temp_root.join(format!(".spool-pwned-runs-{}", std::process::id())));
    let mut report = BuildReport::default();
    let mut chunk: Vec<Record> = Vec::with_capacity(cap.min(1 << 16));
    let mut stream = Some(Dedup {
        writer: IndexWriter::create(output, kind)?,
        pending: None,
        kind,
        duplicates: 0,
    });
    let mut last_streamed: Option<[u8; 20]> = None;
    let mut runs: Vec<PathBuf> = Vec::new();
    // Duplicates merged while streaming, before a switch to runs.
    let mut streamed_duplicates = 0u64;

    let mut flush = |chunk: &mut Vec<Record>,
                     stream: &mut Option<Dedup>,
                     runs: &mut Vec<PathBuf>,
                     last_final: bool|
     -> io::Result<()> {
        sort_chunk(chunk);
        if let Some(dedup) = stream.as_mut() {
            let follows = match (last_streamed, chunk.first()) {
                (Some(last), Some(first)) => first.key >= last,
                _ => true,
            };
            if follows {
                for r in chunk.drain(..) {
                    dedup.push(r)?;
                }
                last_streamed = dedup.pending.map(|p| p.key).or(last_streamed);
                return Ok(());
            }
            // Out of order: what was streamed becomes the first run.
            let mut dedup = stream.take().expect("checked");
            dedup.flush()?;
            streamed_duplicates = dedup.duplicates;
            std::fs::create_dir_all(&temp.0).map_err(|e| crate::writer::with_path(e, &temp.0))?;
            let run0 = temp.0.join("run-streamed");
            dedup.writer.into_run(&run0)?;
            runs.push(run0);
        }
        if !last_final {
            std::fs::create_dir_all(&temp.0).map_err(|e| crate::writer::with_path(e, &temp.0))?;
            runs.push(write_run(&temp.0, runs.len(), chunk)?);
            chunk.clear();
        }
        Ok(())
    };

    for source in sources {
        let Source {
            name,
            prefix,
            reader,
        } = source;
        let reader = NamedRead {
            inner: reader,
            name: name.clone(),
        };
        crate::readahead::for_each_line(Box::new(reader), |line, line_no, start| {
            report.bytes += line.len() as u64 + 1;
            let text = line.strip_suffix(b"\r").unwrap_or(line);
            if text.is_empty() {
                return Ok(());
            }
            report.lines += 1;
            let mut key = [0u8; 20];
            match parse_line(text, &prefix, kind, &mut key) {
                Ok(count) => chunk.push(Record { key, count }),
                Err(_) if opts.skip_invalid => {
                    report.invalid += 1;
                    return Ok(());
                }
                Err(kind) => {
                    return Err(BuildError::Malformed {
                        source_name: name.clone(),
                        line: line_no,
                        offset: start,
                        kind,
                    })
                }
            }
            if chunk.len() == cap {
                flush(&mut chunk, &mut stream, &mut runs, false)?;
                progress(Progress {
                    phase: "reading",
                    bytes: report.bytes,
                });
            }
            Ok(())
        })?;
    }
    flush(&mut chunk, &mut stream, &mut runs, true)?;
    let mut dedup = match stream {
        Some(d) => d,
        None => {
            progress(Progress {
                phase: "merging",
                bytes: report.bytes,
            });
            let mut d = Dedup {
                writer: IndexWriter::create(output, kind)?,
                pending: None,
                kind,
                duplicates: 0,
            };
            merge(&runs, &chunk, |r| d.push(r))?;
            d
        }
    };
    dedup.flush()?;
    report.runs = runs.len();
    report.duplicates = dedup.duplicates + streamed_duplicates;
    let header = dedup.writer.finish()?;
    report.records = header.records;
    progress(Progress {
        phase: "done",
        bytes: report.bytes,
    });
    Ok(report)
}
