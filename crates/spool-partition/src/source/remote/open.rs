//! A remote object opened for the transcoders: as bytes (text, NDJSON),
//! decompressed when its first bytes say gzip or zstd, or as a Parquet
//! reader.

use std::io::Read;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use parquet::arrow::arrow_reader::ParquetRecordBatchReader;

use super::object::Object;
use super::parquet_chunks::ParquetChunks;
use super::ranged_read::RangedRead;
use crate::source::parquet_text;
use crate::PartitionError;

/// `object`'s bytes from its start, decompressed if they are gzip or
/// zstd, the raw bytes read added to `counter`.
///
/// # Errors
///
/// Its first bytes cannot be read; the message names the object.
pub(crate) fn open_text(
    object: &Arc<Object>,
    counter: Arc<AtomicU64>,
) -> Result<Box<dyn Read + Send>, PartitionError> {
    let raw = spool_io::input::counting(Box::new(RangedRead::new(object.clone())), counter);
    let (input, _) = spool_io::input::decompress(raw)
        .map_err(|e| spool_io::input::with_path(e, object.url.as_ref()))?;
    Ok(input)
}

/// `object` read as Parquet in batches, its size added to `counter`;
/// its footer is read here.
///
/// # Errors
///
/// The object cannot be read, or is not Parquet; the message names it.
pub(crate) fn open_parquet(
    object: &Arc<Object>,
    counter: &AtomicU64,
) -> Result<ParquetRecordBatchReader, PartitionError> {
    counter.fetch_add(object.size, std::sync::atomic::Ordering::Relaxed);
    let path = std::path::Path::new(&object.url);
    let chunks = ParquetChunks::open(object.clone())
        .map_err(|e| PartitionError::Io(spool_io::input::with_path(e, path)))?;
    let layout = chunks.clone();
    parquet_text::open_reader(chunks, path, move |metadata| layout.set_layout(metadata))
}
