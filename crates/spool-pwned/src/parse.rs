//! Parsing HIBP lines: `HASH:COUNT`, with CRLF or LF, either case.

use crate::HashKind;

/// What was wrong with a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineErrorKind {
    /// The hash part has the wrong number of characters.
    WrongLength {
        /// Characters expected.
        expected: usize,
        /// Characters found.
        found: usize,
    },
    /// A character of the hash is not a hex digit.
    NotHex,
    /// No `:COUNT` after the hash.
    MissingCount,
    /// The count is not a decimal number that fits 32 bits.
    BadCount,
}

impl std::fmt::Display for LineErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineErrorKind::WrongLength { expected, found } => {
                write!(f, "hash has {found} characters, expected {expected}")
            }
            LineErrorKind::NotHex => write!(f, "hash contains a character that is not a hex digit"),
            LineErrorKind::MissingCount => write!(f, "missing ':COUNT' after the hash"),
            LineErrorKind::BadCount => write!(f, "count is not a decimal number below 2^32"),
        }
    }
}

/// Parses one line (without its `\n`; a trailing `\r` is allowed) whose
/// hash part is `prefix` (hex, possibly empty, e.g. a range file's name)
/// followed by the line's own hex digits. Writes the hash into `key` and
/// returns the count.
///
/// # Errors
///
/// The kind of problem; the caller adds file, line and offset.
///
/// # Examples
///
/// ```
/// use spool_pwned::{parse_line, HashKind};
/// let mut key = [0u8; 20];
/// let count = parse_line(b"5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8:3\r", b"", HashKind::Sha1, &mut key).unwrap();
/// assert_eq!(count, 3);
/// assert_eq!(key[0], 0x5b);
/// ```
pub fn parse_line(
    line: &[u8],
    prefix: &[u8],
    kind: HashKind,
    key: &mut [u8],
) -> Result<u32, LineErrorKind> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // The common case in one pass: the colon right after a whole hash.
    let expected = kind.hex_len() - prefix.len();
    if prefix.is_empty() && line.get(expected) == Some(&b':') {
        let key = &mut key[..kind.byte_len()];
        if let (true, Some(count)) = (
            decode_into(&line[..expected], key),
            parse_count(&line[expected + 1..]),
        ) {
            return Ok(count);
        }
    }
    // Otherwise find out what is wrong (or decode a range file's line).
    let Some(colon) = memchr::memchr(b':', line) else {
        return Err(if line.len() == expected && is_hex(line) {
            LineErrorKind::MissingCount
        } else if line.len() != expected {
            LineErrorKind::WrongLength {
                expected,
                found: line.len(),
            }
        } else {
            LineErrorKind::NotHex
        });
    };
    let (hex, count) = (&line[..colon], &line[colon + 1..]);
    if hex.len() != expected {
        return Err(LineErrorKind::WrongLength {
            expected,
            found: hex.len(),
        });
    }
    let key = &mut key[..kind.byte_len()];
    let ok = if prefix.is_empty() {
        decode_into(hex, key)
    } else {
        let mut full = [0u8; 40];
        full[..prefix.len()].copy_from_slice(prefix);
        full[prefix.len()..kind.hex_len()].copy_from_slice(hex);
        decode_into(&full[..kind.hex_len()], key)
    };
    if !ok {
        return Err(LineErrorKind::NotHex);
    }
    parse_count(count).ok_or(LineErrorKind::BadCount)
}

fn decode_into(hex: &[u8], key: &mut [u8]) -> bool {
    crate::hex::decode_hex(hex, key)
}

fn is_hex(s: &[u8]) -> bool {
    s.iter().all(u8::is_ascii_hexdigit)
}

fn parse_count(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(c - b'0');
    }
    u32::try_from(v).ok()
}
