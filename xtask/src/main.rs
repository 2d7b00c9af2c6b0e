//! `cargo xtask JOB`: the project's own jobs, written in Rust rather than
//! shell, run from any folder of the checkout (the `xtask` alias in
//! `.cargo/config.toml`).
//!
//! ```text
//!  cargo xtask lint                    rustfmt, clippy, rustdoc, packaging
//!  cargo xtask deny                    cargo-deny: licenses, duplicates, sources
//!  cargo xtask test [PART...]          every test, or the parts named
//!  cargo xtask fuzz smoke              every fuzz target briefly (CI)
//!  cargo xtask fuzz campaign [S] [T..] each target for S seconds, with a table
//!  cargo xtask msrv                    each stated rust-version, built with it
//!  cargo xtask demo [ARGS...]          the main job: spool-demo
//! ```
//!
//! The README's two commands (`scripts/demo.sh`, `scripts/test.sh`) first
//! install the toolchains a fresh machine lacks (`scripts/setup.sh`: this
//! cannot be Rust, it installs Rust), then call these. Jobs that are
//! mostly other programs — the Python, S3, Spark and client tests with
//! their servers and virtualenvs, the benchmark drivers — stay scripts,
//! which `test` runs as its parts; `scripts/install-c.sh` stays a script
//! because it is run as root without a Rust toolchain.
//!
//! Each job prints what it runs and its time, and stops at the first
//! failure with the failing command's exit status.

mod deny;
mod fuzz;
mod lint;
mod msrv;
mod run;
mod test;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask JOB [ARGS...]

jobs:
  lint                      rustfmt check; clippy and rustdoc with warnings denied;
                            the published crates packaged as crates.io takes them
  deny                      cargo-deny (deny.toml): licenses, duplicate versions,
                            sources, advisories when their database is reachable
  test [PART...]            every test, or the parts named: rust, c-cpp, python,
                            s3, pwned-clients, sv2, spark
  fuzz smoke                every fuzz target for FUZZ_SECONDS (10) or
                            FUZZ_RUNS (100000) inputs, FUZZ_JOBS at a time
  fuzz campaign [SECONDS] [TARGET...]
                            each target (default all) for SECONDS (300), a table
  msrv                      check every member with the rust-version it states
  demo [ARGS...]            build and run spool-demo (e.g. --quick, --json)
  help                      this text";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run::to_workspace_root() {
        eprintln!("xtask: {e}");
        return ExitCode::FAILURE;
    }
    let result = match args.first().map(String::as_str) {
        Some("lint") if args.len() == 1 => lint::lint(),
        Some("deny") if args.len() == 1 => deny::deny(),
        Some("test") => test::test(&args[1..]),
        Some("fuzz") => fuzz::fuzz(&args[1..]),
        Some("msrv") if args.len() == 1 => msrv::msrv(),
        Some("demo") => demo(&args[1..]),
        Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The main job: `spool-demo`, which generates its own data and prints each
/// system's figures beside its peers'.
fn demo(args: &[String]) -> run::Result {
    run::cargo(&[
        "run",
        "--release",
        "--locked",
        "-p",
        "spool-bench",
        "--bin",
        "spool-demo",
        "--",
    ])
    .args(args)
    .status_ok()
}
