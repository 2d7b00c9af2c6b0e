//! A Parquet file read as records of the run's text dialect, for text
//! output (`--format text`): a header of the column names (then the hive
//! keys), and each row's values as Arrow displays them: numbers and
//! decimals as written, dates and timestamps in ISO 8601 (a timestamp
//! with a zone as its UTC time, `+00:00`), binary as hex, nested values in Arrow's text
//! form, null as an empty value.
//!
//! A Parquet run with Parquet output never comes here: it keeps the
//! types (see the `typed` module).
//!
//! # Bounds
//!
//! One record batch of [`BATCH_ROWS`] rows decoded at a time, and its
//! text.

use std::io::{self, Write};

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, FieldRef, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::basic::Type as PhysicalType;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;

use super::text_reader::{Records, TextReader};
use super::Target;
use crate::PartitionError;

/// Rows decoded at a time.
pub(crate) const BATCH_ROWS: usize = 8192;

/// Opens `input` (at `path`: a file, or a remote object's bytes) for
/// reading in batches of [`BATCH_ROWS`]; `seen` is shown the file's
/// metadata once its footer is read. INT96 timestamps are read as
/// microseconds ([`int96_as_micros`]).
///
/// # Errors
///
/// Not a Parquet file, or one whose footer cannot be read; the message
/// names the path.
pub(crate) fn open_reader<T: ChunkReader + 'static>(
    input: T,
    path: &std::path::Path,
    seen: impl FnOnce(&ParquetMetaData),
) -> Result<ParquetRecordBatchReader, PartitionError> {
    let mut arrow = ArrowReaderMetadata::load(&input, ArrowReaderOptions::new())
        .map_err(|e| not_parquet(path, e))?;
    if let Some(schema) = int96_as_micros(&arrow) {
        let options = ArrowReaderOptions::new().with_schema(schema);
        arrow = ArrowReaderMetadata::try_new(arrow.metadata().clone(), options)
            .map_err(|e| not_parquet(path, e))?;
    }
    seen(arrow.metadata());
    (ParquetRecordBatchReaderBuilder::new_with_metadata(input, arrow))
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| not_parquet(path, e))
}

/// The schema to read a file with whose INT96 columns arrow-rs would
/// read as nanoseconds: those columns (at the top level, or inside a
/// struct, list or map) as microseconds in UTC; `None` when there are
/// none, or when the file says its Arrow types itself (its writer chose
/// the unit).
///
/// INT96 is the timestamp of Spark (its default), Hive and Impala: days
/// and nanoseconds of the day, for instants of years 1 to 9999. Without
/// the Arrow schema a PyArrow writer stores, arrow-rs reads it as
/// nanoseconds since 1970 in an `i64`, which holds only 1677 to 2262:
/// the dates users give for "none" (0001-01-01, 9999-12-31) would wrap
/// into other dates without a word. Spark writes microseconds and means
/// an instant, so that is what the column becomes (Spark reads it back
/// as its `timestamp` type).
fn int96_as_micros(arrow: &ArrowReaderMetadata) -> Option<SchemaRef> {
    let file = arrow.metadata().file_metadata();
    let has_arrow_schema =
        (file.key_value_metadata()).is_some_and(|kv| kv.iter().any(|kv| kv.key == "ARROW:schema"));
    let int96: Vec<bool> = (file.schema_descr().columns().iter())
        .map(|c| c.physical_type() == PhysicalType::INT96)
        .collect();
    if has_arrow_schema || !int96.contains(&true) {
        return None;
    }
    let schema = arrow.schema();
    let mut leaves = int96.into_iter();
    let fields: Vec<_> = (schema.fields().iter())
        .map(|field| with_int96_as_micros(field, &mut leaves))
        .collect();
    Some(Arc::new(Schema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    )))
}

/// `field` with its INT96 leaves as microseconds in UTC. `int96` says, for
/// each Parquet leaf column in order, whether it is INT96: Arrow's leaves,
/// depth first, are the Parquet leaf columns in the same order.
fn with_int96_as_micros(field: &FieldRef, int96: &mut impl Iterator<Item = bool>) -> FieldRef {
    let mut nested = |child: &FieldRef| with_int96_as_micros(child, int96);
    let data_type = match field.data_type() {
        DataType::Struct(children) => DataType::Struct(children.iter().map(nested).collect()),
        DataType::List(child) => DataType::List(nested(child)),
        DataType::LargeList(child) => DataType::LargeList(nested(child)),
        DataType::FixedSizeList(child, n) => DataType::FixedSizeList(nested(child), *n),
        DataType::Map(entries, sorted) => DataType::Map(nested(entries), *sorted),
        leaf => return int96_leaf(field, leaf, int96.next()),
    };
    Arc::new(field.as_ref().clone().with_data_type(data_type))
}

/// `field` (of type `leaf`) as microseconds in UTC if it is a nanosecond
/// timestamp read from INT96.
fn int96_leaf(field: &FieldRef, leaf: &DataType, is_int96: Option<bool>) -> FieldRef {
    match (leaf, is_int96) {
        (DataType::Timestamp(TimeUnit::Nanosecond, zone), Some(true)) => {
            let zone = zone.clone().unwrap_or_else(|| "UTC".into());
            let micros = DataType::Timestamp(TimeUnit::Microsecond, Some(zone));
            Arc::new(field.as_ref().clone().with_data_type(micros))
        }
        _ => field.clone(),
    }
}

/// An error reading `path` as Parquet.
pub(crate) fn not_parquet(path: &std::path::Path, e: impl std::fmt::Display) -> PartitionError {
    PartitionError::Io(io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: cannot be read as Parquet: {e}", path.display()),
    ))
}

/// One Parquet input's records; see the module docs.
pub(crate) struct ParquetText {
    reader: ParquetRecordBatchReader,
    to: Target,
    rows: u64,
}

impl ParquetText {
    /// Reads `reader` as records of `to`'s columns, after their header.
    pub fn reader(reader: ParquetRecordBatchReader, to: Target) -> TextReader<Self> {
        let header = to.header();
        let records = ParquetText {
            reader,
            to,
            rows: 0,
        };
        TextReader::new(records, header)
    }

    /// An error about this file, kept for the reader to report.
    fn fail(&self, e: impl std::fmt::Display) -> io::Error {
        let path = &self.to.shared.paths[self.to.file];
        self.to.shared.fail(self.to.file, not_parquet(path, e))
    }

    fn write_batch(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> io::Result<()> {
        let options = FormatOptions::new().with_null("");
        let columns = (batch.columns().iter())
            .map(crate::typed::displayable)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.fail(e))?;
        let formatters = (columns.iter())
            .map(|array| ArrayFormatter::try_new(array.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.fail(e))?;
        let width = self.to.columns.names.len();
        let mut values: Vec<Vec<u8>> = vec![Vec::new(); width];
        for (&column, value) in self.to.columns.hive.iter().zip(&self.to.hive) {
            if column >= formatters.len() {
                values[column].clone_from(value);
            }
        }
        for row in 0..batch.num_rows() {
            self.rows += 1;
            for (value, formatter) in values.iter_mut().zip(&formatters) {
                value.clear();
                write!(value, "{}", formatter.value(row))?;
            }
            let record = values.iter().map(Vec::as_slice);
            if self.to.shared.dialect.record(record, out).is_err() {
                let (path, row) = (&self.to.shared.paths[self.to.file], self.rows);
                let values = values.iter().map(Vec::as_slice);
                let message = self
                    .to
                    .shared
                    .dialect
                    .unwritable(&self.to.columns.names, values);
                self.to.shared.invalid(self.to.file, || {
                    PartitionError::Usage(format!(
                        "{}: row {row}: {message} (use --skip-invalid to skip such rows)",
                        path.display()
                    ))
                })?;
            }
        }
        Ok(())
    }
}

impl Records for ParquetText {
    /// Writes the next batch's rows.
    fn more(&mut self, out: &mut Vec<u8>) -> io::Result<bool> {
        match self.reader.next() {
            None => Ok(false),
            Some(Err(e)) => Err(self.fail(format!("after row {}: {e}", self.rows))),
            Some(Ok(batch)) => self.write_batch(&batch, out).map(|()| true),
        }
    }
}

/// Checks that `this` (the schema of `path`) has the columns and types of
/// `first` (the first Parquet input's, at `first_path`); nullability and
/// metadata may differ.
///
/// # Errors
///
/// The first column that differs, naming both files.
pub(crate) fn check_schema(
    first: &arrow_schema::Schema,
    first_path: &std::path::Path,
    this: &arrow_schema::Schema,
    path: &std::path::Path,
) -> Result<(), PartitionError> {
    let names = |s: &arrow_schema::Schema| -> Vec<String> {
        s.fields().iter().map(|f| f.name().clone()).collect()
    };
    let differs = |what: String| {
        Err(PartitionError::Usage(format!(
            "{}: {what}, in {}: inputs of one run hold the same columns",
            path.display(),
            first_path.display()
        )))
    };
    if names(first) != names(this) {
        return differs(format!(
            "the columns are [{}], not [{}]",
            names(this).join(", "),
            names(first).join(", ")
        ));
    }
    for (a, b) in first.fields().iter().zip(this.fields()) {
        if a.data_type() != b.data_type() {
            return differs(format!(
                "column {:?} is {}, not {}",
                a.name(),
                b.data_type(),
                a.data_type()
            ));
        }
    }
    Ok(())
}
