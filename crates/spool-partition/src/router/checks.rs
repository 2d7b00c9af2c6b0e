//! The records the router cannot simply route: an input's header (it
//! names the columns and is written at the top of every file), a record
//! whose typed values do not parse (Parquet), a quote never closed, and a
//! record with too few fields. Each is an error that names the user's
//! file, line and byte offset — or, with `--skip-invalid`, a count in the
//! summary. Kept apart from the routing loop, which stays small and hot.

use std::borrow::Cow;
use std::sync::Arc;

use super::Router;
use crate::parquet::{Misfit, Table};
use crate::{OutputFormat, PartitionError};
use spool_io::read::FieldRecord;
use spool::text::csv::UnterminatedQuote;

impl Router<'_> {
    /// Handles an input's first record in header mode: its unquoted field
    /// values name the columns.
    pub(super) fn take_header<'b>(
        &mut self,
        file: usize,
        record: &impl FieldRecord<'b>,
    ) -> Result<(), PartitionError> {
        let body = record.bytes();
        match &self.header {
            None => {
                let values: Vec<Cow<'_, [u8]>> = (0..record.field_count())
                    .map(|i| record.value(i).expect("counted"))
                    .collect();
                let names = values
                    .iter()
                    .map(|v| std::str::from_utf8(v))
                    .collect::<Result<Vec<&str>, _>>()
                    .map_err(|e| {
                        self.input_error(file, record, format!("header is not valid UTF-8: {e}"))
                    })?;
                self.resolve_columns(Some(&names))?;
                self.set_table(names.iter().map(|n| (*n).to_owned()).collect())?;
                // Written as read, so a CRLF header stays CRLF like the
                // records under it, and quoted names stay quoted.
                let mut line = record.raw().to_vec();
                let ended = line.last() == Some(&self.options.read.delimiter)
                    || (self.options.quote.is_some() && line.last() == Some(&b'\r'));
                if !ended {
                    line.push(self.options.read.delimiter);
                }
                // A Parquet file has its column names in its schema.
                if self.parquet.is_none() {
                    self.buffers.set_header(line);
                }
                self.header = Some(body.to_vec());
            }
            Some(first) => {
                if first[..] != *body {
                    return Err(self.input_error(
                        file,
                        record,
                        format!(
                            "header differs from the first input's header ({})",
                            self.options.inputs[0].display()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Sets the Parquet table from the column names (the header's, or
    /// `colN` for each field of the first record).
    pub(super) fn set_table(&mut self, names: Vec<String>) -> Result<(), PartitionError> {
        let (Some(run), OutputFormat::Parquet(p)) = (&self.parquet, &self.options.format) else {
            return Ok(());
        };
        let keys: Vec<usize> = self.columns.iter().map(|c| c.index).collect();
        let table = Table::new(names, &p.schema, &keys)?;
        let _ = run.table.set(Arc::new(table));
        Ok(())
    }

    /// Checks a record against the Parquet table (unless the writers check
    /// it: see the `rescan` module); `false` to skip it (`--skip-invalid`).
    pub(super) fn check_typed<'b>(
        &mut self,
        file: usize,
        record: &impl FieldRecord<'b>,
    ) -> Result<bool, PartitionError> {
        let run = self.parquet.clone().expect("a parquet run");
        if run.table.get().is_none() {
            let fields = record.field_count();
            self.set_table((1..=fields).map(|i| format!("col{i}")).collect())?;
        }
        if self.writers_check {
            return Ok(true);
        }
        let table = run.table.get().expect("just set");
        let message = match table.check(record.bytes(), run.syntax) {
            Ok(()) => return Ok(true),
            Err(Misfit::Value { column, value }) => format!(
                "column {} ({}): {:?} is not a valid {} value",
                column + 1,
                table.names[column],
                String::from_utf8_lossy(&value),
                table.types[column]
            ),
            Err(Misfit::Fields(fields)) => format!(
                "record has {fields} field(s), the table has {}",
                table.names.len()
            ),
        };
        if self.options.skip_invalid {
            self.summary.skipped_invalid += 1;
            return Ok(false);
        }
        Err(self.input_error(
            file,
            record,
            format!("{message} (use --skip-invalid to skip such records)"),
        ))
    }

    /// An input ends inside a quoted field: everything from the record
    /// that holds the opening quote to the end of the input would be one
    /// record. Skipped as one invalid record with `--skip-invalid`.
    #[cold]
    pub(super) fn unterminated(
        &mut self,
        file: usize,
        e: UnterminatedQuote,
    ) -> Result<(), PartitionError> {
        if self.options.skip_invalid {
            self.summary.records_in += 1;
            self.summary.skipped_invalid += 1;
            return Ok(());
        }
        Err(PartitionError::Input {
            file: self.options.inputs[file].display().to_string(),
            line: e.line,
            offset: e.offset,
            message: "unterminated quote: the quoted field opened here is never closed, so \
                      the rest of the input would be one field (close the quote, or use \
                      --skip-invalid to skip the record it starts)"
                .into(),
        })
    }

    pub(super) fn input_error<'b>(
        &self,
        file: usize,
        record: &impl FieldRecord<'b>,
        message: String,
    ) -> PartitionError {
        PartitionError::Input {
            file: self.options.inputs[file].display().to_string(),
            line: record.line(),
            offset: record.offset(),
            message,
        }
    }

    pub(super) fn invalid<'b>(
        &mut self,
        file: usize,
        record: &impl FieldRecord<'b>,
        index: usize,
    ) -> Result<(), PartitionError> {
        if self.options.skip_invalid {
            self.summary.skipped_invalid += 1;
            return Ok(());
        }
        let fields = record.field_count();
        Err(self.input_error(
            file,
            record,
            format!(
                "record has {fields} field(s), column {} is needed (use --skip-invalid to skip such records)",
                index + 1
            ),
        ))
    }
}
