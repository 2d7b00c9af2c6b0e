//! How a build is asked for ([`BuildOptions`]), what it reports
//! ([`BuildReport`]) and how it fails ([`BuildError`]); and the memory it
//! keeps out of the record arena, so that the whole build stays within
//! [`BuildOptions::memory`].

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use crate::text::hibp::LineErrorKind;
use spool_io::progress::Progress;

use crate::format::HashKind;

use super::sink::DRAIN_HEADROOM;

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Which hashes the input holds.
    pub kind: HashKind,
    /// Memory for the whole build, in bytes: most of it holds records
    /// waiting to be sorted; the rest is read-ahead and write buffers.
    pub memory: usize,
    /// Skip malformed lines (counting them) instead of failing.
    pub skip_invalid: bool,
    /// Where spill files go (default: next to the output).
    pub temp_dir: Option<PathBuf>,
    /// Threads that parse lines and sort buckets (default: one per core, at
    /// most 8; a build uses at most [`max_threads`], see there).
    pub threads: usize,
    /// Live counters for a progress display (updated once per chunk of
    /// input).
    pub progress: Option<Arc<Progress>>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            kind: HashKind::Sha1,
            memory: 512 << 20,
            skip_invalid: false,
            temp_dir: None,
            // One thread takes every parsed batch in order; beyond about
            // eight parsing threads it is the limit, and more would only
            // add read-ahead buffers.
            threads: std::thread::available_parallelism().map_or(2, |n| n.get().min(8)),
            progress: None,
        }
    }
}

/// The most threads a build uses: four per core, at most 64. Each thread
/// takes a share of the memory budget and two read-ahead buffers, and
/// beyond one per core threads only wait for each other; a large count
/// (`--threads 20000`) is capped to this rather than spawned.
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().saturating_mul(4).min(64))
}

impl BuildOptions {
    /// The least [`memory`](Self::memory) within which a build with these
    /// options stays: what is kept out of the record arena (the program,
    /// read-ahead, write and spill buffers, 4 MiB per thread) and an arena
    /// of 8 MiB. Below it the build still runs, but its peak memory can
    /// exceed `memory`.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_pwned::build::BuildOptions;
    /// let two = BuildOptions { threads: 2, ..BuildOptions::default() };
    /// let eight = BuildOptions { threads: 8, ..BuildOptions::default() };
    /// assert!(two.min_memory() < eight.min_memory());
    /// assert!(two.min_memory() <= 48 << 20); // what the memory test uses
    /// ```
    pub fn min_memory(&self) -> usize {
        self.reserved() + MIN_ARENA
    }

    /// Memory kept out of the record arena: the program, read-ahead, write
    /// and spill buffers, each thread's batches and the final drain.
    pub(crate) fn reserved(&self) -> usize {
        RESERVED_MEMORY + DRAIN_HEADROOM + RESERVED_PER_THREAD * self.threads.max(1)
    }
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Lines read (excluding empty lines).
    pub lines: u64,
    /// Malformed lines skipped (with `skip_invalid`).
    pub invalid: u64,
    /// Lines whose hash repeated an earlier one (counts were added).
    pub duplicates: u64,
    /// Distinct hashes written.
    pub records: u64,
    /// Bytes of (decompressed) input read (each line counted with its newline).
    pub bytes: u64,
    /// Spill files written (0 when the input was sorted or fit in memory).
    pub spills: usize,
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// An I/O error (the message names the file).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A line that is not `HASH:COUNT`.
    #[error("{source_name}:{line}: byte offset {offset}: {kind} (use --skip-invalid to skip such lines)")]
    Malformed {
        /// The input's name.
        source_name: String,
        /// 1-based line number.
        line: u64,
        /// Byte offset of the line's start in the (decompressed) input.
        offset: u64,
        /// What is wrong.
        kind: LineErrorKind,
    },
}

/// Memory kept out of the record arena for everything else, in all and
/// per parsing thread: with two threads the process holds somewhat less
/// beyond the arena while reading (program, write and spill buffers, the
/// read-ahead ring and each thread's record batches).
const RESERVED_MEMORY: usize = 20 << 20;
const RESERVED_PER_THREAD: usize = 4 << 20;
/// The smallest record arena [`BuildOptions::min_memory`] allows: smaller
/// arenas work, but spill so often that the build crawls.
const MIN_ARENA: usize = 8 << 20;
