//! Inputs in object storage and on web servers: `s3://BUCKET/PREFIX/`,
//! `s3://BUCKET/GLOB`, `s3://BUCKET/KEY` and `http(s)://` URLs, read
//! without a local copy.
//!
//! ```text
//!  input ─ location ─► listing (LIST, or HEAD): objects in key order,
//!                      each with its size and ETag
//!            detect: the first bytes, as for a file
//!  text, NDJSON ─────► ranged_read: ranged GETs ahead of the reader,
//!                      each `If-Match` the ETag; gzip/zstd by magic
//!  Parquet ──────────► parquet_chunks: the footer once, then windows of
//!                      column chunks, for the blocking Parquet reader
//! ```
//!
//! Everything after the bytes is the local path's: the same transcoders,
//! hive keys from the directories below the listed prefix, the same
//! errors naming the user's object (`s3://bucket/key`). The clients are
//! those of the S3 output (`connection`), so credentials and endpoints
//! follow one set of rules.
//!
//! | module | its job |
//! |---|---|
//! | `location` | what an input's text names (pure) |
//! | `connection` | the run's clients and their runtime |
//! | `listing` | an input's objects; an object's format |
//! | `object` | one object, its conditional ranged reads |
//! | `ranged_read` | an object as a `Read`, read ahead |
//! | `parquet_chunks` | an object as Parquet's `ChunkReader` |
//!
//! Without the `s3` feature a remote input is refused with a clear error.

#[cfg(feature = "s3")]
mod connection;
#[cfg(feature = "s3")]
mod listing;
mod location;
#[cfg(feature = "s3")]
mod object;
#[cfg(feature = "s3")]
mod open;
#[cfg(feature = "s3")]
mod parquet_chunks;
#[cfg(feature = "s3")]
mod ranged_read;

use std::path::Path;

#[cfg(feature = "s3")]
pub(crate) use listing::detect;
pub(crate) use location::Location;
#[cfg(feature = "s3")]
pub(crate) use object::Object;
#[cfg(feature = "s3")]
pub(crate) use open::{open_parquet, open_text};

use super::expand::Found;
use crate::PartitionError;

/// What one remote input being read holds at most: the ranges in flight
/// ahead of a text or NDJSON reader, or a Parquet reader's windows; the
/// memory plan charges it per input read at once.
pub(crate) const REMOTE_READ_BYTES: usize = 16 << 20;

/// Remote objects whose first range may be read ahead of their opening
/// at once (each a connection), within the bytes
/// [`REMOTE_READ_BYTES`] per input read at once allows.
pub(crate) const EARLY_READS: usize = 8;

/// Ranged reads one open remote input has in flight at most (each a
/// connection).
pub(crate) fn remote_reads_at_once() -> usize {
    #[cfg(feature = "s3")]
    return ranged_read::AHEAD;
    #[cfg(not(feature = "s3"))]
    0
}

/// Starts reading `object`'s first range before it is opened.
#[cfg(feature = "s3")]
pub(crate) fn read_early(object: &Object) {
    object.read_first_range_early();
}

/// The bytes `object`'s first range holds.
#[cfg(feature = "s3")]
pub(crate) fn first_range_bytes(object: &Object) -> usize {
    object.first_range_bytes() as usize
}

/// The bytes an open `object`'s ranged reads hold at most.
#[cfg(feature = "s3")]
pub(crate) fn held_while_open(object: &Object) -> usize {
    object.size.min(REMOTE_READ_BYTES as u64) as usize
}

/// Whether `input` names a remote location (or tries to: a malformed
/// `s3://` input is refused later, naming it).
pub(crate) fn is_remote(input: &Path) -> bool {
    !matches!(Location::parse(input), Ok(None))
}

/// A remote object (none in a build without the `s3` feature).
#[cfg(not(feature = "s3"))]
#[derive(Debug)]
pub(crate) enum Object {}

/// The remote side of one run's inputs: its clients, made when the first
/// remote input is met.
#[derive(Default)]
pub(crate) struct Remote {
    /// Errors carry the store's whole answer (`-v`), not one line.
    #[cfg_attr(not(feature = "s3"), allow(dead_code))]
    verbose: bool,
    #[cfg(feature = "s3")]
    connection: Option<std::sync::Arc<connection::Connection>>,
}

impl Remote {
    /// No client yet; `verbose`: errors carry the store's whole answer.
    pub fn new(verbose: bool) -> Self {
        Remote {
            verbose,
            ..Default::default()
        }
    }

    /// Appends the objects `input` names to `found` if it is remote;
    /// `false` if it is not.
    ///
    /// # Errors
    ///
    /// As the `listing` module says; a remote input in a build without
    /// the `s3` feature.
    pub fn expand(&mut self, input: &Path, found: &mut Vec<Found>) -> Result<bool, PartitionError> {
        let Some(location) = Location::parse(input)? else {
            return Ok(false);
        };
        #[cfg(feature = "s3")]
        {
            let connection = match &self.connection {
                Some(connection) => connection.clone(),
                None => {
                    let connection = connection::Connection::new(self.verbose)?;
                    self.connection.insert(connection).clone()
                }
            };
            listing::expand(&connection, input, location, found)?;
            Ok(true)
        }
        #[cfg(not(feature = "s3"))]
        {
            let _ = (location, found);
            Err(PartitionError::Usage(format!(
                "{}: this build has no S3 or HTTP support (spool-partition's `s3` feature)",
                input.display()
            )))
        }
    }
}

/// Without the `s3` feature there is no remote object to read.
#[cfg(not(feature = "s3"))]
mod none {
    use std::io::Read;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    use super::Object;
    use crate::source::SourceFormat;
    use crate::PartitionError;

    pub(crate) fn detect(objects: &[&Arc<Object>]) -> Vec<SourceFormat> {
        objects.iter().map(|object| match ***object {}).collect()
    }

    pub(crate) fn open_text(
        object: &Arc<Object>,
        _: Arc<AtomicU64>,
    ) -> Result<Box<dyn Read + Send>, PartitionError> {
        match **object {}
    }

    pub(crate) fn open_parquet(
        object: &Arc<Object>,
        _: &AtomicU64,
    ) -> Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader, PartitionError> {
        match **object {}
    }

    pub(crate) fn read_early(object: &Object) {
        match *object {}
    }

    pub(crate) fn first_range_bytes(object: &Object) -> usize {
        match *object {}
    }

    pub(crate) fn held_while_open(object: &Object) -> usize {
        match *object {}
    }
}
#[cfg(not(feature = "s3"))]
pub(crate) use none::{
    detect, first_range_bytes, held_while_open, open_parquet, open_text, read_early,
};
