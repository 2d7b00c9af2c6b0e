//! The table a Parquet run writes: column names (from the header, `colN`
//! without one), their types (`--schema`, strings by default), and per
//! `--by` column the Arrow schema of its files — every column but the key.
//!
//! The key column is left out of the files, as Hive and Spark do: its
//! value is in the directory name (`COL=KEY/`), every reader of a
//! hive-partitioned dataset adds it back from there, and a column present
//! in both places makes DuckDB and PyArrow disagree about which one wins.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use super::syntax::{self, Syntax};
use super::values;
use crate::PartitionError;

/// A column's type in the Parquet files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// UTF-8 text (the default).
    String,
    /// 64-bit signed integer.
    Int64,
    /// 64-bit float.
    Float64,
    /// `true`/`false`.
    Bool,
    /// A calendar day.
    Date,
    /// Microseconds, no time zone.
    Timestamp,
}

impl std::fmt::Display for ColumnType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ColumnType::String => "string",
            ColumnType::Int64 => "int64",
            ColumnType::Float64 => "float64",
            ColumnType::Bool => "bool",
            ColumnType::Date => "date",
            ColumnType::Timestamp => "timestamp",
        })
    }
}

impl ColumnType {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "string" | "str" | "utf8" => ColumnType::String,
            "int64" | "int" | "bigint" => ColumnType::Int64,
            "float64" | "double" | "float" => ColumnType::Float64,
            "bool" | "boolean" => ColumnType::Bool,
            "date" => ColumnType::Date,
            "timestamp" => ColumnType::Timestamp,
            _ => return None,
        })
    }

    pub(crate) fn arrow(self) -> DataType {
        match self {
            ColumnType::String => DataType::Utf8,
            ColumnType::Int64 => DataType::Int64,
            ColumnType::Float64 => DataType::Float64,
            ColumnType::Bool => DataType::Boolean,
            ColumnType::Date => DataType::Date32,
            ColumnType::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, None),
        }
    }

    /// Whether `value` (not empty) is a valid value of this type.
    pub fn accepts(self, value: &[u8]) -> bool {
        match self {
            ColumnType::String => std::str::from_utf8(value).is_ok(),
            ColumnType::Int64 => values::parse_i64(value).is_some(),
            ColumnType::Float64 => values::parse_f64(value).is_some(),
            ColumnType::Bool => values::parse_bool(value).is_some(),
            ColumnType::Date => values::parse_date(value).is_some(),
            ColumnType::Timestamp => values::parse_timestamp(value).is_some(),
        }
    }
}

/// `--schema 'name:type,name:type,…'` as given: the columns it names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchemaSpec(pub Vec<(String, ColumnType)>);

impl SchemaSpec {
    /// Parses `name:type` pairs separated by commas.
    ///
    /// # Errors
    ///
    /// A pair without `:`, or an unknown type (the message lists the known
    /// ones).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::parquet::{ColumnType, SchemaSpec};
    /// let spec = SchemaSpec::parse("id:int64, price:float64")?;
    /// assert_eq!(spec.0[1], ("price".to_owned(), ColumnType::Float64));
    /// assert!(SchemaSpec::parse("id:int32").is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn parse(spec: &str) -> Result<Self, PartitionError> {
        let mut columns = Vec::new();
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, kind) = pair.rsplit_once(':').ok_or_else(|| {
                PartitionError::Usage(format!("--schema {pair:?}: expected NAME:TYPE"))
            })?;
            let kind = ColumnType::parse(kind.trim()).ok_or_else(|| {
                PartitionError::Usage(format!(
                    "--schema {pair:?}: unknown type; use int64, float64, bool, date, timestamp or string"
                ))
            })?;
            columns.push((name.trim().to_owned(), kind));
        }
        Ok(SchemaSpec(columns))
    }
}

impl SchemaSpec {
    /// The type given to `name`, if any.
    pub(crate) fn type_of(&self, name: &str) -> Option<ColumnType> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, kind)| *kind)
    }

    /// The spec without the columns `names` (a dataset's hive keys, typed
    /// apart from its files' own columns).
    pub(crate) fn without(&self, names: &[&str]) -> SchemaSpec {
        SchemaSpec(
            (self.0.iter())
                .filter(|(n, _)| !names.contains(&n.as_str()))
                .cloned()
                .collect(),
        )
    }

    /// The type of each of the columns `names`: as given, else string.
    ///
    /// # Errors
    ///
    /// A name that is not one of `names`.
    pub(crate) fn types_of(&self, names: &[String]) -> Result<Vec<ColumnType>, PartitionError> {
        let mut types = vec![ColumnType::String; names.len()];
        for (name, kind) in &self.0 {
            let index = names.iter().position(|n| n == name).ok_or_else(|| {
                PartitionError::Usage(format!(
                    "--schema names {name:?}, which is not a column; the columns are: {}",
                    names.join(", ")
                ))
            })?;
            types[index] = *kind;
        }
        Ok(types)
    }
}

/// The resolved table: every column's name and type, and each grouping's
/// file schema.
#[derive(Debug)]
pub struct Table {
    /// Column names, in input order.
    pub names: Vec<String>,
    /// Column types, in input order.
    pub types: Vec<ColumnType>,
    /// Per grouping: the input column left out (the key) and the schema of
    /// its files.
    pub files: Vec<(usize, SchemaRef)>,
}

impl Table {
    /// Resolves `spec` against the input's column `names`; `keys` are the
    /// `--by` columns' indexes.
    ///
    /// # Errors
    ///
    /// A `--schema` name that is not a column, or a `--by` column outside
    /// the table.
    pub fn new(
        names: Vec<String>,
        spec: &SchemaSpec,
        keys: &[usize],
    ) -> Result<Self, PartitionError> {
        let types = spec.types_of(&names)?;
        if names.len() < 2 {
            return Err(only_the_key());
        }
        let files = keys
            .iter()
            .map(|&key| {
                if key >= names.len() {
                    return Err(PartitionError::Usage(format!(
                        "--by column {} is past the last of the {} columns",
                        key + 1,
                        names.len()
                    )));
                }
                let fields: Vec<Field> = (0..names.len())
                    .filter(|&i| i != key)
                    .map(|i| Field::new(&names[i], types[i].arrow(), true))
                    .collect();
                Ok((key, Arc::new(Schema::new(fields))))
            })
            .collect::<Result<_, _>>()?;
        Ok(Table {
            names,
            types,
            files,
        })
    }

    /// Whether `record` (without its line break, split by `syntax`) fits
    /// the table: the first field whose unquoted value its column's type
    /// does not accept, or a field count other than the table's. Empty
    /// fields are NULL and always fit.
    ///
    /// # Errors
    ///
    /// The [`Misfit`].
    pub fn check<'a>(&self, record: &'a [u8], syntax: Syntax) -> Result<(), Misfit<'a>> {
        // In a valid UTF-8 record every value is valid UTF-8 (see
        // `splits_on_ascii`): string columns then need no check of their own.
        let utf8 = syntax.splits_on_ascii() && std::str::from_utf8(record).is_ok();
        let mut bad = None;
        let mut count = 0;
        syntax::for_each_value(record, syntax, |i, value| {
            count += 1;
            if bad.is_none() && !value.is_empty() {
                if let Some(&kind) = self.types.get(i) {
                    let valid_string = utf8 && kind == ColumnType::String;
                    if !(valid_string || kind.accepts(&value)) {
                        bad = Some((i, value));
                    }
                }
            }
        });
        if count != self.names.len() {
            return Err(Misfit::Fields(count));
        }
        match bad {
            Some((column, value)) => Err(Misfit::Value { column, value }),
            None => Ok(()),
        }
    }
}

/// Why a record does not fit a [`Table`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misfit<'a> {
    /// Field `column` (from 0) holds `value` (unquoted), which its type
    /// does not accept.
    Value {
        /// The field's index.
        column: usize,
        /// Its unquoted value.
        value: Cow<'a, [u8]>,
    },
    /// The record has this many fields, not the table's number.
    Fields(usize),
}

/// The refusal of Parquet output from inputs whose only column is the
/// `--by` column (a Parquet file needs a column; the key is in the path).
pub(crate) fn only_the_key() -> PartitionError {
    PartitionError::Usage("--format parquet needs a column besides the --by column".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use spool::text::csv::Dialect;
    use spool_io::read::RecordFormat;

    fn table() -> Table {
        let names = vec!["k".to_owned(), "n".to_owned(), "s".to_owned()];
        let spec = SchemaSpec::parse("n:int64").unwrap();
        Table::new(names, &spec, &[0]).unwrap()
    }

    /// A string column's value that is not UTF-8 is found whether the
    /// record is checked whole (ASCII delimiters) or value by value (a
    /// delimiter byte that can sit inside a UTF-8 character).
    #[test]
    fn string_values_are_checked_with_either_delimiter() {
        let table = table();
        let tsv = Syntax::new(RecordFormat::Lines, b'\t', b'\n');
        assert_eq!(table.check(b"a\t1\tgr\xc3\xbcn", tsv), Ok(()));
        let bad = table.check(b"a\t1\t\xff", tsv);
        assert!(
            matches!(bad, Err(Misfit::Value { column: 2, .. })),
            "{bad:?}"
        );
        let csv = Syntax::new(RecordFormat::Csv(Dialect::CSV), b',', b'\n');
        assert_eq!(table.check(b"a,1,\"x,\xc3\xbc\"", csv), Ok(()));
        assert!(table.check(b"a,1,\"\xc3\"", csv).is_err());
        // 0xA7 splits the two bytes of U+00A7 ("§"): the record is valid
        // UTF-8, its values are not.
        let odd = Syntax::new(RecordFormat::Lines, 0xA7, b'\n');
        assert!(!odd.splits_on_ascii());
        let record = "a§1§s".as_bytes();
        assert!(std::str::from_utf8(record).is_ok());
        let bad = table.check(record, odd);
        assert!(
            matches!(bad, Err(Misfit::Value { column: 0, .. })),
            "{bad:?}"
        );
    }
}
