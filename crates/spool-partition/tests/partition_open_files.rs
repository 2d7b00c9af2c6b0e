//! `--max-open` holds whatever the number of writer threads: a sampler
//! counts the output files open (through `/proc/self/fd`) during a run.
//!
//! Alone in its test binary: a sample is not atomic, and with other tests
//! opening and closing files in the same process, a descriptor number read
//! late can have been reused for a second output file, counting one twice.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use spool_partition::{run, BufferSizes, ColumnRef, Options};

/// Output files this process has open under `dir` now (written in the
/// run's staging directory beside the output; the lock file and the input
/// are not counted).
fn open_outputs(dir: &Path) -> usize {
    let Ok(fds) = std::fs::read_dir("/proc/self/fd") else {
        return 0;
    };
    fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter(|target| {
            target.starts_with(dir) && target.to_string_lossy().contains(".spool-staging-")
        })
        .count()
}

#[test]
fn open_files_stay_within_max_open_with_more_threads() {
    let dir = std::env::temp_dir().join(format!("spool-partition-open-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = (0..10_000).map(|i| format!("{}\t{i}\n", i % 300)).collect();
    let input = dir.join("a.tsv");
    std::fs::write(&input, text).unwrap();
    let out = dir.join("out");
    let mut options = Options::new(vec![input], out.clone(), vec![ColumnRef("1".into())]);
    options.workers = 4;
    options.max_open = 2;
    options.buffer_sizes = Some(BufferSizes {
        min_chunk: 16,
        max_chunk: 64,
        budget: 64 * 16,
    });
    let done = AtomicBool::new(false);
    let peak = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut peak = 0;
            while !done.load(Ordering::Relaxed) {
                peak = peak.max(open_outputs(&dir));
                std::thread::yield_now();
            }
            peak
        });
        let summary = run(&options).unwrap();
        done.store(true, Ordering::Relaxed);
        assert!(summary.reopened > 0);
        sampler.join().unwrap()
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(peak > 0, "the sampler saw no open output file");
    assert!(
        peak <= 2,
        "{peak} output files open at once with --max-open 2"
    );
}
