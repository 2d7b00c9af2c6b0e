//! The records the router cannot route: a quote never closed, a record
//! with too few fields, a record whose typed values do not parse
//! (Parquet). Each is an error that names the user's file, line and byte
//! offset — or, with `--skip-invalid`, a count in the summary.
//!
//! Kept apart from the routing loop, which stays small and hot: every
//! function here is on the cold path, called once a record has already
//! failed.

use std::path::PathBuf;

use spool::text::csv::UnterminatedQuote;
use spool_io::read::FieldRecord;

use crate::parquet::{Misfit, Table};
use crate::PartitionError;

/// What to do with an invalid record: stop the run with an error naming
/// it, or skip it and count it (`--skip-invalid`).
pub(crate) struct InvalidRecords<'a> {
    /// The inputs, to name a record's file.
    inputs: &'a [PathBuf],
    /// `--skip-invalid`.
    skip: bool,
    /// Records skipped.
    skipped: u64,
}

impl<'a> InvalidRecords<'a> {
    /// Errors that name one of `inputs`; `skip` counts instead.
    pub fn new(inputs: &'a [PathBuf], skip: bool) -> Self {
        InvalidRecords {
            inputs,
            skip,
            skipped: 0,
        }
    }

    /// Records skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// An error about `record` of input `file`.
    pub fn error<'b>(
        &self,
        file: usize,
        record: &impl FieldRecord<'b>,
        message: String,
    ) -> PartitionError {
        PartitionError::Input {
            file: self.inputs[file].display().to_string(),
            line: record.line(),
            offset: record.offset(),
            message,
        }
    }

    /// An input ends inside a quoted field: everything from the record
    /// that holds the opening quote to the end of the input would be one
    /// record. Skipped as one invalid record with `--skip-invalid`.
    #[cold]
    pub fn unterminated(
        &mut self,
        file: usize,
        e: UnterminatedQuote,
    ) -> Result<(), PartitionError> {
        if self.skip {
            self.skipped += 1;
            return Ok(());
        }
        Err(PartitionError::Input {
            file: self.inputs[file].display().to_string(),
            line: e.line,
            offset: e.offset,
            message: "unterminated quote: the quoted field opened here is never closed, so \
                      the rest of the input would be one field (close the quote, or use \
                      --skip-invalid to skip the record it starts)"
                .into(),
        })
    }

    /// `record` has no field `index` (0-based).
    #[cold]
    pub fn too_few_fields<'b>(
        &mut self,
        file: usize,
        record: &impl FieldRecord<'b>,
        index: usize,
    ) -> Result<(), PartitionError> {
        if self.skip {
            self.skipped += 1;
            return Ok(());
        }
        let fields = record.field_count();
        Err(self.error(
            file,
            record,
            format!(
                "record has {fields} field(s), column {} is needed (use --skip-invalid to skip such records)",
                index + 1
            ),
        ))
    }

    /// `record` does not fit the Parquet `table`, as `misfit` says.
    #[cold]
    pub fn misfit<'b>(
        &mut self,
        file: usize,
        record: &impl FieldRecord<'b>,
        table: &Table,
        misfit: Misfit<'_>,
    ) -> Result<(), PartitionError> {
        if self.skip {
            self.skipped += 1;
            return Ok(());
        }
        let message = match misfit {
            Misfit::Value { column, value } => format!(
                "column {} ({}): {:?} is not a valid {} value",
                column + 1,
                table.names[column],
                String::from_utf8_lossy(&value),
                table.types[column]
            ),
            Misfit::Fields(fields) => format!(
                "record has {fields} field(s), the table has {}",
                table.names.len()
            ),
        };
        Err(self.error(
            file,
            record,
            format!("{message} (use --skip-invalid to skip such records)"),
        ))
    }
}
