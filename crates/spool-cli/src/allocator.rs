//! Keeps glibc's allocator from handing freed blocks back to the kernel
//! during a Parquet run, where the same large blocks are freed and
//! allocated again hundreds of times a second.
//!
//! arrow-rs creates the column writers of a row group afresh for every
//! row group, each with its own zstd context, and libzstd allocates a
//! context's workspace with `malloc` at the column chunk's compression and
//! frees it right after; the pages being compressed are blocks of the same
//! order. With glibc's defaults a block that size is either mapped and
//! unmapped on its own (below the dynamic mmap threshold's current value)
//! or, once freed at the top of a writer thread's arena, given back with
//! `madvise` as soon as the free top passes the trim threshold; either way
//! the next one faults in freshly zeroed pages, and the run spends its
//! time in the kernel. Keeping blocks under 32 MiB in the arenas, and some
//! free memory at each arena's top, avoids that (docs/perf/partition-parquet.md,
//! "Freed blocks kept in glibc's arenas", has the measurements).
//!
//! The cost is memory that stays resident after it is freed, up to the
//! run's [`arena_slack`](spool_partition::MemoryPlan::arena_slack) per
//! arena, which the run's memory plan sets aside from `--memory` per
//! writer thread — the one number both this module and the plan use. The
//! plan gives no slack to text runs (their encoders are made once per
//! thread) nor above the default `--memory`, where the arenas grew past
//! any such allowance: glibc then keeps its defaults.
//!
//! glibc only; elsewhere this does nothing.

/// Sets the thresholds described in the module docs, keeping up to
/// `slack` bytes free per arena; with a `slack` of 0 glibc keeps its
/// defaults. Called before the run's threads start.
pub fn keep_freed_blocks(slack: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if slack > 0 {
        let slack = libc::c_int::try_from(slack).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt takes the main arena's lock and only sets the
        // allocator's parameters; the values are within glibc's limits
        // (mmap threshold at most HEAP_MAX_SIZE / 2 = 32 MiB on 64-bit).
        // A refused value returns 0 and leaves the default in place, which
        // costs speed, not correctness.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, slack);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = slack;
}
