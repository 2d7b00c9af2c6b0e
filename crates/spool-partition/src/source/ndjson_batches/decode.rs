//! One piece of NDJSON lines into typed record batches: arrow-json's
//! [`Decoder`] reads the lines into string columns, and the `--schema`
//! columns are parsed with the CSV value parsers; a piece that does not
//! decode is read again to say why (see the parent module's docs).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_json::reader::{Decoder, ReaderBuilder};
use arrow_schema::{Field, Schema, SchemaRef};

use super::Lines;
use crate::parquet::batch::ColumnBuilder;
use crate::parquet::ColumnType;
use crate::source::json_fields::{self, Fields};
use crate::source::ndjson::not_a_column;
use crate::source::parquet_text::BATCH_ROWS;
use crate::source::Transcoding;
use crate::PartitionError;

/// The columns of a run's NDJSON sources and their types.
pub(crate) struct NdjsonTable {
    names: Vec<String>,
    types: Vec<ColumnType>,
    /// Every column as a string, as the decoder reads them.
    strings: SchemaRef,
    /// Every column in its type: the batches'.
    schema: SchemaRef,
}

impl NdjsonTable {
    /// The columns `names`, of `types`.
    pub fn new(names: Vec<String>, types: Vec<ColumnType>) -> Self {
        let field = |name: &String, kind: ColumnType| Field::new(name, kind.arrow(), true);
        let strings = names.iter().map(|n| field(n, ColumnType::String));
        let typed = names.iter().zip(&types).map(|(n, &t)| field(n, t));
        NdjsonTable {
            strings: Arc::new(Schema::new(strings.collect::<Vec<_>>())),
            schema: Arc::new(Schema::new(typed.collect::<Vec<_>>())),
            names,
            types,
        }
    }

    /// The batches' schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn decoder(&self) -> Decoder {
        ReaderBuilder::new(self.strings.clone())
            .with_batch_size(BATCH_ROWS)
            .with_coerce_primitive(true)
            .with_strict_mode(true)
            .build_decoder()
            .expect("string columns decode")
    }

    /// `strings` (as decoded) with every typed column parsed.
    ///
    /// # Errors
    ///
    /// The first value a column's type does not accept, as a message.
    fn typed(&self, strings: RecordBatch) -> Result<RecordBatch, String> {
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.types.len());
        for (i, column) in strings.columns().iter().enumerate() {
            let kind = self.types[i];
            if kind == ColumnType::String {
                columns.push(column.clone());
                continue;
            }
            let mut builder = ColumnBuilder::new(kind);
            for value in column.as_string::<i32>() {
                let Some(value) = value else {
                    builder.push_null();
                    continue;
                };
                if !builder.push(value.as_bytes()) {
                    return Err(format!(
                        "field {:?}: {value:?} is not a valid {kind} value",
                        self.names[i]
                    ));
                }
            }
            columns.push(builder.finish().map_err(|e| e.to_string())?);
        }
        RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| e.to_string())
    }
}

/// A decoding thread's decoder: pieces to batches.
pub(super) struct PieceDecoder {
    table: Arc<NdjsonTable>,
    decoder: Decoder,
    pub(super) shared: Arc<Transcoding>,
    /// Whether nested values are written as text before a piece's first try.
    nested_first: bool,
}

impl PieceDecoder {
    pub(super) fn new(table: Arc<NdjsonTable>, shared: Arc<Transcoding>) -> Self {
        PieceDecoder {
            decoder: table.decoder(),
            table,
            shared,
            nested_first: false,
        }
    }

    /// The batches of `piece`, read again as the module docs say if it
    /// does not decode to one row per line.
    pub(super) fn batches(&mut self, piece: &Lines) -> Result<Vec<RecordBatch>, PartitionError> {
        let lines = &piece.bytes[..];
        if !self.nested_first {
            if let Ok(batches) = self.decode(lines, piece.records) {
                return Ok(batches);
            }
        }
        if let Some(rewritten) = nested_as_text(lines) {
            if let Ok(batches) = self.decode(&rewritten, piece.records) {
                self.nested_first = true;
                return Ok(batches);
            }
        } else if self.nested_first {
            if let Ok(batches) = self.decode(lines, piece.records) {
                return Ok(batches);
            }
        }
        self.line_by_line(piece)
    }

    /// `piece`'s lines one by one: the invalid ones reported or skipped,
    /// the others decoded together.
    fn line_by_line(&mut self, piece: &Lines) -> Result<Vec<RecordBatch>, PartitionError> {
        let mut good = Vec::with_capacity(piece.bytes.len());
        let (mut number, mut offset) = (piece.lines, piece.offset);
        for line in piece.bytes.split_inclusive(|&b| b == b'\n') {
            number += 1;
            let at = offset;
            offset += line.len() as u64;
            if blank(line) {
                continue;
            }
            let rewritten = nested_as_text(line);
            let candidate = rewritten.as_deref().unwrap_or(line);
            match self.decode(candidate, 1) {
                Ok(_) => {
                    good.extend_from_slice(candidate);
                    if !candidate.ends_with(b"\n") {
                        good.push(b'\n');
                    }
                }
                Err(decoded) => {
                    let message = self.why(line, decoded);
                    (self.shared).skip_or(|| self.invalid(piece.file, number, at, message))?;
                }
            }
        }
        // Every line of `good` decoded alone, to one row.
        let rows = memchr::memchr_iter(b'\n', &good).count();
        self.decode(&good, rows)
            .map_err(|message| self.invalid(piece.file, piece.lines + 1, piece.offset, message))
    }

    /// The error for line `number` (at byte `offset`) of source `file`.
    fn invalid(&self, file: usize, number: u64, offset: u64, message: String) -> PartitionError {
        PartitionError::Input {
            file: self.shared.paths[file].display().to_string(),
            line: number,
            offset,
            message: format!("{message} (use --skip-invalid to skip such lines)"),
        }
    }

    /// Why `line` does not decode (`decoded`: the decoder's word): the
    /// JSON parser's message, or the field outside the columns, or the
    /// decoder's.
    fn why(&self, line: &[u8], decoded: String) -> String {
        let names = &self.table.names;
        match json_fields::parse(line) {
            Err(message) => message,
            Ok(Fields(fields)) => {
                match fields.iter().find(|(n, _)| !names.iter().any(|c| c == n)) {
                    Some((name, _)) => not_a_column(name, names),
                    None => decoded,
                }
            }
        }
    }

    /// `lines` (whole lines) as batches of `rows` rows in all (a line
    /// holding two objects, or one object over two lines, does not add
    /// up); on an error the decoder starts afresh.
    fn decode(&mut self, lines: &[u8], rows: usize) -> Result<Vec<RecordBatch>, String> {
        let result = decode_all(&mut self.decoder, &self.table, lines).and_then(|batches| {
            let decoded: usize = batches.iter().map(RecordBatch::num_rows).sum();
            match decoded == rows {
                true => Ok(batches),
                false => Err(format!("{decoded} JSON objects on {rows} lines")),
            }
        });
        if result.is_err() {
            self.decoder = self.table.decoder();
        }
        result
    }
}

fn decode_all(
    decoder: &mut Decoder,
    table: &NdjsonTable,
    lines: &[u8],
) -> Result<Vec<RecordBatch>, String> {
    let mut batches = Vec::new();
    let mut at = 0;
    loop {
        at += decoder.decode(&lines[at..]).map_err(|e| e.to_string())?;
        let full = at < lines.len();
        if let Some(strings) = decoder.flush().map_err(|e| e.to_string())? {
            batches.push(table.typed(strings)?);
        }
        if !full {
            return Ok(batches);
        }
    }
}

/// Whether `line` holds nothing but white space (not a record).
pub(super) fn blank(line: &[u8]) -> bool {
    line.first() != Some(&b'{') && line.iter().all(u8::is_ascii_whitespace)
}

/// `lines` with every nested object or array written as a JSON string of
/// its text; `None` if no line has one (or none parses).
fn nested_as_text(lines: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut changed = false;
    for line in lines.split_inclusive(|&b| b == b'\n') {
        let Ok(Fields(fields)) = json_fields::parse(line) else {
            out.extend_from_slice(line);
            continue;
        };
        let nested = |raw: &str| matches!(raw.as_bytes()[0], b'{' | b'[');
        if !fields.iter().any(|(_, v)| nested(v.get())) {
            out.extend_from_slice(line);
            continue;
        }
        changed = true;
        out.push(b'{');
        for (i, (name, value)) in fields.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            serde_json::to_writer(&mut out, name).expect("writes to a Vec");
            out.push(b':');
            let raw = value.get();
            if nested(raw) {
                serde_json::to_writer(&mut out, raw).expect("writes to a Vec");
            } else {
                out.extend_from_slice(raw.as_bytes());
            }
        }
        out.extend_from_slice(b"}\n");
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_values_become_their_text() {
        let lines = b"{\"a\":{\"x\":[1, 2]},\"b\":\"s\"}\n{\"a\":\"plain\"}\n";
        let out = nested_as_text(lines).expect("a nested value");
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            "{\"a\":\"{\\\"x\\\":[1, 2]}\",\"b\":\"s\"}\n{\"a\":\"plain\"}\n"
        );
        assert!(nested_as_text(b"{\"a\":1}\n{\"b\":null}\n").is_none());
    }
}
