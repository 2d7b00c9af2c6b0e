//! What a user sees when something is wrong: one error line that names
//! their path and says what to do, exit status 2, and nothing left behind.
//! One test per kind of mistake.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::support::Dir;

use crate::support::spool;

/// Runs `cmd` with `stdin` as its standard input and returns its output.
fn run_with_stdin(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Asserts that `cmd` fails with exit status 2 and returns its standard
/// error, which must be a single line.
fn fails(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

/// How often `needle` occurs in `haystack`.
fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

fn partition(out: &Path) -> Command {
    let mut cmd = spool();
    cmd.args(["partition", "-q", "--out"]).arg(out);
    cmd
}

/// Lines `k{i % keys}\t{i}\tvalue` in a file.
fn write_sample(path: &Path, keys: usize, lines: usize) -> String {
    let text: String = (0..lines)
        .map(|i| format!("k{}\t{i}\tvalue-{}\n", i % keys, i * 31))
        .collect();
    std::fs::write(path, &text).unwrap();
    text
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// A sample SHA-1 HIBP file of `lines` hashes.
fn pwned_sample(dir: &Dir, lines: u64) -> std::path::PathBuf {
    let path = dir.0.join("sample.txt");
    let status = spool()
        .args(["pwned", "sample", "--lines", &lines.to_string(), "-o"])
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    path
}

#[test]
fn io_errors_are_printed_once_and_name_the_path() {
    let dir = Dir::new("errors-once");
    let input = dir.0.join("in.tsv");
    write_sample(&input, 3, 10);
    let nosuch = dir.0.join("nosuch.tsv");
    let err = fails(partition(&dir.0.join("a")).args(["--by", "1"]).arg(&nosuch));
    assert!(err.contains(&format!("{}:", nosuch.display())), "{err}");
    assert_eq!(count(&err, "No such file"), 1, "{err}");

    let truncated = dir.0.join("cut.tsv.gz");
    let whole = gzip(write_sample(&dir.0.join("big.tsv"), 3, 20_000).as_bytes());
    std::fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    let err = fails(
        partition(&dir.0.join("b"))
            .args(["--by", "1"])
            .arg(&truncated),
    );
    assert!(err.contains(&format!("{}:", truncated.display())), "{err}");
    assert_eq!(count(&err, "deflate stream"), 1, "{err}");

    // A file where a folder should be fails to write even for root, as a
    // read-only folder would for anyone else.
    let blocked = input.join("out");
    let err = fails(partition(&blocked).args(["--by", "1"]).arg(&input));
    assert!(err.contains(&format!("{}:", blocked.display())), "{err}");
    assert_eq!(count(&err, "Not a directory"), 1, "{err}");

    let index = dir.0.join("nosuch.idx");
    let err = fails(
        spool()
            .args(["pwned", "check", "--password", "x", "-i"])
            .arg(&index),
    );
    assert!(err.contains(&format!("{}:", index.display())), "{err}");
    assert_eq!(count(&err, "No such file"), 1, "{err}");
}

#[test]
fn a_grouping_given_twice_is_refused_and_leaves_no_folder() {
    let dir = Dir::new("by-twice");
    let input = dir.0.join("in.tsv");
    write_sample(&input, 3, 10);
    let out = dir.0.join("out");
    let err = fails(partition(&out).args(["--by", "1", "--by", "1"]).arg(&input));
    assert!(err.contains("--by \"1\" is given twice"), "{err}");
    assert!(!out.exists(), "the created output folder was left behind");

    // The same column by name and by number is only known after the
    // header is read, when the output folder exists: it is removed again.
    let with_header = dir.0.join("header.tsv");
    std::fs::write(&with_header, "key\tn\nk1\t1\nk2\t2\n").unwrap();
    let err = fails(
        partition(&out)
            .args(["--header", "--by", "key", "--by", "1"])
            .arg(&with_header),
    );
    assert!(err.contains("are the same column (key)"), "{err}");
    assert!(!out.exists(), "the created output folder was left behind");
}

#[test]
fn column_zero_says_columns_count_from_one() {
    let dir = Dir::new("by-zero");
    let input = dir.0.join("in.tsv");
    write_sample(&input, 3, 10);
    let out = dir.0.join("out");
    let err = fails(partition(&out).args(["--by", "0"]).arg(&input));
    assert!(err.contains("columns count from 1"), "{err}");
    assert!(!err.contains("not a number"), "{err}");
    let err = fails(
        partition(&out)
            .args(["--by", "1", "--where", "0~x"])
            .arg(&input),
    );
    assert!(err.contains("columns count from 1"), "{err}");
    assert!(!out.exists());
}

/// The number before ` MiB` after "use at least " in `err`.
fn least_mib(err: &str) -> usize {
    let rest = &err[err.find("use at least ").expect(err) + "use at least ".len()..];
    rest[..rest.find(" MiB").expect(err)].parse().expect(err)
}

#[test]
fn partition_memory_too_small_says_what_was_given_and_the_minimum() {
    memory_too_small_names_the_minimum("memory-small", &[]);
}

/// Parquet sets aside more as `--memory` grows (row groups, arena slack):
/// the minimum named must still be enough once its own share is taken.
#[test]
fn partition_parquet_memory_too_small_names_a_minimum_that_is_enough() {
    memory_too_small_names_the_minimum("memory-small-parquet", &["--format", "parquet"]);
}

fn memory_too_small_names_the_minimum(tag: &str, format: &[&str]) {
    let dir = Dir::new(tag);
    let input = dir.0.join("in.tsv");
    write_sample(&input, 3, 10);
    let err = fails(
        partition(&dir.0.join("a"))
            .args(format)
            .args(["--by", "1", "--threads", "2", "--memory", "1K"])
            .arg(&input),
    );
    assert!(err.contains("--memory 1 KiB is too small"), "{err}");
    // The minimum it names is enough, and one MiB less is not.
    let least = least_mib(&err);
    let err = fails(
        partition(&dir.0.join("b"))
            .args(format)
            .args(["--by", "1", "--threads", "2", "--memory"])
            .arg(format!("{}M", least - 1))
            .arg(&input),
    );
    assert!(
        err.contains(&format!("--memory {} MiB", least - 1)),
        "{err}"
    );
    let out = partition(&dir.0.join("c"))
        .args(format)
        .args(["--by", "1", "--threads", "2", "--memory"])
        .arg(format!("{least}M"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn pwned_build_refuses_memory_below_what_it_needs() {
    let dir = Dir::new("pwned-memory-small");
    let input = pwned_sample(&dir, 100);
    let index = dir.0.join("p.idx");
    let build = |memory: &str| {
        let mut cmd = spool();
        cmd.args(["pwned", "build", "--threads", "2", "--memory", memory, "-o"])
            .arg(&index)
            .arg(&input);
        cmd
    };
    let err = fails(&mut build("1K"));
    assert!(err.contains("--memory 1 KiB is too small"), "{err}");
    assert!(!index.exists());
    // The peak-RSS test (pwned_memory.rs) holds a two-thread build to its
    // minimum of 48 MiB, so the minimum named here must not exceed it.
    let least = least_mib(&err);
    assert!((40..=48).contains(&least), "{err}");
    fails(&mut build(&format!("{}M", least - 1)));
    let out = build(&format!("{least}M")).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn zero_threads_or_open_files_are_refused() {
    let dir = Dir::new("zero-counts");
    let input = dir.0.join("in.tsv");
    write_sample(&input, 3, 10);
    let out = dir.0.join("out");
    for flag in ["--threads", "--max-open"] {
        let res = partition(&out)
            .args(["--by", "1", flag, "0"])
            .arg(&input)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(2), "{flag} 0: {err}");
        assert!(
            err.contains(flag) && err.contains("give 1 or more"),
            "{err}"
        );
        assert!(!out.exists());
    }
    let pwned = pwned_sample(&dir, 10);
    let pwned = pwned.to_str().unwrap();
    for args in [
        &["pwned", "build", "--threads", "0", "-o", "p.idx", pwned][..],
        &["pwned", "serve", "--sha1", "p.idx", "--threads", "0"][..],
        &[
            "pwned",
            "serve",
            "--sha1",
            "p.idx",
            "--max-connections",
            "0",
        ][..],
    ] {
        let res = spool().current_dir(&dir.0).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("give 1 or more"), "{args:?}: {err}");
    }
    assert!(!dir.0.join("p.idx").exists());
}

#[test]
fn pwned_check_refuses_an_empty_standard_input() {
    let dir = Dir::new("check-empty-stdin");
    let index = dir.0.join("p.idx");
    let status = spool()
        .args(["pwned", "build", "-o"])
        .arg(&index)
        .arg(pwned_sample(&dir, 10))
        .status()
        .unwrap();
    assert!(status.success());
    let check = || {
        let mut cmd = spool();
        cmd.args(["pwned", "check", "-i"]).arg(&index);
        cmd
    };
    let out = run_with_stdin(check(), b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("standard input is empty"), "{err}");
    assert!(out.stdout.is_empty(), "checked something anyway");
    // An empty line is the empty password, checked like any other.
    let out = run_with_stdin(check(), b"\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "not found\n");
}

#[test]
fn pwned_build_into_an_unwritable_folder_names_the_output() {
    let dir = Dir::new("build-unwritable");
    let input = pwned_sample(&dir, 10);
    // A file where the folder should be: fails for root too.
    let index = input.join("p.idx");
    let err = fails(
        spool()
            .args(["pwned", "build", "-o"])
            .arg(&index)
            .arg(&input),
    );
    let named = format!("spool: error: {}: ", index.display());
    assert!(err.starts_with(&named), "{err}");
    assert!(
        err.contains("check that the folder exists and can be written"),
        "{err}"
    );
}

#[test]
fn corrupt_gzip_says_where_in_the_compressed_and_decompressed_input() {
    let dir = Dir::new("gzip-middle");
    let text = write_sample(&dir.0.join("plain.tsv"), 50, 200_000);
    // Two gzip members (as `cat a.gz b.gz` makes); the second one's header
    // names a compression method that does not exist, so the error is
    // where the first member ends, after its whole text.
    let (first, second) = text.split_at(text[..text.len() / 2].rfind('\n').unwrap() + 1);
    let mut bytes = gzip(first.as_bytes());
    let member_end = bytes.len();
    let mut broken = gzip(second.as_bytes());
    broken[2] = 9; // CM: 8 is deflate, nothing else is defined
    bytes.extend_from_slice(&broken);
    let input = dir.0.join("in.tsv.gz");
    std::fs::write(&input, &bytes).unwrap();
    let err = fails(
        partition(&dir.0.join("out"))
            .args(["--by", "1"])
            .arg(&input),
    );
    assert!(err.contains(&format!("{}: ", input.display())), "{err}");
    let number_after = |label: &str| -> usize {
        let rest = &err[err.find(label).expect(&err) + label.len()..];
        rest[..rest.find(|c: char| !c.is_ascii_digit()).unwrap()]
            .parse()
            .unwrap()
    };
    // "near": the decoder reads a member's 10-byte header before checking it.
    let compressed = number_after("compressed byte offset ");
    assert!(
        (member_end..=member_end + 10).contains(&compressed),
        "{err}"
    );
    assert_eq!(number_after("found after "), first.len(), "{err}");
    let lines = first.matches('\n').count();
    assert!(
        err.contains(&format!("decompressed bytes ({lines} lines)")),
        "{err}"
    );
}
