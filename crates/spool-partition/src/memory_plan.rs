//! Where each byte of `--memory` goes: one plan, worked out from the whole
//! of a run's [`Options`] by one call ([`MemoryPlan::new`], made by
//! [`Run::new`](crate::Run::new)) before anything starts.
//!
//! A run's memory has two kinds of owners. Some hold a fixed amount for
//! the whole run — the read-ahead rings, each writer thread's encoder or
//! Parquet batch, the program itself — and are set aside first. What is
//! left is the budget of the group buffers: one
//! [`ChunkPool`](spool_io::write::ChunkPool) that the router's buffers and,
//! in a Parquet run, the writers' row groups and their state draw from, so
//! that the number of keys changes how memory is used, never how much.
//!
//! ```text
//!  --memory
//!   ├─ read-ahead ........ per input read at once: its ring of buffers
//!   │                      (and one more, briefly), each buffer's record
//!   │                      index (CSV), a decompressor's input buffer
//!   ├─ writer threads .... per thread:
//!   │     text:            the block encoder's state and a block's output
//!   │     parquet:         the batch being built (its arrays, and the piece
//!   │                      of a spilled group it comes from), the spill
//!   │                      log's write buffer, a row group being compressed
//!   │                      (its output, the codec's context, and with
//!   │                      delta-length strings the copy of a page made as
//!   │                      it is flushed), what the allocator keeps free
//!   │                      for the next row group (the arena slack)
//!   ├─ open Parquet files  per file open at once: its write buffer
//!   ├─ the program ....... code, stacks, key table, allocator overhead
//!   └─ group buffers ..... everything left: the chunk pool's budget —
//!                          the groups' buffers, blocks queued to the
//!                          writers, each group's bookkeeping, and
//!                          (Parquet) every open writer's row group and
//!                          state, and the address space its string
//!                          columns reserve for value lengths, counted
//!                          when it is admitted (`WriterMemory`)
//! ```
//!
//! The shares of the first four depend on the options (the format, the
//! compression, the threads, the read-ahead) and, for Parquet, on the
//! total itself (a larger run flushes larger row groups). What they leave
//! must be at least [`MIN_BUFFER_BUDGET`], or the run is refused with the
//! smallest `--memory` that would do.
//!
//! An `s3://` output sends its files' parts while the run reads: the
//! parts in flight then ([`uploads_during_run`](MemoryPlan::uploads_during_run)
//! of 8 MiB, one per 128 MiB of the total, 1 to 4) are set aside first,
//! like the read-ahead. The files' rests are sent after the engine has
//! given every byte above back: at most
//! [`uploads_in_flight`](MemoryPlan::uploads_in_flight) parts, which the
//! plan keeps within half the total.
//!
//! The plan also says how many output files the run holds open at once:
//! `--max-open`, or fewer if the process's open-file limit cannot take as
//! many beside what else the run holds (the `open_files` module).
//!
//! The plan is all a run's sizes: the pool's chunk sizes, the size at
//! which a Parquet row group is flushed, and the arena slack the `spool`
//! binary tunes glibc's allocator with — so the binary and the library
//! cannot disagree. The peak RSS tests of `spool-cli`
//! (`partition_memory.rs`) check that a run stays within the total.

use spool::text::csv::BlockIndex;
use spool_io::size::Size;
use spool_io::write::Compression;

use crate::open_files;

mod set_aside;
use crate::parquet::{Encodings, FILE_BUFFER, READ_PIECE, SPILL_WRITE_BUFFER};
use crate::{BufferSizes, Options, OutputFormat, PartitionError, DEFAULT_MEMORY};
pub(crate) use set_aside::uploads_in_flight;
use set_aside::{arena_slack, parts_during_run, row_group_bytes, too_small, SetAside};

/// Smallest group buffer budget a plan accepts.
pub const MIN_BUFFER_BUDGET: usize = 1 << 20;

/// Size of the smallest chunk: where a group's buffer starts.
const MIN_CHUNK: usize = 512;

/// Largest chunk a plan chooses (a group's buffer grows up to it).
const MAX_CHUNK: usize = 1 << 20;

/// Memory counted for the program itself: code, stacks, the key table,
/// allocator overhead.
const PROGRAM: usize = 24 << 20;

/// A decompressor's input buffer, per input read at once.
const DECOMPRESSOR_INPUT: usize = 1 << 20;

/// A text writer thread's block being encoded and its output.
const TEXT_BLOCK_OUTPUT: usize = 2 << 20;

/// A Parquet writer thread's codec context while it compresses a column
/// chunk (zstd's workspace at the levels offered).
const PARQUET_CODEC: usize = 4 << 20;

/// Where each byte of a run's `--memory` goes; see the module docs.
///
/// # Examples
///
/// ```
/// use spool_partition::{ColumnRef, MemoryPlan, Options};
/// let mut options = Options::new(vec!["in.tsv".into()], "out".into(), vec![ColumnRef("1".into())]);
/// options.memory = 64 << 20;
/// let plan = MemoryPlan::new(&options)?;
/// assert_eq!(
///     plan.read_ahead() + plan.writers() + plan.open_files() + plan.uploads()
///         + plan.program() + plan.buffers().budget,
///     plan.total()
/// );
/// // The same options give the same plan, whatever order they were set in.
/// assert_eq!(MemoryPlan::new(&options)?, plan);
/// options.memory = 16 << 20;
/// assert!(MemoryPlan::new(&options).is_err());
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    total: usize,
    read_ahead: usize,
    writer_threads: usize,
    per_writer: usize,
    max_open: usize,
    reserved_files: usize,
    open_file_limit: Option<u64>,
    open_files: usize,
    uploads: usize,
    buffers: BufferSizes,
    row_group_bytes: usize,
    arena_slack: usize,
}

impl MemoryPlan {
    /// Divides `options.memory` for a run of `options`; with
    /// [`Options::buffer_sizes`] the group buffers are those instead. The
    /// output files open at once fit the process's open-file limit, which
    /// is first raised as far as the run needs if the hard limit allows
    /// ([`raise_soft_limit`](crate::open_files::raise_soft_limit)).
    ///
    /// # Errors
    ///
    /// [`PartitionError::Usage`] if what is left for the group buffers is
    /// less than [`MIN_BUFFER_BUDGET`] (the message names the smallest
    /// workable `--memory`), or if the open-file limit cannot take even one
    /// output file beside the run's other descriptors.
    pub fn new(options: &Options) -> Result<Self, PartitionError> {
        let limit = open_files::raise_soft_limit(open_files::need(options));
        Self::with_open_file_limit(options, limit)
    }

    /// The plan [`new`](Self::new) makes when the process's soft
    /// open-file limit is `limit` (`None`: unlimited); nothing is read
    /// from or changed in the process.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::{ColumnRef, MemoryPlan, Options};
    /// let mut options = Options::new(vec!["in.tsv".into()], "out".into(), vec![ColumnRef("1".into())]);
    /// options.max_open = 1_000;
    /// let plan = MemoryPlan::with_open_file_limit(&options, Some(256))?;
    /// assert!(plan.max_open() < 256);
    /// assert_eq!(MemoryPlan::with_open_file_limit(&options, None)?.max_open(), 1_000);
    /// assert!(MemoryPlan::with_open_file_limit(&options, Some(16)).is_err());
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn with_open_file_limit(
        options: &Options,
        limit: Option<u64>,
    ) -> Result<Self, PartitionError> {
        let total = options.memory;
        let max_open = open_files::fit(options, limit)?;
        let writer_threads = options.writer_threads(max_open);
        let set_aside = SetAside::of(options, total, max_open);
        let left = total.saturating_sub(set_aside.sum(writer_threads));
        let buffers = match options.buffer_sizes {
            Some(sizes) => sizes,
            None if left < MIN_BUFFER_BUDGET => return Err(too_small(options, max_open, total)),
            None => BufferSizes {
                min_chunk: MIN_CHUNK,
                // About 1/512 of the budget, a power of two.
                max_chunk: 1 << (left / 512).clamp(32 << 10, MAX_CHUNK).ilog2(),
                budget: left,
            },
        };
        Ok(MemoryPlan {
            total,
            read_ahead: set_aside.read_ahead,
            writer_threads,
            per_writer: set_aside.per_writer,
            max_open,
            reserved_files: open_files::reserve(options, writer_threads),
            open_file_limit: limit,
            open_files: set_aside.open_files,
            uploads: set_aside.uploads,
            buffers,
            row_group_bytes: row_group_bytes(total),
            arena_slack: match options.format {
                OutputFormat::Parquet(_) => arena_slack(total),
                OutputFormat::Text => 0,
            },
        })
    }

    /// The whole: `--memory`.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The read-ahead of every input read at once.
    pub fn read_ahead(&self) -> usize {
        self.read_ahead
    }

    /// Writer threads the run starts.
    pub fn writer_threads(&self) -> usize {
        self.writer_threads
    }

    /// What the writer threads hold besides the pool: [`per_writer`]
    /// each.
    ///
    /// [`per_writer`]: Self::per_writer
    pub fn writers(&self) -> usize {
        self.writer_threads * self.per_writer
    }

    /// What one writer thread holds besides the pool.
    pub fn per_writer(&self) -> usize {
        self.per_writer
    }

    /// Most output files open at once: [`Options::max_open`], or fewer if
    /// the open-file limit ([`open_file_limit`](Self::open_file_limit))
    /// cannot take as many beside the run's other descriptors (see
    /// [`open_files::RESERVED`]).
    pub fn max_open(&self) -> usize {
        self.max_open
    }

    /// The note for a caller whose `asked` output files (its own
    /// `--max-open`) did not fit the open-file limit, naming the option as
    /// `option` spells it (`"--max-open "`, `"max_open="`); `None` when
    /// they fit.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_partition::{ColumnRef, MemoryPlan, Options};
    /// let mut options = Options::new(vec!["in.tsv".into()], "out".into(), vec![ColumnRef("1".into())]);
    /// options.max_open = 1_000;
    /// let plan = MemoryPlan::with_open_file_limit(&options, Some(256))?;
    /// let note = plan.max_open_note("--max-open ", 1_000).unwrap();
    /// assert!(note.starts_with("--max-open 1000 does not fit the open-file limit (256)"));
    /// assert_eq!(plan.max_open_note("--max-open ", plan.max_open()), None);
    /// # Ok::<(), spool_partition::PartitionError>(())
    /// ```
    pub fn max_open_note(&self, option: &str, asked: usize) -> Option<String> {
        // A plan fits fewer files than asked only under a limit.
        let limit = self.open_file_limit.filter(|_| asked > self.max_open)?;
        Some(format!(
            "{option}{asked} does not fit the open-file limit ({limit}); {} files open at once",
            self.max_open
        ))
    }

    /// Descriptors the run may hold besides its output files (see
    /// [`open_files::RESERVED`]); with [`max_open`](Self::max_open),
    /// within the [`open_file_limit`](Self::open_file_limit).
    pub fn reserved_files(&self) -> usize {
        self.reserved_files
    }

    /// The process's soft open-file limit the plan was made under (raised
    /// as far as the run needed, if the hard limit allowed); `None`:
    /// unlimited, or no such limit.
    pub fn open_file_limit(&self) -> Option<u64> {
        self.open_file_limit
    }

    /// The write buffers of the Parquet files open at once.
    pub fn open_files(&self) -> usize {
        self.open_files
    }

    /// What an `s3://` run's parts in flight take while it reads:
    /// [`uploads_during_run`](Self::uploads_during_run) parts (0 for a
    /// local output).
    pub fn uploads(&self) -> usize {
        self.uploads
    }

    /// What is counted for the program itself.
    pub fn program(&self) -> usize {
        PROGRAM
    }

    /// The group buffers' pool.
    pub fn buffers(&self) -> BufferSizes {
        self.buffers
    }

    /// In-memory size at which a Parquet writer flushes its row group:
    /// 1/32 of the total, 1 to 16 MiB.
    pub fn row_group_bytes(&self) -> usize {
        self.row_group_bytes
    }

    /// Parts an `s3://` run sends at once while it reads: one per 128 MiB
    /// of the total, 1 to 4 (set aside, see [`uploads`](Self::uploads)).
    pub fn uploads_during_run(&self) -> usize {
        parts_during_run(self.total)
    }

    /// Upload requests an `s3://` run keeps in flight once its input is
    /// read, each holding one part: as many parts as fit in half the
    /// total, 1 to 16.
    pub fn uploads_in_flight(&self) -> usize {
        uploads_in_flight(self.total)
    }

    /// Freed memory each allocator arena may keep for reuse in a Parquet
    /// run — a sixteenth of the total, 1 to 8 MiB — included in
    /// [`per_writer`](Self::per_writer); 0 for the allocator's defaults
    /// (text runs, and totals above [`DEFAULT_MEMORY`]). The `spool`
    /// binary keeps this much free at the top of each glibc arena, so that
    /// the zstd workspaces and pages arrow-rs allocates and frees for every
    /// column chunk do not fault in fresh pages each time.
    pub fn arena_slack(&self) -> usize {
        self.arena_slack
    }
}
