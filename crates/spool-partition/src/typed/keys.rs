//! A key column's values as the bytes a key is: a string's or binary's
//! own bytes, any other value as Arrow displays it (`42`, `2026-05-01`,
//! `12.50`), null as the empty key — the same text a CSV or Parquet-to-CSV
//! run would route on, so one dataset's keys do not depend on the input's
//! format.

use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::DataType;

use crate::PartitionError;

/// Whether a column of `data_type` can be a key: no nested values.
///
/// # Errors
///
/// A list, struct, map or union column, named.
pub(crate) fn check_key_type(name: &str, data_type: &DataType) -> Result<(), PartitionError> {
    if data_type.is_nested() {
        return Err(PartitionError::Usage(format!(
            "--by {name}: the column is {data_type}; a key is a column of plain values"
        )));
    }
    Ok(())
}

/// `column` as Arrow can display it: a timestamp with a named zone
/// (`Europe/Berlin`, which Arrow displays only with a time zone database
/// this crate leaves out) as the same instants in UTC (`+00:00`); any other
/// column as it is.
pub(crate) fn displayable(column: &ArrayRef) -> Result<ArrayRef, PartitionError> {
    let DataType::Timestamp(unit, Some(_)) = column.data_type() else {
        return Ok(column.clone());
    };
    let utc = DataType::Timestamp(*unit, Some("+00:00".into()));
    let data = column.to_data().into_builder().data_type(utc).build();
    data.map(arrow_array::make_array)
        .map_err(|e| PartitionError::Usage(e.to_string()))
}

/// Calls `each(row, key)` for every row of `column`.
///
/// # Errors
///
/// A value Arrow cannot display.
pub(crate) fn for_each_key(
    column: &ArrayRef,
    mut each: impl FnMut(usize, &[u8]) -> Result<(), PartitionError>,
) -> Result<(), PartitionError> {
    let rows = column.len();
    match column.data_type() {
        DataType::Utf8 => {
            let strings = column.as_string::<i32>();
            for row in 0..rows {
                each(
                    row,
                    key_bytes(strings.is_valid(row), || strings.value(row).as_bytes()),
                )?;
            }
        }
        DataType::LargeUtf8 => {
            let strings = column.as_string::<i64>();
            for row in 0..rows {
                each(
                    row,
                    key_bytes(strings.is_valid(row), || strings.value(row).as_bytes()),
                )?;
            }
        }
        DataType::Utf8View => {
            let strings = column.as_string_view();
            for row in 0..rows {
                each(
                    row,
                    key_bytes(strings.is_valid(row), || strings.value(row).as_bytes()),
                )?;
            }
        }
        DataType::Binary => {
            let bytes = column.as_binary::<i32>();
            for row in 0..rows {
                each(row, key_bytes(bytes.is_valid(row), || bytes.value(row)))?;
            }
        }
        _ => {
            let options = FormatOptions::new().with_null("");
            let column = displayable(column)?;
            let formatter = ArrayFormatter::try_new(column.as_ref(), &options)
                .map_err(|e| PartitionError::Usage(e.to_string()))?;
            let mut text = Vec::new();
            for row in 0..rows {
                text.clear();
                write!(text, "{}", formatter.value(row)).map_err(PartitionError::Io)?;
                each(row, &text)?;
            }
        }
    }
    Ok(())
}

#[inline]
fn key_bytes<'a>(valid: bool, value: impl FnOnce() -> &'a [u8]) -> &'a [u8] {
    if valid {
        value()
    } else {
        b""
    }
}
