//! Peak memory of `spool partition` stays within `--memory` on an input
//! several times larger. Alone in its test binary: the peak is read with
//! `getrusage(RUSAGE_CHILDREN)`, which covers every child of this process.

use std::process::Command;

#[test]
fn peak_rss_stays_within_the_budget() {
    let dir = std::env::temp_dir().join(format!("spool-partition-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.tsv");
    let file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    // 256 MiB, 4x the budget, 5000 keys.
    spool_bench::tsv_sample::write_sample(file, 256 << 20, 5000, 3).unwrap();
    let budget_mib = 64;
    let out = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args([
            "partition",
            "--by",
            "1",
            "--compress",
            "zstd",
            "--threads",
            "2",
        ])
        .arg(format!("--memory={budget_mib}M"))
        .arg("--out")
        .arg(dir.join("out"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` points to writable memory of the right type; getrusage
    // fills it in and returns 0, which the assertion checks before reading.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    assert_eq!(rc, 0);
    // SAFETY: getrusage succeeded, so the struct is initialized.
    let peak_kib = unsafe { usage.assume_init() }.ru_maxrss;
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "peak RSS {} MiB with --memory {budget_mib}M",
        peak_kib / 1024
    );
    assert!(peak_kib > 0);
    assert!(
        peak_kib <= budget_mib * 1024,
        "peak RSS {} KiB is over the {budget_mib} MiB budget",
        peak_kib
    );
}
