//! Writing generated text (completion scripts, manual pages) to standard
//! output.
//!
//! A reader that stops early (`spool man | head`) closes the pipe; that is
//! the reader's choice, not a failure, so a broken pipe ends the write
//! quietly. Any other write error is reported, saying what was being written.

use std::io::{ErrorKind, Write};

use anyhow::Context;

/// Writes `text` (a `what`, for the error message) to standard output.
///
/// # Errors
///
/// If standard output cannot be written for a reason other than a closed
/// pipe.
pub fn print(text: &[u8], what: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Err(err) if err.kind() != ErrorKind::BrokenPipe => {
            Err(err).with_context(|| format!("writing the {what} to standard output"))
        }
        _ => Ok(()),
    }
}
