//! What an open Parquet writer costs in memory, for the budget: the
//! state `ArrowWriter::memory_size` does not report, the metadata each
//! finished row group leaves for the footer, the codec contexts outside
//! Rust's allocator, and the dictionary allowance an admitted writer is
//! counted with.
//!
//! These are the numbers the writers are charged with (see the
//! `open_writers` module); the `parquet_writer_cost` test measures the real
//! costs with a counting allocator and fails if a number here falls short
//! of them.

use std::sync::OnceLock;

use super::options::ParquetCompression;

/// What an open `ArrowWriter` of `columns` columns holds beyond what its
/// `memory_size()` reports: its column writers, their level and page
/// buffers and metadata builders, charged while it is open. The
/// `parquet_writer_cost` test measures the real cost with a counting
/// allocator, after writing and after a flush, and fails if this is
/// short of it.
///
/// # Examples
///
/// ```
/// use spool_partition::parquet::writer_state_bytes;
/// assert_eq!(writer_state_bytes(4), 24 << 10);
/// ```
pub const fn writer_state_bytes(columns: usize) -> usize {
    (4 << 10) + columns * (5 << 10)
}

/// What each finished row group of `columns` columns adds to its open
/// writer's footer metadata (column chunk metadata, statistics, page
/// index entries), charged until the file is finished; the
/// `parquet_writer_cost` test checks it against the real cost.
///
/// # Examples
///
/// ```
/// use spool_partition::parquet::row_group_metadata_bytes;
/// assert_eq!(row_group_metadata_bytes(4), 4608);
/// ```
pub const fn row_group_metadata_bytes(columns: usize) -> usize {
    512 + columns * 1024
}

/// Address space arrow-rs reserves for the lengths of each
/// `DELTA_LENGTH_BYTE_ARRAY` column of an in-progress row group (its
/// bit-packing encoder starts with a 1 MiB buffer), of which only the
/// bytes of the lengths written — a byte or two a value, which
/// `ArrowWriter::memory_size` reports — are ever written. Not charged as
/// a row group grows, but counted, per string column, in the footprint an
/// open writer is admitted with (see the `open_writers` module): glibc
/// places such a block on freed pages that are still resident as often as
/// on fresh ones, so with many writers open the reservations became a
/// large share of the peak RSS (docs/perf/partition-s3.md, "Peak RSS at
/// 256M"). The `parquet_writer_cost` test pins it; the peak RSS tests
/// check the result (with dictionary columns given the same encoding as
/// their fallback, the reservations of idle fallbacks raised the peak at
/// 100,000 keys past the budget).
pub const DELTA_LENGTHS_RESERVE: usize = 1 << 20;

/// What a dictionary-encoded column (a string column: see
/// [`file_properties`](super::file_properties)) of an open writer is allowed for its dictionary
/// when the writer is admitted: its hash table and distinct values, a few
/// KiB at the first values and growing with each new one. Used to
/// estimate an open writer's typical footprint when admitting it; what it
/// really holds is charged as it grows.
pub const DICTIONARY_TABLE_BYTES: usize = 40 << 10;

/// What the codec of one column of an in-progress row group holds outside
/// the Rust allocator, so that neither `ArrowWriter::memory_size` nor a
/// counting global allocator sees it: arrow-rs's zstd codec keeps a zstd
/// compression and a decompression context per column writer, allocated
/// by libzstd with `malloc`, from a row group's first write to its flush
/// (found with heaptrack, where uncharged contexts were a large share of
/// a run's peak: docs/perf/partition-parquet.md). The size is asked of
/// libzstd itself. Snappy and uncompressed columns hold nothing there.
///
/// # Examples
///
/// ```
/// use spool_partition::parquet::{codec_state_bytes, ParquetCompression};
/// assert_eq!(codec_state_bytes(ParquetCompression::None), 0);
/// assert!(codec_state_bytes(ParquetCompression::Zstd(3)) > 64 << 10);
/// ```
pub fn codec_state_bytes(compression: ParquetCompression) -> usize {
    static ZSTD: OnceLock<usize> = OnceLock::new();
    match compression {
        ParquetCompression::Zstd(_) => *ZSTD.get_or_init(|| {
            use zstd::zstd_safe::{CCtx, DCtx};
            CCtx::create().sizeof() + DCtx::create().sizeof()
        }),
        ParquetCompression::None | ParquetCompression::Snappy => 0,
    }
}
