//! Keeps glibc's allocator from handing freed blocks back to the kernel
//! during a Parquet run, where the same large blocks are freed and
//! allocated again hundreds of times a second.
//!
//! arrow-rs creates the column writers of a row group afresh for every
//! row group, each with its own zstd context, and libzstd allocates a
//! context's workspace (up to 1.3 MB at level 3) with `malloc` at the
//! column chunk's compression and frees it right after; the pages being
//! compressed are blocks of the same order. With glibc's defaults a block
//! that size is either mapped and unmapped on its own (below the dynamic
//! mmap threshold's current value) or, once freed at the top of a writer
//! thread's arena, given back with `madvise` as soon as the free top
//! passes the trim threshold; either way the next one faults in freshly
//! zeroed pages. On a 1 GiB, 1,000-key run that was 30,000–630,000 page
//! faults (the count depends on how the dynamic threshold moved) and
//! 2.0–3.3 s of system time; with blocks under 32 MiB kept in the arenas
//! and up to 8 MiB left free at each arena's top (`--memory 128M`),
//! 27,000 faults, 1.8–2.1 s of system time and 7% less wall time (six
//! alternated runs each; see docs/perf/partition-parquet.md).
//!
//! The cost is memory that stays resident after it is freed: up to
//! [`arena_slack`](spool_io::partition::parquet::arena_slack) per arena
//! (8 MiB at `--memory 128M`), which a Parquet run sets aside from
//! `--memory` per writer thread (the memory tests check the peak at 10 to
//! 100,000 keys). Above 128 MiB the arenas grew past any such allowance,
//! so larger budgets keep glibc's defaults. Text output is left alone: its
//! encoders are made once per thread.
//!
//! glibc only; elsewhere this does nothing.

/// Sets the thresholds described in the module docs, keeping up to
/// `slack` bytes free per arena; with a `slack` of 0 (a budget above 128
/// MiB) glibc keeps its defaults. Called before the run's threads start.
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
