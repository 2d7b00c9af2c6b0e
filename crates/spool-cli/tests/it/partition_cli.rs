//! `spool partition` end to end: compressed inputs and outputs checked with
//! the standard `zstd` and `gzip` tools, the open-file limit under a real
//! `ulimit -n`, errors and exit codes.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::Dir;

use crate::support::spool;

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "status {:?}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `tool -dc path` with the system's decompressor.
fn decompress_with(tool: &str, path: &Path) -> Vec<u8> {
    let out = Command::new(tool)
        .arg("-dc")
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{tool} is needed for this test: {e}"));
    assert!(
        out.status.success(),
        "{tool} -dc {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn sample(keys: usize, lines: usize) -> String {
    (0..lines)
        .map(|i| format!("k{}\t{i}\tpayload-{}\n", i % keys, i * 7))
        .collect()
}

fn expected(text: &str, key: &str) -> String {
    text.lines()
        .filter(|l| l.split('\t').next() == Some(key))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn compressed_inputs_and_outputs_work_with_the_standard_tools() {
    let dir = Dir::new("compress");
    let text = sample(7, 3000);
    // One gzip input, one zstd input, one plain: the output keeps file order.
    let (first, rest) = text.split_at(text.len() / 3);
    let (second, third) = rest.split_at(rest.find("\nk").unwrap() + 1);
    let first_end = first.rfind('\n').unwrap() + 1;
    let (first, carry) = first.split_at(first_end);
    let second = format!("{carry}{second}");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(first.as_bytes()).unwrap();
    std::fs::write(dir.0.join("a.tsv.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(
        dir.0.join("b.tsv.zst"),
        zstd::encode_all(second.as_bytes(), 3).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.0.join("c.tsv"), third).unwrap();
    for (compress, tool, ext) in [("zstd", "zstd", "zst"), ("gzip", "gzip", "gz")] {
        let out = dir.0.join(format!("out-{compress}"));
        ok(spool()
            .args([
                "partition",
                "--by",
                "1",
                "--compress",
                compress,
                "--max-open",
                "2",
                "--memory",
                "64M",
                "--out",
            ])
            .arg(&out)
            .args([
                dir.0.join("a.tsv.gz"),
                dir.0.join("b.tsv.zst"),
                dir.0.join("c.tsv"),
            ])
            .output()
            .unwrap());
        for k in 0..7 {
            let key = format!("k{k}");
            let file = out.join(format!("col1={key}/part-00000.tsv.{ext}"));
            let got = decompress_with(tool, &file);
            assert_eq!(
                String::from_utf8(got).unwrap(),
                expected(&text, &key),
                "{}",
                file.display()
            );
        }
    }
}

#[test]
fn stays_under_a_real_descriptor_limit() {
    let dir = Dir::new("ulimit");
    let text = sample(500, 5000);
    std::fs::write(dir.0.join("in.tsv"), &text).unwrap();
    let out = dir.0.join("out");
    let script = format!(
        "ulimit -n 48 && exec {} partition --by 1 --max-open 24 --threads 2 --out {} {}",
        env!("CARGO_BIN_EXE_spool"),
        out.display(),
        dir.0.join("in.tsv").display()
    );
    ok(Command::new("sh").arg("-c").arg(script).output().unwrap());
    for k in (0..500).step_by(37) {
        let key = format!("k{k}");
        let got = std::fs::read_to_string(out.join(format!("col1={key}/part-00000.tsv"))).unwrap();
        assert_eq!(got, expected(&text, &key));
    }
}

#[test]
fn bad_record_fails_with_location_and_exit_2() {
    let dir = Dir::new("bad");
    std::fs::write(dir.0.join("in.tsv"), "a\tb\nno-tab\n").unwrap();
    let out = spool()
        .args(["partition", "--by", "2", "--out"])
        .arg(dir.0.join("out"))
        .arg(dir.0.join("in.tsv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("in.tsv:2: byte offset 4: record has 1 field(s)"),
        "{err}"
    );
    assert!(!dir.0.join("out").exists());
    let out = ok(spool()
        .args(["partition", "--by", "2", "--skip-invalid", "--out"])
        .arg(dir.0.join("out"))
        .arg(dir.0.join("in.tsv"))
        .output()
        .unwrap());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1 invalid skipped"), "{err}");
}

#[test]
fn usage_errors() {
    let dir = Dir::new("usage");
    std::fs::write(dir.0.join("in.tsv"), "a\tb\n").unwrap();
    for (args, want) in [
        (vec!["--where", "nope"], "expected COLUMN~REGEX"),
        (vec!["--where", "1~("], "regex"),
        (vec!["--memory", "1M"], "too small"),
        (vec!["--delimiter", "ab"], "not a delimiter"),
        (
            vec!["--compress", "gzip", "--level", "0"],
            "gzip levels are 1-12",
        ),
        (
            vec!["--compress", "gzip", "--level", "13"],
            "gzip levels are 1-12",
        ),
        (
            vec!["--compress", "zstd", "--level", "23"],
            "zstd levels are 1-22",
        ),
        (vec!["--level", "3"], "level needs compress"),
    ] {
        let out = spool()
            .args(["partition", "--by", "1", "--out"])
            .arg(dir.0.join("out"))
            .args(&args)
            .arg(dir.0.join("in.tsv"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn reads_standard_input() {
    let dir = Dir::new("stdin");
    let mut child = spool()
        .args(["partition", "--by", "1", "--layout", "flat", "--out"])
        .arg(dir.0.join("out"))
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"x\t1\ny\t2\nx\t3")
        .unwrap();
    ok(child.wait_with_output().unwrap());
    assert_eq!(
        std::fs::read_to_string(dir.0.join("out/x.tsv")).unwrap(),
        "x\t1\nx\t3\n"
    );
}

#[test]
fn ctrl_c_stops_a_run_waiting_on_input_and_leaves_nothing_complete() {
    let dir = Dir::new("sigint");
    let out = dir.0.join("out");
    let mut child = spool()
        .args(["partition", "--by", "1", "--out"])
        .arg(&out)
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Enough that full chunks reach the writers (files exist in the run's
    // staging directory), then the pipe stays open: spool is waiting for
    // more input when interrupted.
    let text = sample(50, 1_000_000);
    stdin.write_all(text.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let started = std::time::Instant::now();
    let staged = || {
        std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().contains(".out.spool-staging-"))
            .collect::<Vec<_>>()
    };
    while !staged().iter().any(|s| s.join("col1=k0").exists()) {
        assert!(started.elapsed().as_secs() < 30, "no output appeared");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    // SAFETY: kill(2) with a valid pid of our own child and a valid signal
    // number has no memory-safety preconditions.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(rc, 0);
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("interrupted"), "{err}");
    assert!(!out.exists(), "partial output left behind");
    assert!(staged().is_empty(), "staging directory left behind");
}

#[test]
fn fsync_writes_the_same_output() {
    let dir = Dir::new("fsync");
    let text = sample(5, 2000);
    let input = dir.0.join("in.tsv");
    std::fs::write(&input, &text).unwrap();
    let mut outputs = Vec::new();
    for (name, extra) in [("plain", &[][..]), ("synced", &["--fsync"][..])] {
        let out = dir.0.join(name);
        ok(spool()
            .args(["partition", "--by", "1", "--layout", "flat", "-q"])
            .args(extra)
            .arg("--out")
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap());
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        outputs.push(files);
    }
    assert_eq!(outputs[0].len(), 6, "5 keys and the manifest");
    assert_eq!(outputs[0], outputs[1]);
    let k3 = &outputs[1].iter().find(|(n, _)| n == "k3.tsv").unwrap().1;
    assert_eq!(String::from_utf8_lossy(k3), expected(&text, "k3"));
}
