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

use crate::format::{to_hex, HashKind};

use super::any::Answer;

/// A string that is not a hex hash of the expected kind.
///
/// # Examples
///
/// ```
/// use spool_pwned::{lookup::check::parse_hash, HashKind};
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
    if crate::text::hex::decode(hex.as_bytes(), &mut key).is_ok() {
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
/// use spool_pwned::{lookup::check::batch_line, HashKind};
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

/// Hashes looked up together: a batch's lookups go to the index this many
/// at a time, so that it can overlap their memory reads
/// ([`AnyIndex::check_many`](super::AnyIndex::check_many)).
pub const CHUNK: usize = 256;

/// Answers every line of `input` with `lookup`, writing `HASH<TAB>COUNT`
/// lines (the hash in upper-case hex, then the [`Answer`]: the count, 0
/// when absent, `probably` when present without a count) to `out`, and
/// returns whether any hash was found. `out` is not flushed.
///
/// `lookup` is given the hashes of up to [`CHUNK`] lines at a time and
/// returns one answer for each, in order.
///
/// # Errors
///
/// See [`BatchError`]: the answers before the failing line are written.
///
/// # Panics
///
/// If `lookup` returns another number of answers than it was given
/// hashes.
///
/// # Examples
///
/// ```
/// use spool_pwned::{lookup::check::check_batch, Answer, HashKind};
/// let input = "\n5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8\n";
/// let mut out = Vec::new();
/// let sevens = |keys: &[Vec<u8>]| keys.iter().map(|_| Ok::<_, ()>(Answer::Count(7))).collect();
/// let any = check_batch(input.as_bytes(), HashKind::Sha1, sevens, &mut out).unwrap();
/// assert!(any);
/// assert_eq!(out, b"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8\t7\n");
/// out.clear();
/// let probably = |keys: &[Vec<u8>]| keys.iter().map(|_| Ok::<_, ()>(Answer::Present)).collect();
/// check_batch(input.as_bytes(), HashKind::Sha1, probably, &mut out).unwrap();
/// assert_eq!(out, b"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8\tprobably\n");
/// ```
pub fn check_batch<E>(
    input: impl BufRead,
    kind: HashKind,
    mut lookup: impl FnMut(&[Vec<u8>]) -> Vec<Result<Answer, E>>,
    out: &mut impl Write,
) -> Result<bool, BatchError<E>> {
    let mut any = false;
    let mut lines = input.lines().enumerate();
    let mut keys = Vec::with_capacity(CHUNK);
    let mut line_nos = Vec::with_capacity(CHUNK);
    loop {
        // Up to CHUNK hashes, or up to the end or the first line that
        // stops the batch (whose error waits for the answers before it).
        let mut stop = None;
        for (n, line) in lines.by_ref() {
            let line_no = n as u64 + 1;
            match line.map(|line| batch_line(&line, kind)) {
                Ok(Ok(None)) => continue,
                Ok(Ok(Some(key))) => {
                    keys.push(key);
                    line_nos.push(line_no);
                }
                Ok(Err(fault)) => {
                    stop = Some(BatchError::NotAHash {
                        line: line_no,
                        fault,
                    })
                }
                Err(e) => stop = Some(BatchError::Io(e)),
            }
            if stop.is_some() || keys.len() == CHUNK {
                break;
            }
        }
        let answers = lookup(&keys);
        assert_eq!(answers.len(), keys.len(), "one answer per hash");
        for ((key, &line), answer) in keys.iter().zip(&line_nos).zip(answers) {
            let answer = answer.map_err(|fault| BatchError::Lookup { line, fault })?;
            any |= answer.found();
            writeln!(out, "{}\t{answer}", to_hex(key))?;
        }
        if let Some(stop) = stop {
            return Err(stop);
        }
        // A chunk short of CHUNK with no stop means the lines ran out.
        if keys.len() < CHUNK {
            return Ok(any);
        }
        keys.clear();
        line_nos.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::{check_batch, BatchError, CHUNK};
    use crate::format::{to_hex, HashKind};
    use crate::lookup::Answer;

    /// Lines over several chunks: hash `i` on line `2i + 1`, a blank line
    /// after each.
    fn lines(n: usize) -> (Vec<Vec<u8>>, String) {
        let hashes: Vec<Vec<u8>> = (0..n)
            .map(|i| HashKind::Sha1.hash_password(&i.to_string()))
            .collect();
        let text = hashes
            .iter()
            .map(|h| format!("{}\n \n", to_hex(h)))
            .collect();
        (hashes, text)
    }

    /// Answers hash `i` with count `i`, failing on hash `fail`.
    fn counts<'a>(
        hashes: &'a [Vec<u8>],
        fail: Option<usize>,
    ) -> impl FnMut(&[Vec<u8>]) -> Vec<Result<Answer, String>> + 'a {
        move |keys: &[Vec<u8>]| {
            assert!(keys.len() <= CHUNK);
            keys.iter()
                .map(|k| {
                    let i = hashes.iter().position(|h| h == k).unwrap();
                    if Some(i) == fail {
                        Err(format!("hash {i}"))
                    } else {
                        Ok(Answer::Count(i as u32))
                    }
                })
                .collect()
        }
    }

    fn answers(hashes: &[Vec<u8>]) -> String {
        hashes
            .iter()
            .enumerate()
            .map(|(i, h)| format!("{}\t{i}\n", to_hex(h)))
            .collect()
    }

    #[test]
    fn chunks_answer_every_line_in_order() {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7] {
            let (hashes, text) = lines(n);
            let mut out = Vec::new();
            let any = check_batch(
                text.as_bytes(),
                HashKind::Sha1,
                counts(&hashes, None),
                &mut out,
            );
            assert_eq!(any.unwrap(), n > 0, "{n} lines");
            assert_eq!(String::from_utf8(out).unwrap(), answers(&hashes));
        }
    }

    #[test]
    fn a_bad_line_stops_after_the_answers_before_it() {
        let (hashes, mut text) = lines(2 * CHUNK);
        text.insert_str(text.len() / 2 + 1, "not a hash\n");
        let mut out = Vec::new();
        let err = check_batch(
            text.as_bytes(),
            HashKind::Sha1,
            counts(&hashes, None),
            &mut out,
        )
        .unwrap_err();
        assert!(
            matches!(err, BatchError::NotAHash { line, .. } if line == 2 * CHUNK as u64 + 1),
            "{err:?}"
        );
        assert_eq!(String::from_utf8(out).unwrap(), answers(&hashes[..CHUNK]));
    }

    #[test]
    fn a_failed_lookup_stops_after_the_answers_before_it() {
        let (hashes, text) = lines(2 * CHUNK);
        let fail = CHUNK + 10;
        let mut out = Vec::new();
        let err = check_batch(
            text.as_bytes(),
            HashKind::Sha1,
            counts(&hashes, Some(fail)),
            &mut out,
        )
        .unwrap_err();
        assert!(
            matches!(&err, BatchError::Lookup { line, fault } if *line == 2 * fail as u64 + 1 && *fault == format!("hash {fail}")),
            "{err:?}"
        );
        assert_eq!(String::from_utf8(out).unwrap(), answers(&hashes[..fail]));
    }
}
