//! `cargo xtask fuzz smoke|campaign`: the cargo-fuzz targets in `fuzz/`.
//!
//! Both start from the committed corpus and never add to it: new inputs go
//! to a scratch folder that libFuzzer is given first. cargo-fuzz needs
//! nightly compiler flags: the nightly toolchain when installed, otherwise
//! stable with `RUSTC_BOOTSTRAP=1`.
//!
//! - `smoke` (CI): every target built in one cargo call, then run
//!   `FUZZ_JOBS` at a time (default: one per CPU; each fuzzer is one
//!   thread), each until `FUZZ_SECONDS` (10) or `FUZZ_RUNS` (100,000)
//!   inputs — a cheap target covers its inputs in a few seconds, the slow
//!   ones get the whole time. Built with cargo-fuzz's default of one
//!   codegen unit: 16 made the build slower on two cores; the arrow-rs,
//!   Parquet and TLS crates no target runs are built unoptimised
//!   (`fuzz/Cargo.toml`; both in docs/perf/ci.md). A failing target's log is printed; the run fails
//!   once every running target is done.
//! - `campaign [SECONDS] [TARGET...]`: each target in turn for SECONDS
//!   (300), built as cargo-fuzz builds by default; one table row per target
//!   (`target execs exec/s(wall) cpu_s exec/s(cpu) peak_rss_mb crashes
//!   load_after`), where CPU time and peak RSS come from GNU time, so on a
//!   shared machine executions per CPU-second say more than per
//!   wall-second. Crash, leak and timeout artifacts stay in the scratch
//!   folder (`FUZZ_SCRATCH`, else a new one under the temporary folder,
//!   printed) for triage. `FUZZ_RSS_MB` (2048) caps each fuzzer.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::run::{cargo, program, Failed, Result};

const BIN_DIR: &str = "fuzz/target/x86_64-unknown-linux-gnu/release";

pub fn fuzz(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("smoke") if args.len() == 1 => smoke(),
        Some("campaign") => {
            let seconds = match args.get(1) {
                Some(s) => s
                    .parse()
                    .map_err(|_| Failed(format!("SECONDS must be a whole number, not '{s}'")))?,
                None => 300,
            };
            campaign(seconds, args.get(2..).unwrap_or_default())
        }
        _ => Err(Failed(
            "usage: cargo xtask fuzz smoke | cargo xtask fuzz campaign [SECONDS] [TARGET...]"
                .into(),
        )),
    }
}

/// `cargo-fuzz` with the toolchain that gives it nightly flags: `cargo
/// +nightly fuzz` when nightly is installed, else stable with
/// `RUSTC_BOOTSTRAP=1`. Installs cargo-fuzz if it is missing.
fn cargo_fuzz(args: &[&str]) -> Result<crate::run::Job> {
    if program("cargo-fuzz", &["--version"]).output().is_err() {
        cargo(&["install", "cargo-fuzz", "--locked"]).status_ok()?;
    }
    let nightly = program("rustup", &["toolchain", "list"])
        .output()
        .is_ok_and(|list| list.lines().any(|l| l.starts_with("nightly")));
    let job = if nightly {
        // `cargo +nightly` needs rustup's cargo, not the one running us.
        program("cargo", &["+nightly", "fuzz"])
    } else {
        cargo(&["fuzz"]).env("RUSTC_BOOTSTRAP", "1")
    };
    Ok(job.args(args).dir("fuzz"))
}

fn targets() -> Result<Vec<String>> {
    let list = cargo_fuzz(&["list"])?.output()?;
    Ok(list.lines().map(str::to_owned).collect())
}

fn env_number(name: &str, default: u64) -> Result<u64> {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .map_err(|_| Failed(format!("{name} must be a whole number, not '{value}'"))),
        Err(_) => Ok(default),
    }
}

fn scratch() -> Result<PathBuf> {
    let dir = match std::env::var_os("FUZZ_SCRATCH") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::temp_dir().join(format!("spool-fuzz-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).map_err(|e| Failed(format!("{}: {e}", dir.display())))?;
    Ok(dir)
}

fn smoke() -> Result {
    let seconds = env_number("FUZZ_SECONDS", 10)?;
    let runs = env_number("FUZZ_RUNS", 100_000)?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let jobs = env_number("FUZZ_JOBS", cpus)?.max(1) as usize;
    let targets = targets()?;
    cargo_fuzz(&["build"])?.status_ok()?;
    let logs = std::env::temp_dir().join(format!("spool-fuzz-smoke-{}", std::process::id()));
    eprintln!(
        "==> fuzz: {} targets, up to {seconds} s or {runs} inputs each, {jobs} at a time",
        targets.len()
    );
    let next = AtomicUsize::new(0);
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(target) = targets.get(i) else { break };
                if let Err(e) = smoke_one(target, seconds, runs, &logs) {
                    eprintln!("==> fuzz {target} FAILED: {e}");
                    failed.lock().unwrap().push(target.clone());
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap();
    if failed.is_empty() {
        let _ = std::fs::remove_dir_all(&logs);
        Ok(())
    } else {
        Err(Failed(format!(
            "fuzz targets failed: {} (their crashing inputs are in {})",
            failed.join(", "),
            logs.display()
        )))
    }
}

/// Runs one target from its committed corpus; prints its inputs and
/// time, or its whole log if it fails.
fn smoke_one(target: &str, seconds: u64, runs: u64, logs: &Path) -> Result {
    let new_inputs = logs.join(target);
    let corpus = Path::new("fuzz/corpus").join(target);
    for dir in [&new_inputs, &corpus] {
        std::fs::create_dir_all(dir).map_err(|e| Failed(format!("{}: {e}", dir.display())))?;
    }
    let out = std::process::Command::new(Path::new(BIN_DIR).join(target))
        .arg(&new_inputs)
        .arg(&corpus)
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-runs={runs}"))
        .arg("-rss_limit_mb=2048")
        .arg(format!("-artifact_prefix={}/{target}-", logs.display()))
        .output()
        .map_err(|e| Failed(format!("{BIN_DIR}/{target}: {e}")))?;
    let log = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(Failed(format!("{}; its log:\n{log}", out.status)));
    }
    // libFuzzer's last line: "Done N runs in S second(s)".
    let done = log.lines().rev().find_map(|line| {
        let rest = line.strip_prefix("Done ")?;
        let (inputs, rest) = rest.split_once(" runs in ")?;
        Some(format!("{inputs} inputs in {} s", rest.split(' ').next()?))
    });
    eprintln!(
        "==> fuzz {target}: {}, no failure",
        done.unwrap_or_default()
    );
    Ok(())
}

fn campaign(seconds: u64, targets: &[String]) -> Result {
    let timer = "/usr/bin/time";
    if !Path::new(timer).exists() {
        return Err(Failed(format!("a campaign needs GNU time at {timer}")));
    }
    let targets = if targets.is_empty() {
        self::targets()?
    } else {
        targets.to_vec()
    };
    // Every target built first, so no target's time goes to compiling.
    for target in &targets {
        cargo_fuzz(&["build", target])?.status_ok()?;
    }
    let scratch = scratch()?;
    let rss_mb = env_number("FUZZ_RSS_MB", 2048)?;
    let load = || {
        std::fs::read_to_string("/proc/loadavg")
            .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut table = format!(
        "# fuzz campaign: {seconds} s per target, {cpus} CPUs, load {}\n\
         target\texecs\texec/s(wall)\tcpu_s\texec/s(cpu)\tpeak_rss_mb\tcrashes\tload_after\n",
        load()
    );
    print!("{table}");
    for target in &targets {
        let work = scratch.join(target);
        let (corpus, artifacts) = (work.join("corpus"), work.join("artifacts"));
        for dir in [&corpus, &artifacts] {
            std::fs::create_dir_all(dir).map_err(|e| Failed(format!("{}: {e}", dir.display())))?;
        }
        let committed = Path::new("fuzz/corpus").join(target);
        if let Ok(entries) = std::fs::read_dir(&committed) {
            for entry in entries.flatten() {
                let _ = std::fs::copy(entry.path(), corpus.join(entry.file_name()));
            }
        }
        let times = work.join("time");
        let start = Instant::now();
        let out = std::process::Command::new(timer)
            .args(["-f", "%U %S %M", "-o"])
            .arg(&times)
            .arg(Path::new(BIN_DIR).join(target))
            .arg(&corpus)
            .arg(format!("-max_total_time={seconds}"))
            .arg(format!("-rss_limit_mb={rss_mb}"))
            .arg("-print_final_stats=1")
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .output()
            .map_err(|e| Failed(format!("{timer}: {e}")))?;
        let wall = start.elapsed().as_secs_f64();
        let log = String::from_utf8_lossy(&out.stderr);
        std::fs::write(work.join("log"), log.as_bytes()).ok();
        let execs: f64 = log
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0.0);
        let time = std::fs::read_to_string(&times).unwrap_or_default();
        let fields: Vec<f64> = time
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        let (cpu, rss_kb) = match fields[..] {
            [user, sys, rss] => (user + sys, rss),
            _ => (0.0, 0.0),
        };
        let mut crashes = std::fs::read_dir(&artifacts)
            .map_or(0, |d| d.count())
            .to_string();
        if !out.status.success() {
            crashes += &format!(" ({})", out.status);
        }
        let row = format!(
            "{target}\t{execs:.0}\t{:.0}\t{cpu:.1}\t{:.0}\t{:.0}\t{crashes}\t{}\n",
            execs / wall,
            execs / (cpu + 0.001),
            rss_kb / 1024.0,
            load().split(' ').next().unwrap_or_default()
        );
        print!("{row}");
        table += &row;
    }
    let tsv = scratch.join("table.tsv");
    std::fs::write(&tsv, table).map_err(|e| Failed(format!("{}: {e}", tsv.display())))?;
    println!("# logs, artifacts and the table in {}", scratch.display());
    Ok(())
}
