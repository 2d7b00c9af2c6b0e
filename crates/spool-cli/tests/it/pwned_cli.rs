//! `spool pwned` and `spool-okon` end to end: sample, build, check (hash,
//! password, stdin, batch), verify, and okon-cli's exit-code contract.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use crate::support::spool;

fn okon() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spool-okon"))
}

fn run(mut cmd: Command, stdin: Option<&str>) -> Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

use crate::support::Dir;

fn sha1_hex(password: &str) -> String {
    spool_pwned::to_hex(&spool_pwned::HashKind::Sha1.hash_password(password))
}

fn built_index(dir: &Dir) -> PathBuf {
    let sample = dir.0.join("sample.txt");
    let mut cmd = spool();
    cmd.args([
        "pwned",
        "sample",
        "--lines",
        "2000",
        "--seed",
        "5",
        "--order",
        "prevalence",
        "--crlf",
        "-o",
    ])
    .arg(&sample);
    assert!(run(cmd, None).status.success());
    let index = dir.0.join("pwned.idx");
    let mut cmd = spool();
    cmd.args(["pwned", "build", "--memory", "48M", "-o"])
        .arg(&index)
        .arg(&sample);
    let out = run(cmd, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("2000 hashes"));
    index
}

#[test]
fn check_exit_codes_and_outputs() {
    let dir = Dir::new("check");
    let index = built_index(&dir);
    let present = spool_pwned::sample::sample_password(5, 42);
    let count = spool_pwned::sample::sample_count(5, 42);

    let mut cmd = spool();
    cmd.args(["pwned", "check", "-i"])
        .arg(&index)
        .args(["--hash", &sha1_hex(&present)]);
    let out = run(cmd, None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("pwned: seen {count} times\n")
    );

    let mut cmd = spool();
    cmd.args(["pwned", "check", "-i"])
        .arg(&index)
        .args(["--password", "not-in-the-sample"]);
    let out = run(cmd, None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "not found\n");

    // From stdin (not a terminal): the first line is the password.
    let mut cmd = spool();
    cmd.args(["pwned", "check", "-i"]).arg(&index);
    let out = run(cmd, Some(&format!("{present}\n")));
    assert_eq!(out.status.code(), Some(0));

    let mut cmd = spool();
    cmd.args(["pwned", "check", "--batch", "-", "-i"])
        .arg(&index);
    let absent = sha1_hex("nope");
    let out = run(
        cmd,
        Some(&format!(
            "{}\n{}\n",
            sha1_hex(&present).to_lowercase(),
            absent
        )),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}\t{count}\n{absent}\t0\n", sha1_hex(&present))
    );

    let mut cmd = spool();
    cmd.args(["pwned", "check", "-i"])
        .arg(&index)
        .args(["--hash", "xyz"]);
    let out = run(cmd, None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a 40-digit hex SHA-1 hash"));

    let mut cmd = spool();
    cmd.args(["pwned", "verify"]).arg(&index);
    assert!(run(cmd, None).status.success());
}

#[test]
fn okon_contract() {
    let dir = Dir::new("okon");
    let index = built_index(&dir);
    let present = sha1_hex(&spool_pwned::sample::sample_password(5, 7));
    let mut cmd = okon();
    cmd.arg("--path").arg(&index).args(["--hash", &present]);
    let out = run(cmd, None);
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string()
        ),
        (Some(1), "1\n".into())
    );
    let mut cmd = okon();
    cmd.arg("--path")
        .arg(&index)
        .args(["--hash", &sha1_hex("absent")]);
    let out = run(cmd, None);
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string()
        ),
        (Some(0), "0\n".into())
    );
    let mut cmd = okon();
    cmd.arg("--path")
        .arg(dir.0.join("missing.idx"))
        .args(["--hash", &present]);
    assert_eq!(run(cmd, None).status.code(), Some(2));
    let garbage = dir.0.join("garbage");
    std::fs::write(&garbage, b"not an index").unwrap();
    let mut cmd = okon();
    cmd.arg("--path").arg(&garbage).args(["--hash", &present]);
    assert_eq!(run(cmd, None).status.code(), Some(2));
}

#[test]
fn build_errors_name_the_line() {
    let dir = Dir::new("bad");
    let input = dir.0.join("bad.txt");
    std::fs::write(
        &input,
        "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:1\nnot a hash\n",
    )
    .unwrap();
    let out_path = dir.0.join("x.idx");
    let mut cmd = spool();
    cmd.args(["pwned", "build", "-o"])
        .arg(&out_path)
        .arg(&input);
    let out = run(cmd, None);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt:2: byte offset 43"), "{err}");
    assert!(!out_path.exists());
    let mut cmd = spool();
    cmd.args(["pwned", "build", "--skip-invalid", "-o"])
        .arg(&out_path)
        .arg(&input);
    let out = run(cmd, None);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 invalid lines skipped"));
}

/// `-q`/`--quiet` is taken as by every long-running command (`spool
/// partition`): no progress bar, the summary line stays. Warnings say so,
/// in the same form as `spool partition`'s.
#[test]
fn build_takes_quiet_and_warns_like_partition() {
    let dir = Dir::new("quiet");
    let input = dir.0.join("in.txt");
    std::fs::write(&input, "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:1\n").unwrap();
    for flag in ["-q", "--quiet"] {
        let out_path = dir.0.join(format!("quiet{flag}.idx"));
        let mut cmd = spool();
        cmd.args(["pwned", "build", flag, "-o"])
            .arg(&out_path)
            .arg(&input);
        let out = run(cmd, None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{flag}: {err}");
        assert!(err.contains("1 hashes written"), "{flag}: {err}");
        assert!(out_path.exists());
    }
    let mut cmd = spool();
    cmd.args(["pwned", "build", "-q", "--threads", "100000", "-o"])
        .arg(dir.0.join("threads.idx"))
        .arg(&input);
    let out = run(cmd, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.starts_with("spool pwned build: warning: --threads 100000 capped to "),
        "{err}"
    );
    // An error under -q is the CLI's one error line, naming the path.
    let missing = dir.0.join("missing.txt");
    let mut cmd = spool();
    cmd.args(["pwned", "build", "-q", "-o"])
        .arg(dir.0.join("missing.idx"))
        .arg(&missing);
    let out = run(cmd, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("spool: error: "), "{err}");
    assert!(err.contains(&*missing.to_string_lossy()), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!dir.0.join("missing.idx").exists());
}

/// `convert -q` prints nothing on success (it has no progress bar; the
/// summary line goes), and its errors keep the CLI's form.
#[test]
fn convert_takes_quiet() {
    let dir = Dir::new("convert-quiet");
    let full = built_index(&dir);
    for flag in ["-q", "--quiet"] {
        let out_path = dir.0.join(format!("quiet{flag}.t64"));
        let mut cmd = spool();
        cmd.args(["pwned", "convert", flag, "--format", "t64", "-o"])
            .arg(&out_path)
            .arg(&full);
        let out = run(cmd, None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{flag}: {err}");
        assert_eq!(err, "", "{flag}");
        assert!(out_path.exists());
    }
    let mut cmd = spool();
    cmd.args(["pwned", "convert", "--format", "t64", "-o"])
        .arg(dir.0.join("loud.t64"))
        .arg(&full);
    let out = run(cmd, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("spool pwned convert: "), "{err}");
    let mut cmd = spool();
    cmd.args(["pwned", "convert", "-q", "--format", "t64", "-o"])
        .arg(dir.0.join("none.t64"))
        .arg(dir.0.join("none.idx"));
    let out = run(cmd, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("spool: error: ") && err.contains("none.idx"),
        "{err}"
    );
}

/// The downloader writes a million range files; they are opened one at a
/// time, so a directory with far more files than the descriptor limit
/// builds.
#[test]
fn range_directory_larger_than_the_descriptor_limit() {
    let dir = Dir::new("pwned-ranges");
    let ranges = dir.0.join("ranges");
    spool_pwned::sample::write_sample_ranges(&ranges, spool_pwned::HashKind::Sha1, 3000, 2, true)
        .unwrap();
    let files = std::fs::read_dir(&ranges).unwrap().count();
    assert!(files > 2000, "{files} range files");
    let index = dir.0.join("pwned.idx");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(r#"ulimit -n 64 && exec "$0" pwned build -o "$1" "$2""#)
        .arg(env!("CARGO_BIN_EXE_spool"))
        .arg(&index)
        .arg(&ranges);
    let out = run(cmd, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("3000 hashes"), "{stderr}");
    let hash = sha1_hex(&spool_pwned::sample::sample_password(2, 1234));
    let mut cmd = spool();
    cmd.args(["pwned", "check", "-i"])
        .arg(&index)
        .args(["--hash", &hash]);
    assert!(run(cmd, None).status.success());
}

/// What KeePassXC's `keepassxc-cli analyze --hibp FILE --okon BINARY` does:
/// it refuses a FILE not named `*.okon`, passes the SHA-1 in lowercase hex
/// as `--path FILE --hash HEX`, and reads only the exit code (1 found,
/// 2 cannot load, anything else not found).
#[test]
fn keepassxc_invocation() {
    let dir = Dir::new("keepassxc");
    let index = built_index(&dir);
    let okon_file = dir.0.join("pwned.okon");
    std::fs::rename(&index, &okon_file).unwrap();
    for (password, code) in [
        (spool_pwned::sample::sample_password(5, 11), 1),
        ("not in the sample".to_string(), 0),
    ] {
        let lower = sha1_hex(&password).to_lowercase();
        let out = okon()
            .arg("--path")
            .arg(&okon_file)
            .args(["--hash", &lower])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{password}");
    }
}
