//! Running a command and reading its own peak RSS.

/// Runs `cmd` to its end (standard output discarded) and returns whether it
/// succeeded, its standard error, and its own peak RSS in KiB.
///
/// The child is reaped with `wait4`, which reports that one child. A
/// child's peak includes its parent's memory at the moment it was started,
/// so the calling test must stay small (write large inputs with another
/// child or by streaming).
pub fn run_measuring_peak_rss(
    mut cmd: std::process::Command,
    dir: &std::path::Path,
) -> (bool, String, i64) {
    use std::os::unix::process::ExitStatusExt;
    let stderr_path = dir.join("stderr-of-measured-run.txt");
    #[expect(
        clippy::zombie_processes,
        reason = "reaped below with wait4, which also reports its peak RSS"
    )]
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    let mut status = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `status` and `usage` point to writable memory of the right
    // types; wait4 reaps exactly this child and fills both when it returns
    // the child's pid, which the assertion checks before reading.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, usage.as_mut_ptr()) };
    assert_eq!(pid, child.id() as i32, "wait4");
    // SAFETY: wait4 succeeded, so the struct is initialized.
    let peak_kib = unsafe { usage.assume_init() }.ru_maxrss;
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    let success = std::process::ExitStatus::from_raw(status).success();
    (success, stderr, peak_kib)
}

/// Asserts that a measured peak RSS is real and within `budget_mib`.
pub fn assert_within_budget(peak_kib: i64, budget_mib: i64) {
    eprintln!(
        "peak RSS {} MiB with --memory {budget_mib}M",
        peak_kib / 1024
    );
    assert!(peak_kib > 0);
    assert!(
        peak_kib <= budget_mib * 1024,
        "peak RSS {peak_kib} KiB is over the {budget_mib} MiB budget"
    );
}
