//! What a writer thread knows of each group it writes: its part files so
//! far and the records of each, whether it spills and where its last
//! spilled run is, and the start of a record cut at a chunk's end.
//!
//! A group's first part is `part-00000.parquet` (`part-ID-00000.parquet`
//! with a run id) under its directory; a later part, started when its
//! writer had to be closed to keep the budget or when its spilled records
//! are converted, takes the next number beside it. The records of every
//! part go into the run's manifest, one row per part; a group with the
//! usual single part keeps no list (its count is the router's).

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::PathBuf;

use arrow_schema::SchemaRef;
use spool_io::input::with_path;

use super::part::{PartWriter, FILE_BUFFER};
use crate::file_layout::part_path;

/// A group a writer thread has written to; see the module docs.
#[derive(Default)]
pub(crate) struct GroupParts {
    /// Path of the group's first part; later parts sit beside it.
    pub first: PathBuf,
    /// The `--by` column it belongs to.
    pub grouping: usize,
    /// Parts started so far (the open one included).
    parts: u32,
    /// Records written to the latest part.
    pub records: u64,
    /// Records of each earlier part, in order (empty for the usual one
    /// part: no allocation per group).
    earlier: Vec<u64>,
    /// Its records go to the spill log (see the `spill` module): the
    /// offset of its last run there.
    pub spilled: Option<u64>,
    /// Bytes of its runs in the spill log.
    pub spilled_bytes: u64,
    /// The start of a record cut at a chunk's end (a record longer than
    /// the largest chunk arrives in pieces).
    pub carry: Vec<u8>,
}

impl GroupParts {
    /// A group of `grouping` whose first part will be `first`.
    pub fn new(first: PathBuf, grouping: usize) -> Self {
        GroupParts {
            first,
            grouping,
            ..GroupParts::default()
        }
    }

    /// Creates the group's next part file, of `schema` (its grouping's),
    /// under its final name (the run's
    /// staging directory is published whole, or removed); its writer
    /// follows at its first batch (see the `part` module).
    ///
    /// # Errors
    ///
    /// The file cannot be created (naming it).
    pub fn next_part(&mut self, schema: SchemaRef) -> io::Result<PartWriter> {
        let path = part_path(&self.first, self.parts);
        let file = File::create(&path).map_err(|e| with_path(e, &path))?;
        if self.parts > 0 {
            self.earlier.push(std::mem::take(&mut self.records));
        }
        self.parts += 1;
        Ok(PartWriter::pending(
            BufWriter::with_capacity(FILE_BUFFER, file),
            schema,
        ))
    }

    /// Whether it has exactly one part, whose records the router counted.
    pub fn has_one_part(&self) -> bool {
        self.parts == 1
    }

    /// The records of each of its parts, in order (none if it never got
    /// a part).
    pub fn part_records(&self) -> Vec<u64> {
        let mut records = self.earlier.clone();
        if self.parts > 0 {
            records.push(self.records);
        }
        records
    }
}
