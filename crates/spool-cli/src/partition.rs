//! `spool partition` (placeholder, filled in by its own issue).

use std::process::ExitCode;

/// Arguments of `spool partition`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `spool partition`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("spool partition is not available in this build yet")
}
