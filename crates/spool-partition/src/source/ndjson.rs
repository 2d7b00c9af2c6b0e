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

use std::io::{self, BufRead};

use super::json_fields::{self, Fields};
use super::text_reader::{Records, TextReader};
use super::{Columns, Target, Transcoding};
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
fn sample_columns(input: &mut dyn BufRead, sample: &mut Vec<u8>) -> io::Result<Vec<String>> {
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

/// The columns the first lines of `input` (the file at `path`) name,
/// read into `sample`; `None` for an input of blank lines only, which
/// leaves the columns to the next input.
///
/// # Errors
///
/// The input cannot be read, or none of its first lines is a JSON
/// object with fields (a usage error naming `path`).
pub(crate) fn input_columns(
    input: &mut dyn BufRead,
    sample: &mut Vec<u8>,
    path: &std::path::Path,
) -> Result<Option<Vec<String>>, PartitionError> {
    let read_error = |e| spool_io::input::with_path(e, path);
    let names = sample_columns(input, sample).map_err(read_error)?;
    let blank = sample.iter().all(u8::is_ascii_whitespace);
    if blank && input.fill_buf().map_err(read_error)?.is_empty() {
        return Ok(None);
    }
    if names.is_empty() {
        return Err(PartitionError::Usage(format!(
            "{}: no line among its first {SAMPLE_LINES} is a JSON object with fields, so it names \
             no columns for --by (NDJSON needs one object per line)",
            path.display(),
        )));
    }
    Ok(Some(names))
}

/// One NDJSON input's records; see the module docs.
pub(crate) struct NdjsonText {
    input: Box<dyn BufRead + Send>,
    to: Target,
    line: Vec<u8>,
    line_number: u64,
    offset: u64,
}

impl NdjsonText {
    /// Reads `input` as records of `to`'s columns, after their header.
    pub fn reader(input: Box<dyn BufRead + Send>, to: Target) -> TextReader<Self> {
        let header = to.header();
        let records = NdjsonText {
            input,
            to,
            line: Vec::new(),
            line_number: 0,
            offset: 0,
        };
        TextReader::new(records, header)
    }
}

impl Records for NdjsonText {
    /// Writes lines until `out` holds [`OUT_BUFFER`] bytes or the input ends.
    fn more(&mut self, out: &mut Vec<u8>) -> io::Result<bool> {
        while out.len() < OUT_BUFFER {
            self.line.clear();
            let n = self.input.read_until(b'\n', &mut self.line)?;
            if n == 0 {
                return Ok(false);
            }
            self.line_number += 1;
            let at = self.offset;
            self.offset += n as u64;
            if self.line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let (columns, hive, shared) = (&self.to.columns, &self.to.hive, &self.to.shared);
            if let Err(message) = write_line(&self.line, columns, hive, shared, out) {
                let (file, line) = (self.to.file, self.line_number);
                self.to.shared.invalid(file, || PartitionError::Input {
                    file: shared.paths[file].display().to_string(),
                    line,
                    offset: at,
                    message: format!("{message} (use --skip-invalid to skip such lines)"),
                })?;
            }
        }
        Ok(true)
    }
}

/// Why a line's field `name` cannot be written: it is not one of `columns`.
pub(crate) fn not_a_column(name: &str, columns: &[String]) -> String {
    format!(
        "field {name:?} is not one of the columns ({}), which the first lines of the first input named",
        columns.join(", ")
    )
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
            return Err(not_a_column(&name, &columns.names));
        };
        values[column] = Some(json_fields::text(value)?);
    }
    for (&column, value) in columns.hive.iter().zip(hive) {
        values[column].get_or_insert(std::borrow::Cow::Borrowed(value));
    }
    let record = values.iter().map(|v| v.as_deref().unwrap_or(b""));
    shared.dialect.record(record, out).map_err(|_| {
        let values = values.iter().map(|v| v.as_deref().unwrap_or(b""));
        shared.dialect.unwritable(&columns.names, values)
    })
}
