//! Which string columns of a part file are written with a dictionary,
//! chosen from the values of the file's first batch, and how the others
//! are encoded.
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
//! Numbers, dates, timestamps and booleans never get one (see
//! [`file_properties`](super::file_properties)). A file keeps its choice
//! for all its row groups: a writer's properties are fixed when it is
//! created.
//!
//! # Strings without a dictionary
//!
//! A string column without a dictionary is written
//! `DELTA_LENGTH_BYTE_ARRAY` (unless the run asks for
//! [`Encodings::Plain`](super::Encodings)): a page's value lengths first,
//! bit-packed, then the values' bytes back to back — the encoding the
//! Parquet specification prefers to `PLAIN` for byte arrays. What matters
//! most is the compressor: `PLAIN` puts a 4-byte length before each value,
//! and those mostly-zero bytes give zstd's match finder short repeats to
//! chase all through the page. On the benchmark's free-text column zstd
//! level 3 compressed 1 MiB pages of `PLAIN` at 78 MB/s, and the same
//! values back to back at 270 MB/s, 8% smaller (figures for whole runs
//! are in docs/perf/partition-parquet.md, "Strings without a dictionary").
//!
//! A dictionary column's fallback, for a chunk whose dictionary passes
//! arrow-rs's 1 MiB, stays `PLAIN`: arrow-rs builds the fallback encoder
//! with the column, used or not, and a delta-length one reserves 1 MiB
//! for its lengths (see [`DELTA_LENGTHS_RESERVE`](super::DELTA_LENGTHS_RESERVE)).
//!
//! Numbers stay `PLAIN`. `DELTA_BINARY_PACKED` made the benchmark's
//! dataset another 3% smaller and its run about 5% cheaper in user CPU,
//! but arrow-rs's encoder reserves a 1 MiB buffer per column and reports
//! it in `ArrowWriter::memory_size`: charged as reported, each int column
//! of an open writer would count 1 MiB before its first value, so the
//! budget would admit fewer writers and flush their row groups early.

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
    /// without one `DELTA_LENGTH_BYTE_ARRAY` (see the module docs), unless
    /// the run set an encoding of its own.
    ///
    /// # Examples
    ///
    /// ```
    /// use arrow_schema::{DataType, Field, Schema};
    /// use parquet::schema::types::ColumnPath;
    /// use spool_io::partition::parquet::{Dictionaries, ParquetOptions};
    /// let run = ParquetOptions::default().writer_properties(1 << 20)?;
    /// let schema = Schema::new(vec![Field::new("name", DataType::Utf8, true)]);
    /// let file = Dictionaries::strings(&schema).properties(&run, &schema);
    /// let name = ColumnPath::from("name");
    /// assert!(file.dictionary_enabled(&name));
    /// assert_eq!(file.encoding(&name), None); // PLAIN past the dictionary
    /// # Ok::<(), spool_io::partition::PartitionError>(())
    /// ```
    pub fn properties(&self, properties: &WriterProperties, schema: &Schema) -> WriterProperties {
        (schema.fields().iter().zip(&self.0))
            .fold(
                properties.clone().into_builder(),
                |builder, (field, &on)| {
                    let column = ColumnPath::from(field.name().as_str());
                    let builder = match field.data_type() {
                        DataType::Utf8 => builder.set_column_dictionary_enabled(column.clone(), on),
                        _ => builder,
                    };
                    // A dictionary's fallback stays `PLAIN` (arrow-rs creates
                    // it with the column, used or not: see the module docs);
                    // the run's own encoding (`Encodings::Plain`) stands.
                    match delta_encoding(field.data_type()) {
                        Some(delta) if !on && properties.encoding(&column).is_none() => {
                            builder.set_column_encoding(column, delta)
                        }
                        _ => builder,
                    }
                },
            )
            .build()
    }
}

/// The encoding of a column of `data_type` without a dictionary (or past
/// it), if it is not `PLAIN` (see the module docs).
fn delta_encoding(data_type: &DataType) -> Option<Encoding> {
    match data_type {
        DataType::Utf8 => Some(Encoding::DELTA_LENGTH_BYTE_ARRAY),
        _ => None,
    }
}

/// Whether the first [`SAMPLE`] non-NULL values of `strings` repeat
/// enough for a dictionary (see the module docs).
///
/// It stops as soon as the answer is known: once more than three quarters
/// of the sample are distinct (free text: at 3,073 values of 4,096), or
/// once the values repeated are more than a quarter (a colour: about a
/// thousand). A file's first batch is looked at for every part file, and
/// looking at all 4,096 of each string column was about 2% of the writers'
/// time on 1 GiB of CSV into 1,000 keys.
fn repeats(strings: &StringArray) -> bool {
    let sample = (strings.len() - strings.null_count()).min(SAMPLE);
    if sample < MIN_SAMPLE {
        return true;
    }
    let mut seen: HashSet<&str, foldhash::fast::FixedState> =
        HashSet::with_capacity_and_hasher(sample, Default::default());
    for (looked, value) in strings.iter().flatten().take(sample).enumerate() {
        seen.insert(value);
        let repeated = looked + 1 - seen.len();
        if seen.len() * 4 > sample * 3 {
            return false;
        }
        // At most this many distinct in the end.
        if (sample - repeated) * 4 <= sample * 3 {
            return true;
        }
    }
    seen.len() * 4 <= sample * 3
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

    proptest::proptest! {
        /// Stopping early gives what looking at the whole sample gives.
        #[test]
        fn stopping_early_changes_nothing(
            values in proptest::collection::vec(proptest::option::of(0u16..3000), 0..5000),
        ) {
            let strings = strings(values.iter().map(|v| v.map(|v| v.to_string())));
            let sampled: Vec<&str> = strings.iter().flatten().take(SAMPLE).collect();
            let distinct = sampled.iter().collect::<HashSet<_>>().len();
            let whole = sampled.len() < MIN_SAMPLE || distinct * 4 <= sampled.len() * 3;
            proptest::prop_assert_eq!(repeats(&strings), whole);
        }
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

    fn schema() -> Schema {
        use arrow_schema::{Field, TimeUnit};
        Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("day", DataType::Date32, true),
            Field::new("at", DataType::Timestamp(TimeUnit::Microsecond, None), true),
            Field::new("price", DataType::Float64, true),
            Field::new("paid", DataType::Boolean, true),
            Field::new("name", DataType::Utf8, true),
            Field::new("colour", DataType::Utf8, true),
        ])
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
        use crate::partition::parquet::ParquetOptions;
        let run = ParquetOptions::default()
            .writer_properties(1 << 20)
            .unwrap();
        let schema = schema();
        let chosen = Dictionaries(vec![false, false, false, false, false, false, true]);
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
        use crate::partition::parquet::{Encodings, ParquetOptions};
        let options = ParquetOptions {
            encodings: Encodings::Plain,
            ..Default::default()
        };
        let run = options.writer_properties(1 << 20).unwrap();
        let schema = schema();
        let chosen = Dictionaries(vec![false, false, false, false, false, false, true]);
        let got = encodings(&chosen.properties(&run, &schema), &schema);
        assert!(
            got.iter().all(|&(_, e)| e == Some(Encoding::PLAIN)),
            "{got:?}"
        );
        assert_eq!(got.iter().filter(|(on, _)| *on).count(), 1);
    }
}
