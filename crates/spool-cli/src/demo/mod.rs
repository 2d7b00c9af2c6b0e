//! `spool demo`: every system end to end on generated sample data.
//!
//! Each system has its own file here that generates its sample data
//! deterministically, runs spool and its peers on it, checks that every
//! answer is right, and returns [`table::Row`]s. This file only runs them in
//! order and prints the table.

use std::path::PathBuf;
use std::process::ExitCode;

mod chain;
mod partition;
mod pool;
mod pwned;
mod stream;
pub mod table;
pub mod timing;

/// Arguments of `spool demo`.
#[derive(clap::Args)]
pub struct Args {
    /// Smaller inputs and fewer repetitions (seconds instead of minutes).
    #[arg(long)]
    pub quick: bool,
    /// Where sample files are generated (a fresh temporary folder if omitted).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
}

/// One system's demo: measures it and its peers, returns the table rows.
type SystemDemo = fn(&Context) -> anyhow::Result<Vec<table::Row>>;

/// What every system's demo gets: the size setting and a folder for files.
pub struct Context {
    /// Smaller inputs and fewer repetitions.
    pub quick: bool,
    /// A folder the demo may write sample files into.
    pub work_dir: PathBuf,
}

/// Runs `spool demo`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
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
    let ctx = Context {
        quick: args.quick,
        work_dir,
    };
    let systems: [(&str, SystemDemo); 5] = [
        ("ByteStream + Reassembler", stream::rows),
        ("Chain", chain::rows),
        ("BufferPool", pool::rows),
        ("Chunked I/O + partition", partition::rows),
        ("pwned", pwned::rows),
    ];
    let mut rows = Vec::new();
    for (name, system) in systems {
        eprintln!("spool demo: running {name} ...");
        rows.extend(system(&ctx)?);
    }
    table::print(&rows);
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
