//! The `csv` crate as the reference reader: every record's field values,
//! blank lines skipped, records of any width, no header.

use spool::text::csv::Dialect;

/// The records and field values the `csv` crate reads from `input`.
pub fn csv_crate(input: &[u8], dialect: Dialect) -> Vec<Vec<Vec<u8>>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(dialect.delimiter())
        .quoting(dialect.quote().is_some())
        .quote(dialect.quote().unwrap_or(b'"'))
        .from_reader(input);
    reader
        .byte_records()
        .map(|r| {
            let record = r.expect("csv reads from memory");
            record.iter().map(<[u8]>::to_vec).collect()
        })
        .collect()
}
