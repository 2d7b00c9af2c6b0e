//! Many runs, one dataset, and one of them dies: a run killed (SIGKILL)
//! while others append to the same output leaves them whole, its moved
//! files unlisted, and `clean` removes exactly those; a run retried under
//! the same id cleans up after its dead attempt, and `clean` spares runs
//! that are still alive. The shared invariants are those of
//! `partition_append.rs`, checked by the same `check_dataset`.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::support::append::*;
use crate::support::Dir;

/// Kills one of several runs appending at once (SIGKILL): twice at a
/// moment that varies by trial, twice as soon as it starts moving its
/// files into place (its list of moves appears). The others are whole,
/// the dead run's moved files are unlisted, and `clean` removes exactly
/// them.
#[test]
fn kill_9_of_one_run_among_others_is_cleaned_up() {
    let dir = Dir::new("append-kill");
    let shards: Vec<(PathBuf, String)> = (0..3)
        .map(|i| {
            let input = dir.0.join(format!("shard{i}.tsv"));
            write_shard(&input, i, 500, 5_000);
            (input, format!("job-{i}"))
        })
        .collect();
    let started = std::time::Instant::now();
    let reference = dir.0.join("reference");
    let result = append(&shards[0].0, &reference, "x", &[]).output().unwrap();
    assert!(result.status.success());
    let full_run = started.elapsed();
    let (mut killed_partway, mut moved_removed) = (0, 0);
    for trial in 0..4 {
        let out = dir.0.join(format!("out{trial}"));
        let mut children: Vec<_> = shards
            .iter()
            .map(|(input, id)| {
                append(input, &out, id, &[])
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        if trial < 2 {
            std::thread::sleep(full_run.mul_f64(0.3 + 0.4 * f64::from(trial)));
        } else {
            let moves = out.join("_staging-job-1/_moves.journal");
            while !moves.exists() && children[1].try_wait().unwrap().is_none() {
                std::thread::yield_now();
            }
        }
        let _ = children[1].kill();
        for child in &mut children {
            child.wait().unwrap();
        }
        let dead_finished = out.join("_partitions-job-1.tsv").exists();
        let survivors: Vec<_> = shards
            .iter()
            .filter(|(_, id)| dead_finished || id != "job-1")
            .cloned()
            .collect();
        killed_partway += usize::from(!dead_finished);
        let result = spool()
            .args(["partition", "clean"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(result.status.success(), "{}", stderr(&result));
        let removed = String::from_utf8(result.stdout).unwrap();
        assert!(
            removed.lines().all(|l| l.contains("job-1")),
            "trial {trial}: {removed}"
        );
        moved_removed += removed
            .lines()
            .filter(|l| l.contains("/part-job-1-"))
            .count();
        check_dataset(&out, &survivors);
        assert!(!out.join("_staging-job-1.lock").exists());
    }
    eprintln!(
        "kill trials: 4, killed before its manifest {killed_partway}, \
         moved files removed by clean {moved_removed}"
    );
}

#[test]
fn a_retried_run_cleans_up_after_its_dead_attempt_and_clean_spares_live_runs() {
    let dir = Dir::new("append-retry");
    let out = dir.0.join("out");
    let input = dir.0.join("in.tsv");
    write_shard(&input, 0, 20, 1_000);
    // A live run: reading a pipe that stays open, holding its lock.
    let mut live = append(Path::new("-"), &out, "live", &[])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = live.stdin.take().unwrap();
    std::io::Write::write_all(&mut pipe, &std::fs::read(&input).unwrap()).unwrap();
    while !out.join("_staging-live").exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // What a killed attempt of run r1 leaves: a file moved, one not.
    std::fs::create_dir_all(out.join("_staging-r1/col2=k1")).unwrap();
    std::fs::create_dir_all(out.join("col2=k0")).unwrap();
    std::fs::write(out.join("col2=k0/part-r1-00000.tsv"), "old attempt\n").unwrap();
    std::fs::write(out.join("_staging-r1/col2=k1/part-r1-00000.tsv"), "old\n").unwrap();
    let moves = [
        &b"col2=k0/part-r1-00000.tsv"[..],
        b"col2=k1/part-r1-00000.tsv",
    ];
    std::fs::write(
        out.join("_staging-r1/_moves.journal"),
        spool_io::journal::encode(*b"moves\0\0\0", moves),
    )
    .unwrap();
    let result = append(&input, &out, "r1", &[]).output().unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("_staging-r1"),
        "the retry says what it removed: {}",
        stderr(&result)
    );
    let result = spool()
        .args(["partition", "clean"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        stderr(&result).contains("run live is still writing"),
        "{}",
        stderr(&result)
    );
    assert!(
        out.join("_staging-live").exists(),
        "a live run's staging is never removed"
    );
    // Nor can a run replace the whole output while one appends to it.
    let result = spool()
        .args(["partition", "-q", "--by", "2", "--force", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        stderr(&result).contains("another run is writing this output"),
        "{}",
        stderr(&result)
    );
    drop(pipe);
    let finished = live.wait_with_output().unwrap();
    assert!(finished.status.success(), "{}", stderr(&finished));
    check_dataset(
        &out,
        &[(input.clone(), "r1".into()), (input, "live".into())],
    );
}
