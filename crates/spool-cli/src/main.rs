//! `spool`: the command-line face of the spool toolkit.
//!
//! Each subcommand lives in its own module; this file only parses the
//! command line and maps results to exit codes.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod allocator;
mod completions;
mod count;
mod interrupt;
mod man;
mod partition;
mod partition_tools;
mod progress;
mod pwned;
mod pwned_check;
mod pwned_download;
mod pwned_serve;
mod report;
mod stdout;

/// Move bytes without wasted copies: tools built on spool.
#[derive(Parser)]
#[command(name = "spool", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write every record of many inputs (CSV, TSV, Parquet or JSON lines;
    /// local, S3 or HTTP) to the file of its key, in bounded memory, on all
    /// cores.
    Partition(partition::Args),
    /// Build and query an index of Have I Been Pwned password hashes.
    Pwned(pwned::Args),
    /// Print a tab-completion script for bash, zsh, fish, elvish or
    /// PowerShell.
    Completions(completions::Args),
    /// Print spool's manual page (or a subcommand's, or write them all).
    Man(man::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Partition(args) => partition::run(args),
        Command::Pwned(args) => pwned::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("spool: error: {}", report::message(&err));
            ExitCode::from(2)
        }
    }
}
