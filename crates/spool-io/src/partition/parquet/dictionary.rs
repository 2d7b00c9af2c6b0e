//! Which string columns of a part file are written with a dictionary,
//! chosen from the values of the file's first batch.
//!
//! A dictionary pays off where a column's values repeat (a colour, a
//! country, a status): each value is stored once and the column becomes
//! small integers. Where nearly every value is distinct (ids, names, free
//! text) it costs twice: arrow-rs hashes and interns every value into a
//! dictionary that ends as large as the column, writes that dictionary and
//! the indices besides, and falls back to plain pages only once the
//! dictionary passes 1 MiB — which a partition's column chunk often never
//! reaches. Polars decides per column from the share of distinct values (a
//! dictionary while at most three quarters are distinct), nanoparquet from
//! a file's first 10,000 rows; spool decides per file, from its first
//! batch, for each string column:
//!
//! | first batch's non-NULL values (at most [`SAMPLE`] looked at) | encoding |
//! |---|---|
//! | fewer than [`MIN_SAMPLE`] | dictionary (too few to tell; arrow-rs's fallback bounds the cost) |
//! | more than three quarters distinct | `DELTA_LENGTH_BYTE_ARRAY` |
//! | otherwise | dictionary |
//!
//! A string column without a dictionary (and a dictionary's fallback,
//! should it pass arrow-rs's 1 MiB) is written `DELTA_LENGTH_BYTE_ARRAY`,
//! not `PLAIN`: every value's length first, bit-packed, then the values'
//! bytes back to back, the encoding the Parquet specification prefers to
//! `PLAIN` for byte arrays. What matters here is the compressor: `PLAIN`
//! puts a 4-byte length before each value, and those mostly-zero bytes
//! give zstd's match finder short repeats to chase all through the text.
//! On the benchmark's free-text column, zstd level 3 compressed `PLAIN`
//! pages of 300 KiB–1 MiB at about 80 MB/s and the same values back to
//! back at about 500 MB/s, into 1.5% fewer bytes (a 1 GiB CSV into 1,000
//! keys: user CPU 15.6–15.9 s before, 10.2–10.8 s after; dataset 478 MB
//! before, 462 MB after). DuckDB, Polars, PyArrow and Spark read it.
//!
//! Numbers, dates, timestamps and booleans never get one (see
//! [`file_properties`](super::file_properties)). A file keeps its choice
//! for all its row groups: a writer's properties are fixed when it is
//! created.

use std::collections::HashSet;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Schema};
use parquet::basic::Encoding;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

/// Most values of a column looked at to choose.
pub const SAMPLE: usize = 4096;

/// Fewest values of a column that can turn its dictionary off.
pub const MIN_SAMPLE: usize = 64;

/// Which columns of one file get a dictionary, by field of the file's
/// schema.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// use spool_io::partition::parquet::Dictionaries;
/// let colours = (0..1000).map(|i| ["red", "green", "blue"][i % 3]);
/// let names = (0..1000).map(|i| format!("name {i}"));
/// let batch = RecordBatch::try_from_iter([
///     ("id", Arc::new(Int64Array::from_iter_values(0..1000)) as ArrayRef),
///     ("colour", Arc::new(StringArray::from_iter_values(colours)) as ArrayRef),
///     ("name", Arc::new(StringArray::from_iter_values(names)) as ArrayRef),
/// ])?;
/// let chosen = Dictionaries::sampled(&batch);
/// assert_eq!(chosen.columns(), &[false, true, false]);
/// assert_eq!(Dictionaries::strings(&batch.schema()).columns(), &[false, true, true]);
/// # Ok::<(), arrow_schema::ArrowError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dictionaries(Vec<bool>);

impl Dictionaries {
    /// Every string column of `schema`: the choice for a file with
    /// nothing to look at.
    pub fn strings(schema: &Schema) -> Self {
        Dictionaries(
            (schema.fields().iter())
                .map(|field| field.data_type() == &DataType::Utf8)
                .collect(),
        )
    }

    /// The choice for a file whose first batch is `batch` (see the module
    /// docs).
    pub fn sampled(batch: &RecordBatch) -> Self {
        Dictionaries(
            (batch.columns().iter())
                .map(|column| column.as_string_opt::<i32>().is_some_and(repeats))
                .collect(),
        )
    }

    /// Whether each field of the file's schema gets a dictionary.
    pub fn columns(&self) -> &[bool] {
        &self.0
    }

    /// The run's `properties` with dictionary encoding on for exactly
    /// these columns of `schema`, and every string column's encoding
    /// without one (or past its dictionary) `DELTA_LENGTH_BYTE_ARRAY`.
    ///
    /// # Examples
    ///
    /// ```
    /// use arrow_schema::{DataType, Field, Schema};
    /// use parquet::basic::Encoding;
    /// use parquet::schema::types::ColumnPath;
    /// use spool_io::partition::parquet::{Dictionaries, ParquetOptions};
    /// let run = ParquetOptions::default().writer_properties(1 << 20)?;
    /// let schema = Schema::new(vec![Field::new("name", DataType::Utf8, true)]);
    /// let file = Dictionaries::strings(&schema).properties(&run, &schema);
    /// let name = ColumnPath::from("name");
    /// assert!(file.dictionary_enabled(&name));
    /// assert_eq!(file.encoding(&name), Some(Encoding::DELTA_LENGTH_BYTE_ARRAY));
    /// # Ok::<(), spool_io::partition::PartitionError>(())
    /// ```
    pub fn properties(&self, properties: &WriterProperties, schema: &Schema) -> WriterProperties {
        (schema.fields().iter().zip(&self.0))
            .filter(|(field, _)| field.data_type() == &DataType::Utf8)
            .fold(properties.clone().into_builder(), |builder, (field, &on)| {
                let column = || ColumnPath::from(field.name().as_str());
                builder
                    .set_column_dictionary_enabled(column(), on)
                    .set_column_encoding(column(), Encoding::DELTA_LENGTH_BYTE_ARRAY)
            })
            .build()
    }
}

/// Whether the first [`SAMPLE`] non-NULL values of `strings` repeat
/// enough for a dictionary (see the module docs).
fn repeats(strings: &StringArray) -> bool {
    let mut seen: HashSet<&str, foldhash::fast::FixedState> =
        HashSet::with_capacity_and_hasher(SAMPLE.min(strings.len()), Default::default());
    let mut sampled = 0;
    for value in strings.iter().flatten().take(SAMPLE) {
        sampled += 1;
        seen.insert(value);
    }
    sampled < MIN_SAMPLE || seen.len() * 4 <= sampled * 3
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(values: impl IntoIterator<Item = Option<String>>) -> StringArray {
        values.into_iter().collect()
    }

    #[test]
    fn too_few_values_keep_the_dictionary() {
        let distinct = strings((0..MIN_SAMPLE - 1).map(|i| Some(i.to_string())));
        assert!(repeats(&distinct));
        let with_nulls =
            strings((0..2 * (MIN_SAMPLE - 1)).map(|i| (i % 2 == 0).then(|| i.to_string())));
        assert!(repeats(&with_nulls), "NULLs are not values");
    }

    #[test]
    fn three_quarters_distinct_is_the_line() {
        let n = 400;
        let at_line = strings((0..n).map(|i| Some((i % (n * 3 / 4)).to_string())));
        assert!(repeats(&at_line));
        let past = strings((0..n).map(|i| Some((i % (n * 3 / 4 + 1)).to_string())));
        assert!(!repeats(&past));
    }

    #[test]
    fn only_the_sample_is_looked_at() {
        let repeating_then_distinct = strings(
            (0..SAMPLE)
                .map(|i| Some((i % 10).to_string()))
                .chain((0..10 * SAMPLE).map(|i| Some(format!("distinct {i}")))),
        );
        assert!(repeats(&repeating_then_distinct));
    }
}
