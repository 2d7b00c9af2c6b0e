//! `spool pwned` (placeholder, filled in by its own issue).

use std::process::ExitCode;

/// Arguments of `spool pwned`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `spool pwned`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("spool pwned is not available in this build yet")
}
