//! What `spool pwned check --batch` does with its lines, apart from the
//! files and the terminal: a line is trimmed, a blank one skipped, and
//! anything else must be one hex hash of the index's kind, answered
//! `HASH<TAB>COUNT` (0 when absent; `probably` for a filter's "probably
//! present", which has no count). The first line that is not a hash
//! stops the batch with its line number.
//!
//! Kept out of the command so that it can be driven in-process (the
//! `pwned_check_batch` fuzz target) with any reader, writer and lookup.

use std::fmt;
use std::io::{self, BufRead, Write};

use crate::{to_hex, Answer, HashKind};

/// A string that is not a hex hash of the expected kind.
///
/// # Examples
///
/// ```
/// use spool_pwned::{check::parse_hash, HashKind};
/// assert_eq!(parse_hash("5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", HashKind::Sha1).unwrap()[..2], [0x5b, 0xaa]);
/// let err = parse_hash("xyz", HashKind::Sha1).unwrap_err();
/// assert_eq!(err.to_string(), "'xyz' is not a 40-digit hex SHA-1 hash");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAHash {
    /// The string as given.
    pub text: String,
    /// The kind it should have been.
    pub kind: HashKind,
}

impl fmt::Display for NotAHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.kind {
            HashKind::Sha1 => "SHA-1",
            HashKind::Ntlm => "NTLM",
        };
        let digits = self.kind.hex_len();
        write!(f, "'{}' is not a {digits}-digit hex {name} hash", self.text)
    }
}

impl std::error::Error for NotAHash {}

/// Decodes `hex`, exactly [`HashKind::hex_len`] hex digits of either case,
/// into the hash's bytes.
///
/// # Errors
///
/// [`NotAHash`] if `hex` is anything else (surrounding blanks included).
pub fn parse_hash(hex: &str, kind: HashKind) -> Result<Vec<u8>, NotAHash> {
    let mut key = vec![0u8; kind.byte_len()];
    if spool::text::hex::decode(hex.as_bytes(), &mut key) {
        Ok(key)
    } else {
        Err(NotAHash {
            text: hex.to_string(),
            kind,
        })
    }
}

/// What one line of a batch asks: nothing (a blank line) or the hash it
/// holds, blanks around it ignored.
///
/// # Errors
///
/// [`NotAHash`] (of the trimmed line) if the line holds anything else.
///
/// # Examples
///
/// ```
/// use spool_pwned::{check::batch_line, HashKind};
/// assert_eq!(batch_line(" \t", HashKind::Ntlm), Ok(None));
/// let key = batch_line(" 8846F7EAEE8FB117AD06BDD830B7586C\r", HashKind::Ntlm).unwrap().unwrap();
/// assert_eq!(key[0], 0x88);
/// assert!(batch_line("password", HashKind::Ntlm).is_err());
/// ```
pub fn batch_line(line: &str, kind: HashKind) -> Result<Option<Vec<u8>>, NotAHash> {
    let hex = line.trim();
    if hex.is_empty() {
        return Ok(None);
    }
    parse_hash(hex, kind).map(Some)
}

/// Why a batch stopped.
#[derive(Debug, thiserror::Error)]
pub enum BatchError<E> {
    /// Reading the lines or writing the answers failed (a line that is not
    /// UTF-8 is a read error).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// Line `line` (1-based) is not a hash.
    #[error("line {line}: {fault}")]
    NotAHash {
        /// The line number.
        line: u64,
        /// What the line held.
        fault: NotAHash,
    },
    /// The lookup for line `line` failed.
    #[error("looking up line {line}: {fault}")]
    Lookup {
        /// The line number.
        line: u64,
        /// The lookup's error.
        fault: E,
    },
}

/// Answers every line of `input` with `lookup`, writing `HASH<TAB>COUNT`
/// lines (the hash in upper-case hex, then the [`Answer`]: the count, 0
/// when absent, `probably` when present without a count) to `out`, and
/// returns whether any hash was found. `out` is not flushed.
///
/// # Errors
///
/// See [`BatchError`]: the answers before the failing line are written.
///
/// # Examples
///
/// ```
/// use spool_pwned::{check::check_batch, Answer, HashKind};
/// let input = "\n5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8\n";
/// let mut out = Vec::new();
/// let any = check_batch(input.as_bytes(), HashKind::Sha1, |_| Ok::<_, ()>(Answer::Count(7)), &mut out).unwrap();
/// assert!(any);
/// assert_eq!(out, b"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8\t7\n");
/// out.clear();
/// check_batch(input.as_bytes(), HashKind::Sha1, |_| Ok::<_, ()>(Answer::Present), &mut out).unwrap();
/// assert_eq!(out, b"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8\tprobably\n");
/// ```
pub fn check_batch<E>(
    input: impl BufRead,
    kind: HashKind,
    mut lookup: impl FnMut(&[u8]) -> Result<Answer, E>,
    out: &mut impl Write,
) -> Result<bool, BatchError<E>> {
    let mut any = false;
    for (n, line) in input.lines().enumerate() {
        let line_no = n as u64 + 1;
        let key = match batch_line(&line?, kind) {
            Ok(None) => continue,
            Ok(Some(key)) => key,
            Err(fault) => {
                return Err(BatchError::NotAHash {
                    line: line_no,
                    fault,
                })
            }
        };
        let answer = lookup(&key).map_err(|fault| BatchError::Lookup {
            line: line_no,
            fault,
        })?;
        any |= answer.found();
        writeln!(out, "{}\t{answer}", to_hex(&key))?;
    }
    Ok(any)
}
