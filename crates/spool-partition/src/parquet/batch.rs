//! Records of one group (text, as the router buffered them) into an Arrow
//! [`RecordBatch`] for that group's file: each column parsed with the
//! [`values`](super::values) parsers, the key column left out.
//!
//! Building a batch checks every record against the table (field count,
//! every value parses, the key's value included): unless the router
//! checked it already (see the crate's `rescan` module), this is where a
//! value that does not fit is found. The writer knows neither the
//! file nor the line, so it reports an [`Unfit`], and the run reads its
//! inputs again to name them.

use std::fmt;
use std::io;
use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Float64Builder, Int64Builder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch, StringArray};

use super::schema::{ColumnType, Table};
use super::syntax::Syntax;
use super::values;

/// One column's values, parsed as its type while they are pushed.
pub(crate) enum ColumnBuilder {
    /// A string column's bytes, checked as UTF-8 once, whole, when the
    /// batch is finished (value by value it costs a call per value).
    String(BinaryBuilder),
    Int64(Int64Builder),
    Float64(Float64Builder),
    Bool(BooleanBuilder),
    Date(Date32Builder),
    Timestamp(TimestampMicrosecondBuilder),
}

impl ColumnBuilder {
    pub(crate) fn new(kind: ColumnType) -> Self {
        match kind {
            ColumnType::String => ColumnBuilder::String(BinaryBuilder::new()),
            ColumnType::Int64 => ColumnBuilder::Int64(Int64Builder::new()),
            ColumnType::Float64 => ColumnBuilder::Float64(Float64Builder::new()),
            ColumnType::Bool => ColumnBuilder::Bool(BooleanBuilder::new()),
            ColumnType::Date => ColumnBuilder::Date(Date32Builder::new()),
            ColumnType::Timestamp => ColumnBuilder::Timestamp(TimestampMicrosecondBuilder::new()),
        }
    }

    /// Appends `value` (NULL when empty); `false` if it does not parse.
    #[inline]
    pub(crate) fn push(&mut self, value: &[u8]) -> bool {
        if value.is_empty() {
            self.push_null();
            return true;
        }
        match self {
            ColumnBuilder::String(b) => b.append_value(value),
            ColumnBuilder::Int64(b) => return push_parsed(b, values::parse_i64(value)),
            ColumnBuilder::Float64(b) => return push_parsed(b, values::parse_f64(value)),
            ColumnBuilder::Bool(b) => match values::parse_bool(value) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Date(b) => return push_parsed(b, values::parse_date(value)),
            ColumnBuilder::Timestamp(b) => return push_parsed(b, values::parse_timestamp(value)),
        }
        true
    }

    pub(crate) fn push_null(&mut self) {
        match self {
            ColumnBuilder::String(b) => b.append_null(),
            ColumnBuilder::Int64(b) => b.append_null(),
            ColumnBuilder::Float64(b) => b.append_null(),
            ColumnBuilder::Bool(b) => b.append_null(),
            ColumnBuilder::Date(b) => b.append_null(),
            ColumnBuilder::Timestamp(b) => b.append_null(),
        }
    }

    /// The column; an [`Unfit`] if a string column's bytes are not UTF-8.
    pub(crate) fn finish(&mut self) -> io::Result<ArrayRef> {
        Ok(match self {
            ColumnBuilder::String(b) => Arc::new(
                StringArray::try_from_binary(b.finish())
                    .map_err(|e| Unfit::error(format!("a string value is not UTF-8: {e}")))?,
            ),
            ColumnBuilder::Int64(b) => Arc::new(b.finish()),
            ColumnBuilder::Float64(b) => Arc::new(b.finish()),
            ColumnBuilder::Bool(b) => Arc::new(b.finish()),
            ColumnBuilder::Date(b) => Arc::new(b.finish()),
            ColumnBuilder::Timestamp(b) => Arc::new(b.finish()),
        })
    }
}

fn push_parsed<T: arrow_array::types::ArrowPrimitiveType>(
    b: &mut arrow_array::builder::PrimitiveBuilder<T>,
    v: Option<T::Native>,
) -> bool {
    match v {
        Some(v) => {
            b.append_value(v);
            true
        }
        None => false,
    }
}

/// A record that does not fit the table, found by a writer thread, which
/// cannot say where it came from (see the module docs).
#[derive(Debug)]
pub(crate) struct Unfit(String);

impl Unfit {
    fn error(what: String) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, Unfit(what))
    }

    /// Whether `e` is an [`Unfit`].
    pub fn is(e: &io::Error) -> bool {
        e.get_ref().is_some_and(|inner| inner.is::<Unfit>())
    }
}

impl fmt::Display for Unfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a record does not fit the table: {}", self.0)
    }
}

impl std::error::Error for Unfit {}

/// Builds batches for one grouping's files.
pub(crate) struct BatchBuilder {
    table: Arc<Table>,
    grouping: usize,
    syntax: Syntax,
}

impl BatchBuilder {
    pub fn new(table: Arc<Table>, grouping: usize, syntax: Syntax) -> Self {
        BatchBuilder {
            table,
            grouping,
            syntax,
        }
    }

    /// The whole records at the start of `text` as one batch, and their
    /// length in bytes (what follows is a record cut at a buffer's end;
    /// see [`Syntax::for_each_record`]).
    ///
    /// # Errors
    ///
    /// An [`Unfit`] for a record that does not fit the table.
    pub fn build(&self, text: &[u8]) -> io::Result<(RecordBatch, usize)> {
        let (key, schema) = &self.table.files[self.grouping];
        let key = *key;
        let key_type = self.table.types[key];
        let mut builders: Vec<ColumnBuilder> = (0..self.table.types.len())
            .filter(|&i| i != key)
            .map(|i| ColumnBuilder::new(self.table.types[i]))
            .collect();
        let columns = self.table.types.len();
        // The key is not in the file, but typed all the same. `text` is one
        // group's records, and the router grouped them by the key's
        // unquoted value, which `for_each_value` gives byte for byte as
        // the router read it: the first record's key is every record's.
        let mut key_checked = false;
        let whole = self.syntax.for_each_record(text, |record| {
            let mut ok = true;
            let mut count = 0;
            record.for_each_value(|i, value| {
                count += 1;
                if i < columns && i != key {
                    let slot = if i < key { i } else { i - 1 };
                    ok &= builders[slot].push(&value);
                } else if i == key && !key_checked {
                    ok &= value.is_empty() || key_type.accepts(&value);
                    key_checked = true;
                }
            });
            if !ok || count != columns {
                return Err(Unfit::error(format!(
                    "{:?}",
                    String::from_utf8_lossy(&record.bytes()[..record.bytes().len().min(200)])
                )));
            }
            Ok(())
        })?;
        let arrays = builders
            .iter_mut()
            .map(ColumnBuilder::finish)
            .collect::<io::Result<_>>()?;
        let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(io::Error::other)?;
        Ok((batch, whole))
    }
}
