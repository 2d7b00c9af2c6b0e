//! NDJSON (one JSON object per line) read as records of the run's text
//! dialect, with a header naming the columns, so that `--by` names a
//! top-level field and everything after the router is as for CSV.
//!
//! The columns are the top-level fields of the first lines of the first
//! NDJSON input, in the order first seen ([`sample_columns`]); every input
//! of the run gets the same header. On each line a field that is missing
//! (or `null`) is an empty value, a string is unescaped, a number or
//! boolean is written as it is spelled, a nested object or array as its
//! JSON text. A field outside the columns, a line that is not one JSON
//! object, or (TSV) a value with a tab or line break is an invalid record:
//! an error naming the file, line and byte offset, or counted and skipped
//! with `--skip-invalid`. Blank lines are not records.
//!
//! # Bounds
//!
//! One line at a time, plus up to [`OUT_BUFFER`] of written records; the
//! sample is at most [`SAMPLE_LINES`] lines or [`SAMPLE_BYTES`] bytes (and
//! one line), read once and then transcoded like the rest.

use std::io::{self, BufRead, Read};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::json_fields::{self, Fields};
use super::{Columns, Transcoding};
use crate::PartitionError;

/// Lines of the first input whose fields name the columns.
pub(crate) const SAMPLE_LINES: usize = 1000;
/// Bytes of the first input the sample stops after.
pub(crate) const SAMPLE_BYTES: usize = 1 << 20;
/// Written records collected before a read hands them out.
const OUT_BUFFER: usize = 256 << 10;

/// Reads the sample from `input` into `sample` (whole lines) and returns
/// the fields its objects name, in the order first seen. Lines that do
/// not parse are left for the transcoder to report.
pub(crate) fn sample_columns(
    input: &mut dyn BufRead,
    sample: &mut Vec<u8>,
) -> io::Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut seen = foldhash::HashSet::default();
    let mut lines = 0;
    while lines < SAMPLE_LINES && sample.len() < SAMPLE_BYTES {
        let start = sample.len();
        if input.read_until(b'\n', sample)? == 0 {
            break;
        }
        lines += 1;
        if let Ok(Fields(fields)) = json_fields::parse(&sample[start..]) {
            for (name, _) in fields {
                if seen.insert(name.to_string()) {
                    names.push(name.into_owned());
                }
            }
        }
    }
    Ok(names)
}

/// One NDJSON input as text records; see the module docs.
pub(crate) struct NdjsonText {
    input: Box<dyn BufRead + Send>,
    /// The input's index among the run's sources.
    file: usize,
    shared: Arc<Transcoding>,
    columns: Arc<Columns>,
    /// This input's hive key values, by column past the JSON fields.
    hive: Vec<Vec<u8>>,
    out: Vec<u8>,
    /// Bytes of `out` handed out.
    given: usize,
    line: Vec<u8>,
    line_number: u64,
    offset: u64,
    ended: bool,
}

impl NdjsonText {
    /// Reads `input`, source `file`, writing `columns` (and the header
    /// first); `hive` are the input's path key values.
    pub fn new(
        input: Box<dyn BufRead + Send>,
        file: usize,
        shared: Arc<Transcoding>,
        columns: Arc<Columns>,
        hive: Vec<Vec<u8>>,
    ) -> Self {
        let mut out = Vec::with_capacity(OUT_BUFFER + 4096);
        let names = columns.names.iter().map(|n| n.as_bytes());
        let header = shared.dialect.record(names, &mut out);
        debug_assert!(header.is_ok(), "names checked when the columns were set");
        NdjsonText {
            input,
            file,
            shared,
            columns,
            hive,
            out,
            given: 0,
            line: Vec::new(),
            line_number: 0,
            offset: 0,
            ended: false,
        }
    }

    /// Writes lines until `out` holds [`OUT_BUFFER`] bytes or the input ends.
    fn fill(&mut self) -> io::Result<()> {
        while self.out.len() < OUT_BUFFER {
            self.line.clear();
            let n = self.input.read_until(b'\n', &mut self.line)?;
            if n == 0 {
                self.ended = true;
                return Ok(());
            }
            self.line_number += 1;
            let at = self.offset;
            self.offset += n as u64;
            if self.line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let written = write_line(
                &self.line,
                &self.columns,
                &self.hive,
                &self.shared,
                &mut self.out,
            );
            if let Err(message) = written {
                self.invalid(at, message)?;
            }
        }
        Ok(())
    }

    /// A line that cannot be written: counted with `--skip-invalid`, else
    /// the run's error (kept for the reader to report, see the `blocks`
    /// module).
    #[cold]
    fn invalid(&self, offset: u64, message: String) -> io::Result<()> {
        if self.shared.skip_invalid {
            self.shared.skipped.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        Err(self.shared.fail(
            self.file,
            PartitionError::Input {
                file: self.shared.paths[self.file].display().to_string(),
                line: self.line_number,
                offset,
                message: format!("{message} (use --skip-invalid to skip such lines)"),
            },
        ))
    }
}

/// Writes one line's record to `out`.
fn write_line<'l>(
    line: &'l [u8],
    columns: &Columns,
    hive: &'l [Vec<u8>],
    shared: &Transcoding,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let Fields(fields) = json_fields::parse(line)?;
    let mut values: Vec<Option<std::borrow::Cow<'l, [u8]>>> = vec![None; columns.names.len()];
    for (name, value) in fields {
        let Some(&column) = columns.index.get(&*name) else {
            return Err(format!(
                "field {name:?} is not one of the columns ({}), which the first lines of the first input named",
                columns.names.join(", ")
            ));
        };
        values[column] = Some(json_fields::text(value));
    }
    for (&column, value) in columns.hive.iter().zip(hive) {
        values[column].get_or_insert(std::borrow::Cow::Borrowed(value));
    }
    let record = values.iter().map(|v| v.as_deref().unwrap_or(b""));
    shared.dialect.record(record, out).map_err(|_| {
        let column = values.iter().position(|v| {
            let mut probe = Vec::new();
            (shared
                .dialect
                .record([v.as_deref().unwrap_or(b"")], &mut probe))
            .is_err()
        });
        let name = column.map_or("?", |c| columns.names[c].as_str());
        format!("the value of {name:?} {}", shared.dialect.unwritable_hint())
    })
}

impl Read for NdjsonText {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.given == self.out.len() {
            if self.ended {
                return Ok(0);
            }
            self.out.clear();
            self.given = 0;
            self.fill()?;
        }
        let n = buf.len().min(self.out.len() - self.given);
        buf[..n].copy_from_slice(&self.out[self.given..self.given + n]);
        self.given += n;
        Ok(n)
    }
}
