//! What `--format parquet` adds to a run's options, and the writer
//! properties every part file of the run is written with: the codec, the
//! row group and page sizes, and per column whether it gets a dictionary
//! and how values without one are encoded.

use arrow_schema::{DataType, Schema};
use parquet::basic::{Compression as Codec, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::dictionary::Dictionaries;
use super::schema::SchemaSpec;
use crate::PartitionError;

/// Rows in a row group unless `--row-group-size` says otherwise (arrow-rs's
/// default; memory pressure makes row groups smaller, never larger).
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1 << 20;

/// How column chunks are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParquetCompression {
    /// Uncompressed pages.
    None,
    /// Snappy.
    Snappy,
    /// Zstandard at a level (1–22).
    Zstd(i32),
}

/// How the values of string columns without a dictionary are laid out in
/// pages (numbers are always `PLAIN`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encodings {
    /// `DELTA_LENGTH_BYTE_ARRAY` (see the [`dictionary`](super::dictionary) module): smaller
    /// files, and far less work for zstd. Read by DuckDB, Polars, PyArrow,
    /// arrow-rs, Spark 3.3 and later, Trino, parquet-mr.
    #[default]
    Delta,
    /// `PLAIN`, for readers that predate the delta encodings (Spark's
    /// vectorized reader before 3.3, for one).
    Plain,
}

/// What `--format parquet` adds to a run's options.
#[derive(Clone, Debug)]
pub struct ParquetOptions {
    /// Declared column types; the others are strings.
    pub schema: SchemaSpec,
    /// Most rows in a row group.
    pub row_group_size: usize,
    /// Column chunk compression.
    pub compression: ParquetCompression,
    /// Page encodings of columns without a dictionary.
    pub encodings: Encodings,
}

impl ParquetOptions {
    /// The properties every part file of a run is written with, row groups
    /// being flushed at `row_group_bytes` in memory.
    ///
    /// # Errors
    ///
    /// A zstd level the codec refuses.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::parquet::{ParquetCompression, ParquetOptions};
    /// let options = ParquetOptions::default();
    /// let properties = options.writer_properties(1 << 20)?;
    /// assert_eq!(properties.max_row_group_row_count(), Some(options.row_group_size));
    /// let wrong = ParquetOptions { compression: ParquetCompression::Zstd(99), ..options };
    /// assert!(wrong.writer_properties(1 << 20).is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn writer_properties(
        &self,
        row_group_bytes: usize,
    ) -> Result<WriterProperties, PartitionError> {
        let codec = match self.compression {
            ParquetCompression::None => Codec::UNCOMPRESSED,
            ParquetCompression::Snappy => Codec::SNAPPY,
            ParquetCompression::Zstd(level) => Codec::ZSTD(
                ZstdLevel::try_new(level)
                    .map_err(|e| PartitionError::Usage(format!("--level {level}: {e}")))?,
            ),
        };
        let rows = self.row_group_size.max(1);
        let builder = match self.encodings {
            // Each file sets its columns' encodings (`Dictionaries`).
            Encodings::Delta => WriterProperties::builder(),
            // Run-wide, so a file's columns keep it.
            Encodings::Plain => WriterProperties::builder().set_encoding(Encoding::PLAIN),
        };
        Ok(builder
            // Per column, string columns only: see `file_properties`.
            .set_dictionary_enabled(false)
            .set_compression(codec)
            .set_max_row_group_row_count(Some(rows))
            // One page per column chunk: compressed once, at the flush.
            .set_data_page_row_count_limit(rows)
            .set_data_page_size_limit(row_group_bytes)
            .set_created_by(format!("spool {}", env!("CARGO_PKG_VERSION")))
            .build())
    }
}

/// The properties of a file of `schema` before its first batch is known:
/// the run's `properties` with dictionary encoding on for the string
/// columns only. A file's own choice, from its first batch, may turn some
/// off (see [`Dictionaries`]).
///
/// A dictionary pays off where values repeat; a string column (a colour,
/// a country, a status) is where they usually do, and where a reader gains
/// most from it. Numbers, dates and timestamps of a partition are mostly
/// distinct: arrow-rs would hash every value into a dictionary that ends
/// as large as the column, write both, and fall back to plain only past
/// 1 MiB of dictionary — which a partition's column chunk often never
/// reaches. Plain pages of such columns compress as well under zstd.
///
/// # Examples
///
/// ```
/// use arrow_schema::{DataType, Field, Schema};
/// use parquet::schema::types::ColumnPath;
/// use spool_partition::parquet::{file_properties, ParquetOptions};
/// let run = ParquetOptions::default().writer_properties(1 << 20)?;
/// let schema = Schema::new(vec![
///     Field::new("id", DataType::Int64, true),
///     Field::new("name", DataType::Utf8, true),
/// ]);
/// let file = file_properties(&run, &schema);
/// assert!(!file.dictionary_enabled(&ColumnPath::from("id")));
/// assert!(file.dictionary_enabled(&ColumnPath::from("name")));
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
pub fn file_properties(properties: &WriterProperties, schema: &Schema) -> WriterProperties {
    Dictionaries::strings(schema).properties(properties, schema)
}

/// The columns of `schema` written with a dictionary: its strings (see
/// [`file_properties`]).
pub fn dictionary_columns(schema: &Schema) -> impl Iterator<Item = &arrow_schema::FieldRef> {
    (schema.fields().iter()).filter(|field| field.data_type() == &DataType::Utf8)
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            schema: SchemaSpec::default(),
            row_group_size: DEFAULT_ROW_GROUP_ROWS,
            compression: ParquetCompression::Zstd(3),
            encodings: Encodings::Delta,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        ArrayRef, BooleanArray, Date32Array, Float64Array, Int64Array, RecordBatch, StringArray,
        TimestampMicrosecondArray,
    };
    use parquet::schema::types::ColumnPath;

    use super::*;

    /// A first batch of every column type, whose `name` column is all
    /// distinct and whose `colour` repeats: the sampled choice gives a
    /// dictionary to `colour` only.
    fn batch() -> RecordBatch {
        let n = 100;
        let columns: [(&str, ArrayRef); 7] = [
            ("id", Arc::new(Int64Array::from_iter_values(0..n))),
            ("day", Arc::new(Date32Array::from_iter_values(0..n as i32))),
            (
                "at",
                Arc::new(TimestampMicrosecondArray::from_iter_values(0..n)),
            ),
            (
                "price",
                Arc::new(Float64Array::from_iter_values((0..n).map(|i| i as f64))),
            ),
            (
                "paid",
                Arc::new(BooleanArray::from_iter((0..n).map(|i| Some(i % 2 == 0)))),
            ),
            (
                "name",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("name {i}")),
                )),
            ),
            (
                "colour",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| ["red", "green", "blue"][i as usize % 3]),
                )),
            ),
        ];
        RecordBatch::try_from_iter(columns).unwrap()
    }

    fn encodings(file: &WriterProperties, schema: &Schema) -> Vec<(bool, Option<Encoding>)> {
        (schema.fields().iter())
            .map(|field| {
                let column = ColumnPath::from(field.name().as_str());
                (file.dictionary_enabled(&column), file.encoding(&column))
            })
            .collect()
    }

    #[test]
    fn strings_without_a_dictionary_get_delta_lengths() {
        let run = ParquetOptions::default()
            .writer_properties(1 << 20)
            .unwrap();
        let batch = batch();
        let chosen = Dictionaries::sampled(&batch);
        assert_eq!(
            chosen.columns(),
            [false, false, false, false, false, false, true]
        );
        let schema = batch.schema();
        let lengths = Some(Encoding::DELTA_LENGTH_BYTE_ARRAY);
        assert_eq!(
            encodings(&chosen.properties(&run, &schema), &schema),
            [
                (false, None),
                (false, None),
                (false, None),
                (false, None),
                (false, None),
                (false, lengths),
                (true, None), // PLAIN past the dictionary
            ]
        );
    }

    #[test]
    fn a_plain_run_keeps_plain_everywhere() {
        let options = ParquetOptions {
            encodings: Encodings::Plain,
            ..Default::default()
        };
        let run = options.writer_properties(1 << 20).unwrap();
        let batch = batch();
        let chosen = Dictionaries::sampled(&batch);
        let schema = batch.schema();
        let got = encodings(&chosen.properties(&run, &schema), &schema);
        assert!(
            got.iter().all(|&(_, e)| e == Some(Encoding::PLAIN)),
            "{got:?}"
        );
        assert_eq!(got.iter().filter(|(on, _)| *on).count(), 1);
    }
}
