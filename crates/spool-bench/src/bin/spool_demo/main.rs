//! `spool-demo`: every system end to end on generated sample data, next to
//! its peers.
//!
//! Each system has its own file here that generates its sample data
//! deterministically, runs spool and its peers on it (taking turns, `--runs`
//! times: see `timing`), checks that every answer is right, and returns
//! [`table::Row`]s. This file only runs them in order and prints the table
//! with its legend (`legend`), or JSON with `--json`.
//!
//! The demo lives with the benchmarks, not in the shipped `spool` command,
//! because it links the peers it measures against (smoltcp, s2n-quic,
//! buffer_sv2, bstr, csv, ...): `scripts/demo.sh` runs it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

mod chain;
mod legend;
mod partition;
mod pool;
mod pwned;
mod stream;
mod table;
mod timing;

/// Runs every spool system end to end on generated sample data and prints
/// its figures next to its peers'.
#[derive(Parser)]
#[command(name = "spool-demo", version, about, long_about = None)]
struct Args {
    /// Smaller inputs, and 3 runs per case instead of 5 (each run still
    /// lasts at least 50 ms).
    #[arg(long)]
    quick: bool,
    /// Times each case runs (default 5, 3 with --quick); figures are the
    /// median with the lowest and highest run.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    runs: Option<u16>,
    /// Print the results as JSON (for machines) instead of a table.
    #[arg(long)]
    json: bool,
    /// Where sample files are generated (a fresh temporary folder if omitted).
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

/// One system's demo: measures it and its peers, returns the table rows.
type SystemDemo = fn(&Context) -> anyhow::Result<Vec<table::Row>>;

/// What every system's demo gets: the size setting and a folder for files.
pub struct Context {
    /// Smaller inputs.
    pub quick: bool,
    /// Times each case runs.
    pub runs: usize,
    /// A folder the demo may write sample files into.
    pub work_dir: PathBuf,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("spool-demo: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    let temp;
    let work_dir = match args.work_dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)?;
            dir
        }
        None => {
            temp = TempDir::new()?;
            temp.path.clone()
        }
    };
    let runs = args.runs.unwrap_or(if args.quick { 3 } else { 5 });
    let ctx = Context {
        quick: args.quick,
        runs: runs.into(),
        work_dir,
    };
    let systems: [(&str, SystemDemo); 5] = [
        ("ByteStream + Reassembler", stream::rows),
        ("BufList", chain::rows),
        ("BufferPool", pool::rows),
        ("Chunked I/O + partition", partition::rows),
        ("pwned", pwned::rows),
    ];
    let mut rows = Vec::new();
    for (name, system) in systems {
        eprintln!("spool-demo: running {name} ...");
        rows.extend(system(&ctx)?);
    }
    legend::check(&rows)?;
    if args.json {
        println!("{:#}", table::json(&rows, ctx.runs));
    } else {
        table::print(&rows, ctx.runs);
    }
    Ok(ExitCode::SUCCESS)
}

/// A temporary folder removed on drop.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new() -> std::io::Result<Self> {
        let path = std::env::temp_dir().join(format!("spool-demo-{}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        Ok(Self { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
