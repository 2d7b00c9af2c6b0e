//! Column references (`--by`, `--where`) and their resolution against a
//! header.

use regex::bytes::Regex;

use crate::PartitionError;

/// A column as the user wrote it: a header name, or a 1-based number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnRef(pub String);

/// A resolved column: its 0-based index and the name used in paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// 0-based field index.
    pub index: usize,
    /// The header name, or `colN` (1-based) without a header.
    pub name: String,
}

impl ColumnRef {
    /// Resolves against the header's field names (if the input has one): an
    /// exact header name wins, then a 1-based number.
    ///
    /// # Errors
    ///
    /// An unknown name, or a name given without a header.
    pub fn resolve(&self, header: Option<&[&str]>) -> Result<Column, PartitionError> {
        if let Some(names) = header {
            if let Some(index) = names.iter().position(|n| *n == self.0) {
                return Ok(Column {
                    index,
                    name: self.0.clone(),
                });
            }
        }
        match self.0.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Column {
                index: n - 1,
                name: match header.and_then(|names| names.get(n - 1)) {
                    Some(name) => (*name).to_owned(),
                    None => format!("col{n}"),
                },
            }),
            Ok(_) => Err(PartitionError::Usage(format!(
                "column {:?}: columns count from 1 (the first column is 1)",
                self.0
            ))),
            Err(_) => Err(PartitionError::Usage(match header {
                Some(names) => format!(
                    "no column named {:?}; the header has: {}{}",
                    self.0,
                    names.join(", "),
                    delimiter_hint(names)
                ),
                None => format!("column {:?} is not a number; names need --header", self.0),
            })),
        }
    }
}

/// A hint when the header read as one field holds a likely delimiter
/// (a comma-separated file read with the default tab, say).
fn delimiter_hint(names: &[&str]) -> &'static str {
    match names {
        [one] if [',', ';', '|', '\t'].iter().any(|d| one.contains(*d)) => {
            " (one field: is --delimiter right?)"
        }
        _ => "",
    }
}

/// Refuses a grouping given twice: both would write the same files.
///
/// # Errors
///
/// The first column that repeats an earlier one, with both spellings.
pub(crate) fn check_distinct(by: &[ColumnRef], columns: &[Column]) -> Result<(), PartitionError> {
    for (i, column) in columns.iter().enumerate() {
        if let Some(j) = columns[..i].iter().position(|c| c.index == column.index) {
            let same = if by[i] == by[j] {
                format!("--by {:?} is given twice", by[i].0)
            } else {
                format!(
                    "--by {:?} and --by {:?} are the same column ({})",
                    by[j].0, by[i].0, column.name
                )
            };
            return Err(PartitionError::Usage(format!(
                "{same}; give each grouping once"
            )));
        }
    }
    Ok(())
}

/// A `--where` condition: `COL~REGEX` (keep matching records) or
/// `COL!~REGEX` (keep the others). The regex is compiled once and runs on
/// the field's bytes.
#[derive(Clone, Debug)]
pub struct Filter {
    /// The column tested.
    pub column: ColumnRef,
    /// The pattern.
    pub regex: Regex,
    /// Keep records that do *not* match.
    pub negate: bool,
}

impl Filter {
    /// Parses `COL~REGEX` or `COL!~REGEX`.
    ///
    /// # Errors
    ///
    /// A missing `~` or an invalid regex, with the regex error's message.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::Filter;
    /// let f = Filter::parse("status!~^(4|5)")?;
    /// assert!(f.negate && f.regex.is_match(b"404"));
    /// assert!(Filter::parse("no-tilde").is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn parse(spec: &str) -> Result<Filter, PartitionError> {
        let (column, pattern, negate) = match spec.split_once('~') {
            Some((col, pat)) => match col.strip_suffix('!') {
                Some(col) => (col, pat, true),
                None => (col, pat, false),
            },
            None => {
                return Err(PartitionError::Usage(format!(
                    "--where {spec:?}: expected COLUMN~REGEX or COLUMN!~REGEX"
                )))
            }
        };
        let regex = Regex::new(pattern)
            .map_err(|e| PartitionError::Usage(format!("--where {spec:?}: {e}")))?;
        Ok(Filter {
            column: ColumnRef(column.to_owned()),
            regex,
            negate,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_win_over_numbers() {
        let header = ["id", "2", "city"];
        let c = ColumnRef("2".into()).resolve(Some(&header)).unwrap();
        assert_eq!((c.index, c.name.as_str()), (1, "2"));
        let c = ColumnRef("3".into()).resolve(Some(&header)).unwrap();
        assert_eq!((c.index, c.name.as_str()), (2, "city"));
        let c = ColumnRef("4".into()).resolve(None).unwrap();
        assert_eq!((c.index, c.name.as_str()), (3, "col4"));
        assert!(ColumnRef("town".into()).resolve(Some(&header)).is_err());
        let one = ["k,v"];
        let said = ColumnRef("k".into()).resolve(Some(&one)).unwrap_err();
        assert!(
            said.to_string()
                .ends_with("the header has: k,v (one field: is --delimiter right?)"),
            "{said}"
        );
        let two = ColumnRef("town".into()).resolve(Some(&header)).unwrap_err();
        assert!(!two.to_string().contains("--delimiter"), "{two}");
        let zero = ColumnRef("0".into()).resolve(None).unwrap_err();
        assert!(zero.to_string().contains("count from 1"), "{zero}");
        assert!(ColumnRef("city".into()).resolve(None).is_err());
    }

    #[test]
    fn a_grouping_given_twice_is_refused() {
        let header = ["id", "city"];
        let by = |names: &[&str]| {
            names
                .iter()
                .map(|n| ColumnRef((*n).into()))
                .collect::<Vec<_>>()
        };
        let resolve = |by: &[ColumnRef]| {
            by.iter()
                .map(|c| c.resolve(Some(&header)).unwrap())
                .collect::<Vec<_>>()
        };
        let twice = by(&["2", "2"]);
        let err = check_distinct(&twice, &resolve(&twice)).unwrap_err();
        assert!(err.to_string().contains("\"2\" is given twice"), "{err}");
        let aliased = by(&["city", "2"]);
        let err = check_distinct(&aliased, &resolve(&aliased)).unwrap_err();
        assert!(err.to_string().contains("same column (city)"), "{err}");
        let distinct = by(&["id", "city"]);
        assert!(check_distinct(&distinct, &resolve(&distinct)).is_ok());
    }
}
