//! Best-of-N timing for the demo's side-by-side figures.

use std::time::{Duration, Instant};

/// Runs `f` `runs` times and returns the shortest wall time and the last
/// result (so the caller can check the answer).
pub fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let out = f();
        best = best.min(start.elapsed());
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}

/// Megabytes (10^6 bytes) per second.
pub fn mb_per_s(bytes: u64, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64().max(1e-9)
}
