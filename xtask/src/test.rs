//! `cargo xtask test [PART...]`: every test, part by part, each timed.
//!
//! The Rust part is here; the others drive other languages, servers and
//! virtualenvs and are scripts (`scripts/test-PART.sh`), run in this order.

use std::time::Instant;

use crate::run::{cargo, program, Failed, Result};

/// Every part, in the order `test` runs them.
const PARTS: [&str; 7] = [
    "rust",
    "c-cpp",
    "python",
    "s3",
    "pwned-clients",
    "sv2",
    "spark",
];

pub fn test(parts: &[String]) -> Result {
    let all: Vec<String> = PARTS.iter().map(|p| p.to_string()).collect();
    let parts = if parts.is_empty() { &all[..] } else { parts };
    if let Some(unknown) = parts.iter().find(|p| !PARTS.contains(&p.as_str())) {
        return Err(Failed(format!(
            "no test part '{unknown}'; the parts are {}",
            PARTS.join(", ")
        )));
    }
    let started = Instant::now();
    for part in parts {
        eprintln!("==> test part {part}");
        let start = Instant::now();
        match part.as_str() {
            "rust" => rust()?,
            script => program("bash", &[&format!("scripts/test-{script}.sh")]).status_ok()?,
        }
        eprintln!(
            "==> test part {part} passed in {} s",
            start.elapsed().as_secs()
        );
    }
    let which = if parts.len() == PARTS.len() {
        "all spool tests"
    } else {
        "the parts asked for"
    };
    eprintln!("==> {which} passed in {} s", started.elapsed().as_secs());
    Ok(())
}

/// The workspace's Rust tests (unit, property, integration, doc) in the
/// test build (Cargo.toml's `ci` profile: the release build with arrow-rs
/// and Parquet unoptimised, which the other parts' `spool` binary and
/// extension share), the pool's again with debug assertions, and the loom
/// models.
fn rust() -> Result {
    cargo(&[
        "test",
        "--workspace",
        "--all-features",
        "--locked",
        "--profile",
        "ci",
    ])
    .status_ok()?;
    // The pool checks its placement invariants with debug assertions: its
    // tests once more in a debug build, so those checks are on.
    cargo(&[
        "test",
        "-p",
        "spool",
        "--locked",
        "--test",
        "it",
        "--",
        "pool::",
        "pool_model::",
    ])
    .status_ok()?;
    // The lock-free code under loom, in a target folder of its own (the
    // cfg changes every crate's build).
    for test in loom_tests()? {
        cargo(&["test", "-p", "spool", "--release", "--test", &test])
            .env("RUSTFLAGS", "--cfg loom")
            .env("CARGO_TARGET_DIR", "target/loom")
            .status_ok()?;
    }
    Ok(())
}

/// The core's `tests/loom*.rs` files, by test name.
fn loom_tests() -> Result<Vec<String>> {
    let dir = "crates/spool/tests";
    let entries = std::fs::read_dir(dir).map_err(|e| Failed(format!("{dir}: {e}")))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|name| Some(name.strip_suffix(".rs")?.to_owned()))
        .filter(|name| name.starts_with("loom"))
        .collect();
    names.sort();
    Ok(names)
}
