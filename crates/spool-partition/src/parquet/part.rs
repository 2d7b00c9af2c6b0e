//! One part file being written: the file, and its [`ArrowWriter`] once
//! the first batch is known.
//!
//! A writer's properties are fixed when it is created, and which string
//! columns get a dictionary is chosen from the file's first batch (see the
//! `dictionary` module); so a part is created with its file alone
//! ([`PartWriter::pending`]) and its writer at the first batch
//! ([`PartWriter::open`]). Until then it holds nothing but the file's
//! buffer: [`memory_size`](PartWriter::memory_size) is 0.
//!
//! ```text
//!  pending(file) ──open(properties)──► writing ──finish──► finished
//!        └──────────────── finish ─────────────────────────► (an empty file)
//! ```

use std::fs::File;
use std::io::{self, BufWriter};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

use super::dictionary::Dictionaries;

/// Write buffer of an open part file: parquet writes a page header and a
/// page as separate calls; this joins them into fewer system calls.
pub(crate) const FILE_BUFFER: usize = 8 << 10;

enum State {
    Pending(BufWriter<File>, SchemaRef),
    /// Boxed: a writer is some 370 bytes, a pending part 40.
    Writing(Box<ArrowWriter<BufWriter<File>>>),
    /// Only while moving from `Pending` to `Writing` (or after a failure
    /// to open).
    Failed,
}

/// A part file and, from its first batch on, its writer; see the module
/// docs.
pub(crate) struct PartWriter {
    state: State,
}

impl PartWriter {
    /// A part of `schema` written to `file`, without its writer yet.
    pub fn pending(file: BufWriter<File>, schema: SchemaRef) -> Self {
        PartWriter {
            state: State::Pending(file, schema),
        }
    }

    /// Its writer is still to be created.
    pub fn is_pending(&self) -> bool {
        matches!(self.state, State::Pending(..))
    }

    /// Creates the writer with `properties`; nothing if it has one.
    ///
    /// # Errors
    ///
    /// Writing the file's header.
    pub fn open(&mut self, properties: WriterProperties) -> io::Result<()> {
        if !self.is_pending() {
            return Ok(());
        }
        let State::Pending(file, schema) = std::mem::replace(&mut self.state, State::Failed) else {
            unreachable!("checked above");
        };
        let writer = ArrowWriter::try_new(file, schema, Some(properties));
        self.state = State::Writing(Box::new(writer.map_err(io::Error::other)?));
        Ok(())
    }

    fn writer(&mut self) -> io::Result<&mut ArrowWriter<BufWriter<File>>> {
        match &mut self.state {
            State::Writing(writer) => Ok(writer),
            State::Pending(..) => Err(io::Error::other("internal error: part written before open")),
            State::Failed => Err(io::Error::other("part file failed to open")),
        }
    }

    /// Appends `batch` (to the in-progress row group).
    ///
    /// # Errors
    ///
    /// Not [open](Self::open), or the writer's error.
    pub fn write(&mut self, batch: &RecordBatch) -> io::Result<()> {
        self.writer()?.write(batch).map_err(io::Error::other)
    }

    /// Writes the in-progress row group, if any.
    ///
    /// # Errors
    ///
    /// The writer's error.
    pub fn flush(&mut self) -> io::Result<()> {
        match &mut self.state {
            State::Writing(writer) => writer.flush().map_err(io::Error::other),
            State::Pending(..) | State::Failed => Ok(()),
        }
    }

    /// Finishes the file (its last row group and footer); a part that
    /// never got a batch is first opened with the `run`'s properties and
    /// a dictionary for every string column, so it is a valid file
    /// without rows.
    ///
    /// # Errors
    ///
    /// The writer's error.
    pub fn finish(&mut self, run: &WriterProperties) -> io::Result<()> {
        if let State::Pending(_, schema) = &self.state {
            let properties = Dictionaries::strings(schema).properties(run, schema);
            self.open(properties)?;
        }
        self.writer()?.finish().map_err(io::Error::other).map(drop)
    }

    /// What the in-progress row group holds, as
    /// [`ArrowWriter::memory_size`] reports it (0 before the writer).
    pub fn memory_size(&self) -> usize {
        match &self.state {
            State::Writing(writer) => writer.memory_size(),
            State::Pending(..) | State::Failed => 0,
        }
    }

    /// Rows in the in-progress row group.
    pub fn in_progress_rows(&self) -> usize {
        match &self.state {
            State::Writing(writer) => writer.in_progress_rows(),
            State::Pending(..) | State::Failed => 0,
        }
    }

    /// Bytes written to the file so far.
    pub fn bytes_written(&self) -> usize {
        match &self.state {
            State::Writing(writer) => writer.bytes_written(),
            State::Pending(..) | State::Failed => 0,
        }
    }
}
