//! Why a run failed: a file could not be read or written, a record
//! cannot be used (naming its file, line and byte offset), the options
//! cannot work together, or the run was stopped.

use std::io;

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum PartitionError {
    /// Reading or writing failed; the message names the path. Transparent:
    /// the I/O error's message is this error's message, not also its cause.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A record or header cannot be used.
    #[error("{file}:{line}: byte offset {offset}: {message}")]
    Input {
        /// The input's path.
        file: String,
        /// Line number (from 1).
        line: u64,
        /// Byte offset of the line's start (decompressed).
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The options are wrong.
    #[error("{0}")]
    Usage(String),
    /// Stopped by the cancel flag; partial output was removed.
    #[error("interrupted; partial output removed")]
    Interrupted,
}
