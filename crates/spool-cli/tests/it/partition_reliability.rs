//! `spool partition` under faults: kill -9 at random moments (the commit
//! included), two runs into one output at once, a full disk, and keys
//! crafted to collide with each other or with the manifest.
//!
//! The invariant checked everywhere: under the output's name there is
//! either nothing, or the old dataset whole, or the new one whole — byte
//! for byte what an undisturbed run writes.
//!
//! `SPOOL_RELIABILITY_LONG=1` runs 100 kill trials and 20 concurrent-run
//! trials instead of 20 and 5.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::support::Dir;

use crate::support::spool;

fn long_mode() -> bool {
    std::env::var_os("SPOOL_RELIABILITY_LONG").is_some_and(|v| v != "0")
}

/// A dataset as a map from relative path to bytes.
type Tree = BTreeMap<PathBuf, Vec<u8>>;

fn tree(root: &Path) -> Option<Tree> {
    fn walk(dir: &Path, root: &Path, out: &mut Tree) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), bytes);
            }
        }
    }
    if !root.exists() {
        return None;
    }
    let mut out = Tree::new();
    walk(root, root, &mut out);
    Some(out)
}

/// Names in `dir` left by runs (staging or renamed-aside directories).
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".spool-staging-") || n.contains(".spool-old-"))
        .collect()
}

fn write_input(path: &Path, keys: usize, lines: usize, salt: &str) {
    let text: String = (0..lines)
        .map(|i| format!("{i}\tk{}\t{salt}-{}\n", (i * 7919) % keys, i * 31))
        .collect();
    std::fs::write(path, text).unwrap();
}

fn partition(input: &Path, out: &Path, force: bool) -> Command {
    let mut cmd = spool();
    cmd.args(["partition", "-q", "--by", "2", "--threads", "2", "--out"])
        .arg(out)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if force {
        cmd.arg("--force");
    }
    cmd
}

fn run_ok(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// A small deterministic generator (xorshift), so a failing trial can be
/// replayed from the seed printed with it.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

#[test]
fn kill_9_at_any_moment_leaves_the_old_dataset_or_the_new_one_whole() {
    let dir = Dir::new("rel-kill");
    let (old_in, new_in) = (dir.0.join("old.tsv"), dir.0.join("new.tsv"));
    write_input(&old_in, 50, 10_000, "old");
    write_input(&new_in, 300, 50_000, "new");
    // The two complete datasets a reader may find.
    let reference = dir.0.join("reference");
    let started = Instant::now();
    run_ok(partition(&new_in, &reference, false));
    let full_run = started.elapsed();
    let new_tree = tree(&reference).unwrap();
    std::fs::remove_dir_all(&reference).unwrap();
    run_ok(partition(&old_in, &reference, false));
    let old_tree = tree(&reference).unwrap();

    let trials = if long_mode() { 100 } else { 20 };
    let seed = 0x5eed_u64 ^ u64::from(std::process::id());
    let mut rng = Rng(seed | 1);
    let (mut absent, mut old, mut new, mut partial) = (0, 0, 0, 0);
    let out = dir.0.join("out");
    for trial in 0..trials {
        // Half the trials replace an existing dataset (--force), half
        // write a new one; the kill lands anywhere in 0..1.5 × a full run
        // (load on the machine stretches runs: some end before the kill).
        let replace = trial % 2 == 1;
        let _ = std::fs::remove_dir_all(&out);
        if replace {
            run_ok(partition(&old_in, &out, false));
        }
        let delay = full_run.mul_f64(rng.below(1500) as f64 / 1000.0);
        let mut child = partition(&new_in, &out, replace)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL; fails only if it already ended
        child.wait().unwrap();
        match tree(&out) {
            None => absent += 1,
            Some(t) if t == old_tree => old += 1,
            Some(t) if t == new_tree => new += 1,
            Some(t) => {
                partial += 1;
                eprintln!(
                    "trial {trial} (seed {seed:#x}, kill after {delay:?}): a partial dataset of {} files",
                    t.len()
                );
            }
        }
        // The next run cleans up after the dead one and succeeds.
        let stderr = run_ok(partition(&new_in, &out, true));
        assert_eq!(
            tree(&out).as_ref(),
            Some(&new_tree),
            "trial {trial}: {stderr}"
        );
        assert_eq!(leftovers(&dir.0), Vec::<String>::new(), "trial {trial}");
    }
    eprintln!(
        "kill -9 trials: {trials} (full run {full_run:?}); output absent {absent}, \
         old dataset whole {old}, new dataset whole {new}, partial {partial}"
    );
    assert_eq!(partial, 0, "complete-looking partial datasets");
}

#[test]
fn two_runs_into_one_output_never_mix() {
    let dir = Dir::new("rel-concurrent");
    let input = dir.0.join("in.tsv");
    write_input(&input, 300, 100_000, "x");
    let reference = dir.0.join("reference");
    run_ok(partition(&input, &reference, false));
    let want = tree(&reference).unwrap();

    let trials = if long_mode() { 20 } else { 5 };
    let mut refused = 0;
    for trial in 0..trials {
        let out = dir.0.join(format!("out{trial}"));
        let a = partition(&input, &out, false).spawn().unwrap();
        let b = partition(&input, &out, false).spawn().unwrap();
        let results = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
        let ok = results.iter().filter(|r| r.status.success()).count();
        assert!(ok >= 1, "trial {trial}: neither run succeeded");
        for r in results.iter().filter(|r| !r.status.success()) {
            let stderr = String::from_utf8_lossy(&r.stderr);
            assert!(
                stderr.contains("another run is writing this output")
                    || stderr.contains("not empty"),
                "trial {trial}: {stderr}"
            );
            assert!(stderr.contains(&out.display().to_string()), "{stderr}");
            refused += 1;
        }
        assert_eq!(
            tree(&out).as_ref(),
            Some(&want),
            "trial {trial}: a corrupt dataset"
        );
    }
    eprintln!("concurrent-run trials: {trials}; corruptions 0; second run refused {refused}");
    assert!(leftovers(&dir.0).is_empty());
}

#[test]
fn a_full_disk_fails_the_run_and_leaves_nothing() {
    use std::os::unix::process::CommandExt;
    let dir = Dir::new("rel-full");
    let input = dir.0.join("in.tsv");
    write_input(&input, 20, 50_000, "payload-payload-payload");
    let out = dir.0.join("out");
    let mut cmd = partition(&input, &out, false);
    // A file-size limit makes a write fail partway as a full disk does
    // (EFBIG instead of ENOSPC), without needing a small file system.
    // SAFETY: between fork and exec the closure only calls setrlimit and
    // signal, both async-signal-safe, on values of its own.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 64 << 10,
                rlim_max: 64 << 10,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Fail the write with EFBIG instead of killing the process.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let result = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(
        stderr.contains(&dir.0.display().to_string()),
        "no path named: {stderr}"
    );
    assert!(!out.exists(), "a failed run left its output");
    assert!(leftovers(&dir.0).is_empty(), "{:?}", leftovers(&dir.0));
}

#[test]
fn keys_crafted_to_collide_each_get_their_own_file() {
    let dir = Dir::new("rel-collide");
    // The pair shares a 64-bit FNV-1a hash; `_partitions` is the manifest's
    // name; `__HIVE_DEFAULT_PARTITION__` is the empty key's.
    let prefix = "a".repeat(190);
    let keys = [
        format!("{prefix}cYxhNSkmN~B"),
        format!("{prefix}POofLrbkJj@"),
        "_partitions".to_owned(),
        "__HIVE_DEFAULT_PARTITION__".to_owned(),
        String::new(),
    ];
    let text: String = keys
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{i}\t{k}\n"))
        .collect();
    for layout in ["hive", "flat"] {
        let out = dir.0.join(layout);
        let mut child = spool()
            .args(["partition", "-q", "--by", "2", "--layout", layout, "--out"])
            .arg(&out)
            .arg("-")
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), text.as_bytes()).unwrap();
        let result = child.wait_with_output().unwrap();
        assert!(
            result.status.success(),
            "{layout}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        let files = tree(&out).unwrap();
        assert_eq!(files.len(), keys.len() + 1, "{layout}: {:?}", files.keys());
        let manifest = String::from_utf8(files[Path::new("_partitions.tsv")].clone()).unwrap();
        assert!(
            manifest.starts_with("column\tkey\tpath\trecords\n"),
            "{manifest}"
        );
        // Every record in its own file, under the path the manifest names.
        for line in manifest.lines().skip(1) {
            let path = line.split('\t').nth(2).unwrap();
            let body = String::from_utf8(files[Path::new(path)].clone()).unwrap();
            assert_eq!(body.lines().count(), 1, "{layout}: {path}");
        }
    }
}

#[test]
fn the_flat_key_named_like_the_manifest() {
    let dir = Dir::new("rel-flat-manifest");
    let out = dir.0.join("X");
    let mut child = spool()
        .args(["partition", "--by", "2", "--layout", "flat", "--out"])
        .arg(&out)
        .arg("-")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"1\t_partitions\n").unwrap();
    let result = child.wait_with_output().unwrap();
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert_eq!(
        std::fs::read(out.join("%5Fpartitions.tsv")).unwrap(),
        b"1\t_partitions\n"
    );
    let manifest = std::fs::read_to_string(out.join("_partitions.tsv")).unwrap();
    assert_eq!(
        manifest,
        "column\tkey\tpath\trecords\ncol2\t%5Fpartitions\t%5Fpartitions.tsv\t1\n"
    );
}

#[test]
fn a_stale_staging_directory_is_removed_with_a_warning_and_never_published() {
    let dir = Dir::new("rel-stale");
    let input = dir.0.join("in.tsv");
    write_input(&input, 5, 100, "x");
    let dead = dir.0.join(".out.spool-staging-1-dead");
    std::fs::create_dir_all(dead.join("col2=zzz")).unwrap();
    std::fs::write(dead.join("_partitions.tsv"), "column\tkey\tpath\trecords\n").unwrap();
    let out = dir.0.join("out");
    let stderr = run_ok(partition(&input, &out, false));
    assert!(
        stderr.contains("warning: removed") && stderr.contains(".out.spool-staging-1-dead"),
        "{stderr}"
    );
    assert!(!out.join("col2=zzz").exists());
    assert!(leftovers(&dir.0).is_empty());
}
