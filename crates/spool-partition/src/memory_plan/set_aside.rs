//! The sizing rules of the memory plan: what each fixed owner of a run
//! (read-ahead, writer threads, open Parquet files, S3 parts in flight,
//! the program itself) takes of a total, and the refusal of a total too
//! small for them. [`MemoryPlan`](super::MemoryPlan) adds them up once.

use super::*;

/// What the fixed owners take of a `total`.
pub(super) struct SetAside {
    pub(super) read_ahead: usize,
    pub(super) per_writer: usize,
    pub(super) open_files: usize,
    /// An `s3://` run's parts in flight while it reads.
    pub(super) uploads: usize,
}

impl SetAside {
    /// What the read-ahead, the writer threads and the open files (at
    /// most `max_open`) of a run of `options` take of `total`.
    pub(super) fn of(options: &Options, total: usize, max_open: usize) -> Self {
        let read = &options.read;
        let index = match options.quote {
            Some(_) => read.buffers * BlockIndex::memory(read.buffer_len),
            None => 0,
        };
        let mut per_input = (read.buffers + 1) * read.buffer_len + index + DECOMPRESSOR_INPUT;
        if options.reads_remote() {
            // Ranged reads in flight, or a Parquet object's windows.
            per_input += crate::source::REMOTE_READ_BYTES;
        }
        let (per_writer, open_files) = match &options.format {
            OutputFormat::Text => {
                let encoder = match options.compression {
                    Compression::None => 0,
                    Compression::Zstd(_) => 4 << 20,
                    Compression::Gzip(_) => 1 << 20,
                };
                (encoder + TEXT_BLOCK_OUTPUT, 0)
            }
            OutputFormat::Parquet(parquet_options) => {
                let row_group = row_group_bytes(total);
                let page_copy = match parquet_options.encodings {
                    Encodings::Delta => row_group,
                    Encodings::Plain => 0,
                };
                // A batch's arrays are about three times the text of a
                // largest chunk, or of a piece read back from the spill log.
                let batch = 3 * MAX_CHUNK + READ_PIECE;
                let per_writer = batch
                    + SPILL_WRITE_BUFFER
                    + row_group
                    + page_copy
                    + PARQUET_CODEC
                    + arena_slack(total);
                (per_writer, max_open * FILE_BUFFER)
            }
        };
        let s3 = options.writes_to_s3();
        SetAside {
            read_ahead: options.parallel_inputs * per_input,
            per_writer,
            open_files,
            uploads: usize::from(s3) * parts_during_run(total) * crate::s3::PART_BYTES,
        }
    }

    pub(super) fn sum(&self, writer_threads: usize) -> usize {
        self.read_ahead
            + writer_threads * self.per_writer
            + self.open_files
            + self.uploads
            + PROGRAM
    }
}

/// The refusal of a `total` too small for `options`, naming a total that
/// is enough once its own share is set aside (the share grows with the
/// total: row groups, arena slack).
pub(super) fn too_small(options: &Options, max_open: usize, total: usize) -> PartitionError {
    let threads = options.writer_threads(max_open);
    let needs =
        |total: usize| SetAside::of(options, total, max_open).sum(threads) + MIN_BUFFER_BUDGET;
    let mut least = needs(total).next_multiple_of(1 << 20);
    while least < needs(least) {
        least += 1 << 20;
    }
    PartitionError::Usage(format!(
        "--memory {} is too small for {} writer(s) and {} read-ahead input(s); \
         use at least {} (or fewer --threads)",
        Size(total),
        threads,
        options.parallel_inputs,
        Size(least)
    ))
}

/// Parts an `s3://` run of `total` sends at once while it reads.
pub(super) fn parts_during_run(total: usize) -> usize {
    (total / 16 / crate::s3::PART_BYTES).clamp(1, 4)
}

/// Upload requests an `s3://` run of `total` keeps in flight once its
/// input is read (no fewer than [`parts_during_run`]).
pub(crate) fn uploads_in_flight(total: usize) -> usize {
    (total / 2 / crate::s3::PART_BYTES).clamp(1, 16)
}

/// In-memory size at which a Parquet writer flushes its row group in a
/// run of `total`: 1/32 of it, 1 to 16 MiB.
pub(super) fn row_group_bytes(total: usize) -> usize {
    (total / 32).clamp(1 << 20, 16 << 20)
}

/// Freed memory a Parquet writer thread's allocator arena may keep
/// resident for reuse in a run of `total`: a sixteenth of it, 1 to 8 MiB,
/// up to [`DEFAULT_MEMORY`], and none above.
///
/// arrow-rs allocates and frees a zstd workspace and the pages of every
/// column chunk it compresses; the `spool` binary keeps up to this much
/// free at the top of each glibc arena (`mallopt(M_TRIM_THRESHOLD)`) so
/// that they do not fault in fresh pages each time, and the plan sets it
/// aside per writer thread. Above [`DEFAULT_MEMORY`] the arenas, holding
/// row groups of up to 16 MiB, grew past any such allowance, so larger
/// runs keep the allocator's defaults. The measurements behind both
/// choices are in docs/perf/partition-parquet.md ("Freed blocks kept in
/// glibc's arenas", "Peak RSS at larger budgets").
pub(super) fn arena_slack(total: usize) -> usize {
    if total > DEFAULT_MEMORY {
        0
    } else {
        (total / 16).max(1 << 20)
    }
}
