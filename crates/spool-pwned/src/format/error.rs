//! Why a file could not be opened as an index, or failed a full check:
//! every error names the file, and says what is wrong with it.

use super::blocks::Damaged;
use super::header::HeaderError;

/// Why an index could not be opened or verified.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The file could not be opened or mapped.
    #[error("{path}: {source}")]
    Io {
        /// The index path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file's header is not a valid index header.
    #[error("{path}: {source}")]
    Header {
        /// The index path.
        path: String,
        /// What is wrong with the header.
        source: HeaderError,
    },
    /// The file is not a valid index.
    #[error("{path}: {reason}")]
    Invalid {
        /// The index path.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A block of the file fails its checksum.
    #[error("{path}: {source}")]
    Damaged {
        /// The index path.
        path: String,
        /// Which block.
        source: Damaged,
    },
}
