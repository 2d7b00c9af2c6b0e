//! `spool pwned build --format` and `convert`, and what `check`, `verify`
//! and `spool-okon` answer from each layout: counts from full and t64, a
//! count-less "probably pwned" from a filter, the same exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::Dir;

fn spool(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(args);
    cmd
}

fn run(mut cmd: Command) -> Output {
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn sha1_hex(password: &str) -> String {
    spool_pwned::to_hex(&spool_pwned::HashKind::Sha1.hash_password(password))
}

/// A prevalence-ordered sample of 3,000 hashes, built as `format`.
fn build(dir: &Path, format: &str) -> PathBuf {
    let sample = dir.join("sample.txt");
    if !sample.exists() {
        let mut cmd = spool(&["pwned", "sample", "--lines", "3000", "--seed", "8"]);
        cmd.args(["--order", "prevalence", "-o"]).arg(&sample);
        assert!(run(cmd).status.success());
    }
    let index = dir.join(format!("pwned.{format}"));
    let mut cmd = spool(&[
        "pwned", "build", "--memory", "48M", "--format", format, "-o",
    ]);
    cmd.arg(&index).arg(&sample);
    let out = run(cmd);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!("({format} index)")),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.join(format!(".pwned.{format}.full")).exists());
    index
}

fn check(index: &Path, args: &[&str], stdin: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = spool(&["pwned", "check", "-i"]);
    cmd.arg(index).args(args);
    let out = if let Some(input) = stdin {
        let file = index.with_extension("stdin");
        std::fs::write(&file, input).unwrap();
        cmd.stdin(std::fs::File::open(&file).unwrap());
        run(cmd)
    } else {
        run(cmd)
    };
    (out.status.code(), text(&out.stdout))
}

fn okon(index: &Path, hash: &str) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_spool-okon"));
    cmd.arg("--path").arg(index).args(["--hash", hash]);
    let out = run(cmd);
    (out.status.code(), text(&out.stdout))
}

#[test]
fn every_layout_answers_check_verify_and_okon() {
    let dir = Dir::new("formats");
    let present = spool_pwned::sample::sample_password(8, 11);
    let count = spool_pwned::sample::sample_count(8, 11);
    let (hit, miss) = (sha1_hex(&present), sha1_hex("not-in-the-sample"));
    for format in ["full", "t64", "filter"] {
        let index = build(&dir.0, format);
        let found = if format == "filter" {
            "probably pwned (a filter index: no count; about 1 in 65,536 passwords not in it is reported so)\n".to_string()
        } else {
            format!("pwned: seen {count} times\n")
        };
        assert_eq!(
            check(&index, &["--hash", &hit], None),
            (Some(0), found.clone()),
            "{format}"
        );
        assert_eq!(
            check(&index, &["--password", &present], None),
            (Some(0), found),
            "{format}"
        );
        assert_eq!(
            check(&index, &["--hash", &miss], None),
            (Some(1), "not found\n".into()),
            "{format}"
        );
        let batch = check(
            &index,
            &["--batch", "-"],
            Some(&format!("{hit}\n\n{miss}\n")),
        );
        let answer = if format == "filter" {
            "probably".to_string()
        } else {
            count.to_string()
        };
        assert_eq!(
            batch,
            (Some(0), format!("{hit}\t{answer}\n{miss}\t0\n")),
            "{format}"
        );
        assert_eq!(okon(&index, &hit), (Some(1), "1\n".into()), "{format}");
        assert_eq!(okon(&index, &miss), (Some(0), "0\n".into()), "{format}");
        let out = run({
            let mut cmd = spool(&["pwned", "verify"]);
            cmd.arg(&index);
            cmd
        });
        assert!(out.status.success(), "{format}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains(&format!("ok, 3000 hashes ({format} index)")));
    }
}

#[test]
fn convert_matches_build_format_and_refuses_a_damaged_index() {
    let dir = Dir::new("convert");
    let full = build(&dir.0, "full");
    let built = build(&dir.0, "t64");
    let converted = dir.0.join("converted.t64");
    let mut cmd = spool(&["pwned", "convert", "--format", "t64", "-o"]);
    cmd.arg(&converted).arg(&full);
    let out = run(cmd);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(&built).unwrap(),
        std::fs::read(&converted).unwrap()
    );

    let mut bytes = std::fs::read(&full).unwrap();
    let at = bytes.len() - 20_000;
    bytes[at] ^= 0x10;
    let damaged = dir.0.join("damaged.idx");
    std::fs::write(&damaged, &bytes).unwrap();
    let target = dir.0.join("from-damaged.filter");
    let mut cmd = spool(&["pwned", "convert", "--format", "filter", "-o"]);
    cmd.arg(&target).arg(&damaged);
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("fails its checksum"),
        "{}",
        text(&out.stderr)
    );
    assert!(!target.exists(), "nothing is written from a damaged index");
}

#[test]
fn a_failed_build_leaves_neither_output_nor_full_index() {
    let dir = Dir::new("formats-bad");
    let input = dir.0.join("bad.txt");
    std::fs::write(
        &input,
        "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:1\nnot a hash\n",
    )
    .unwrap();
    let out_path = dir.0.join("x.filter");
    let mut cmd = spool(&["pwned", "build", "--format", "filter", "-o"]);
    cmd.arg(&out_path).arg(&input);
    let out = run(cmd);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("bad.txt:2: byte offset 43"),
        "{}",
        text(&out.stderr)
    );
    assert!(!out_path.exists());
    assert!(!dir.0.join(".x.filter.full").exists());
}
