//! Lookup latency of a pwned index: warm p50/p99 over 200,000 lookups (half
//! present, half absent, answers checked against the sample), and cold
//! lookups — page cache dropped (`/proc/sys/vm/drop_caches`, needs root),
//! then open + one lookup — each timed on its own.
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
        assert_eq!(index.lookup(h), *want, "wrong answer");
    }
    let mut times: Vec<u128> = probes
        .iter()
        .map(|(h, _)| {
            let t = Instant::now();
            std::hint::black_box(index.lookup(h));
            t.elapsed().as_nanos()
        })
        .collect();
    times.sort_unstable();
    println!(
        "warm lookup: p50 {} ns, p99 {} ns, mean {:.0} ns over {} lookups",
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times.iter().sum::<u128>() as f64 / times.len() as f64,
        times.len()
    );
    drop(index);
    let mut cold = Vec::new();
    for (h, want) in probes.iter().step_by(probes.len() / 30) {
        if std::fs::write("/proc/sys/vm/drop_caches", "1").is_err() {
            println!("cold lookup: skipped (cannot drop the page cache without root)");
            return;
        }
        let t = Instant::now();
        let index = Index::open(&path).unwrap();
        let got = index.lookup(h);
        cold.push(t.elapsed().as_nanos());
        assert_eq!(got, *want);
    }
    cold.sort_unstable();
    println!(
        "cold open + lookup: p50 {:.1} µs, p99 {:.1} µs over {} samples",
        percentile(&cold, 0.5) as f64 / 1e3,
        percentile(&cold, 0.99) as f64 / 1e3,
        cold.len()
    );
}
