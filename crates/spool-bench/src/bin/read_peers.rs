//! `read-peers FILE [RUNS]`: count lines and take field 2 of a TSV file with
//! spool and its peers, best of RUNS (default 3) each, warm page cache.
//! Prints seconds, GB/s and each peer's time relative to spool.
//! `ONLY=substring` runs only the readers whose name contains it; `WARM=0`
//! skips the first pass that warms the page cache (for timing a single
//! reader as a whole process, beside another process on a warm file).

use std::path::PathBuf;
use std::time::Instant;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = PathBuf::from(args.get(1).expect("usage: read-peers FILE [RUNS]"));
    let runs: usize = args
        .get(2)
        .map_or(3, |r| r.parse().expect("RUNS is a number"));
    let size = std::fs::metadata(&path)?.len() as f64;
    if std::env::var("WARM").as_deref() != Ok("0") {
        spool_bench::read_peers::read_and_count_newlines(&path)?;
    }
    let mut rows = Vec::new();
    let mut reference = None;
    let only = std::env::var("ONLY").ok();
    for (name, f) in spool_bench::read_peers::all() {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let mut best = f64::INFINITY;
        let mut answer = (0, 0);
        for _ in 0..runs {
            let start = Instant::now();
            answer = f(&path)?;
            best = best.min(start.elapsed().as_secs_f64());
        }
        match reference {
            None => reference = Some(answer),
            Some(r) => assert_eq!(answer, r, "{name} disagrees with spool"),
        }
        rows.push((name, best));
    }
    let spool = rows[0].1;
    println!(
        "{:<28} {:>8} {:>8} {:>10}",
        "reader", "seconds", "GB/s", "vs spool"
    );
    for (name, secs) in rows {
        println!(
            "{name:<28} {secs:>8.3} {:>8.2} {:>9.2}x",
            size / secs / 1e9,
            secs / spool
        );
    }
    let (lines, bytes) = reference.expect("at least one reader");
    println!(
        "({lines} lines, {bytes} bytes in field 2, {:.0} MB)",
        size / 1e6
    );
    Ok(())
}
