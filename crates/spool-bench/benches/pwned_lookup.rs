//! Lookup latency of a pwned index: warm p50/p99 over 200,000 lookups (half
//! present, half absent, answers checked against the sample) — once with
//! the blocks they read already checked (a long-lived process's steady
//! state), once with the index told to forget its checks, so each lookup
//! computes the CRC-32C of the blocks it reads (a new process's) — and cold
//! lookups — page cache dropped (`/proc/sys/vm/drop_caches`, needs root),
//! then open + one lookup — each timed on its own, with the pages it read
//! counted (mincore); and cold lookups in an open index whose records were
//! dropped from the page cache (fadvise), as a long-lived process sees.
//!
//! Run: `SPOOL_PWNED_INDEX=pwned.idx SPOOL_PWNED_LINES=N SPOOL_PWNED_SEED=S \
//!       cargo bench -p spool-bench --bench pwned_lookup`
//! (the index built from `spool pwned sample --lines N --seed S`);
//! `scripts/bench-pwned.sh` does all of this.

use std::time::Instant;

use spool_pwned::sample::{sample_count, sample_password};
use spool_pwned::{HashKind, Index};

fn percentile(sorted: &[u128], p: f64) -> u128 {
    sorted[((sorted.len() - 1) as f64 * p) as usize]
}

fn main() {
    let Ok(path) = std::env::var("SPOOL_PWNED_INDEX") else {
        eprintln!("set SPOOL_PWNED_INDEX (see the file's docs); skipping");
        return;
    };
    let lines: u64 = std::env::var("SPOOL_PWNED_LINES")
        .expect("SPOOL_PWNED_LINES")
        .parse()
        .unwrap();
    let seed: u64 = std::env::var("SPOOL_PWNED_SEED")
        .expect("SPOOL_PWNED_SEED")
        .parse()
        .unwrap();
    let index = Index::open(&path).unwrap();
    let probes: Vec<(Vec<u8>, Option<u32>)> = (0..200_000u64)
        .map(|i| {
            let n = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % (2 * lines);
            let present = n < lines;
            (
                HashKind::Sha1.hash_password(&sample_password(seed, n)),
                present.then(|| sample_count(seed, n)),
            )
        })
        .collect();
    for (h, want) in &probes {
        assert_eq!(index.lookup(h), Ok(*want), "wrong answer");
    }
    let warm = |what: &str| {
        let mut times: Vec<u128> = probes
            .iter()
            .map(|(h, _)| {
                let t = Instant::now();
                let _ = std::hint::black_box(index.lookup(h));
                t.elapsed().as_nanos()
            })
            .collect();
        times.sort_unstable();
        println!(
            "warm lookup, {what}: p50 {} ns, p99 {} ns, mean {:.0} ns over {} lookups",
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            times.iter().sum::<u128>() as f64 / times.len() as f64,
            times.len()
        );
    };
    warm("blocks checked before");
    index.forget_checked_blocks();
    warm("blocks checked on the way");
    drop(index);

    // Which pages of the index file are in the page cache: a cold lookup
    // reads exactly the pages it adds (the index asks the kernel not to
    // read ahead).
    let file = std::fs::File::open(&path).unwrap();
    // SAFETY: a read-only map of a file nobody modifies during the bench;
    // it is only passed to mincore, never read.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    let resident = |from: usize| -> usize {
        let page = 4096;
        let mut vec = vec![0u8; map.len().div_ceil(page)];
        // SAFETY: `map` is a live mapping of `map.len()` bytes and `vec`
        // has one byte per page of it, as mincore requires.
        let rc = unsafe { libc::mincore(map.as_ptr() as *mut _, map.len(), vec.as_mut_ptr()) };
        assert_eq!(rc, 0, "mincore");
        vec[from / page..].iter().filter(|&&b| b & 1 == 1).count()
    };
    let samples: Vec<_> = probes.iter().step_by(probes.len() / 30).collect();

    // 1. A new process's view: nothing cached, open + one lookup.
    let mut cold = Vec::new();
    let mut pages = Vec::new();
    for (h, want) in &samples {
        if std::fs::write("/proc/sys/vm/drop_caches", "1").is_err() {
            println!("cold lookup: skipped (cannot drop the page cache without root)");
            return;
        }
        let t = Instant::now();
        let index = Index::open(&path).unwrap();
        let got = index.lookup(h).unwrap();
        cold.push(t.elapsed().as_nanos());
        pages.push(resident(0) as u128);
        assert_eq!(got, *want);
    }
    println!("cold open + lookup: {}", cold_summary(cold, pages));

    // 2. A long-lived process's view: the header and table are cached, the
    // records are not (dropped with fadvise, which spares pages that some
    // mapping still holds — so the index is mapped anew each time).
    let records_at = spool_pwned::format::RECORDS_OFFSET;
    let mut cold = Vec::new();
    let mut pages = Vec::new();
    for (h, want) in &samples {
        let index = Index::open(&path).unwrap();
        let _ = std::hint::black_box(index.lookup(h)); // table and header cached
        drop(index);
        // SAFETY: plain syscall on an open descriptor.
        let rc = unsafe {
            use std::os::fd::AsRawFd;
            libc::posix_fadvise(
                file.as_raw_fd(),
                records_at as i64,
                0,
                libc::POSIX_FADV_DONTNEED,
            )
        };
        assert_eq!(rc, 0, "posix_fadvise");
        let index = Index::open(&path).unwrap();
        let before = resident(records_at);
        let t = Instant::now();
        let got = index.lookup(h).unwrap();
        cold.push(t.elapsed().as_nanos());
        pages.push((resident(records_at) - before) as u128);
        assert_eq!(got, *want);
    }
    println!(
        "cold lookup in an open index (records not cached): {}",
        cold_summary(cold, pages)
    );
}

/// Latency percentiles and pages read by a set of cold lookups.
fn cold_summary(mut times: Vec<u128>, mut pages: Vec<u128>) -> String {
    times.sort_unstable();
    pages.sort_unstable();
    format!(
        "p50 {:.1} µs, p99 {:.1} µs over {} samples; pages read: p50 {}, mean {:.2}, max {}",
        percentile(&times, 0.5) as f64 / 1e3,
        percentile(&times, 0.99) as f64 / 1e3,
        times.len(),
        percentile(&pages, 0.5),
        pages.iter().sum::<u128>() as f64 / pages.len() as f64,
        pages[pages.len() - 1]
    )
}
