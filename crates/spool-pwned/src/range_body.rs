//! Checking a body of the range API before anything of it is used.
//!
//! `GET /range/{PREFIX}` answers with one line per hash that starts with
//! the five hex digits asked for: the hash's remaining digits (35 for
//! SHA-1, 27 for NTLM), a colon, the count in decimal. The official
//! service separates lines with CRLF and ends the last without one;
//! mirrors and saved range files may use LF or end with a separator, so
//! both endings are taken:
//!
//! ```text
//! 0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n
//! 00D4F6E8FA6EECAD2A3AA415EEC418D38EC:2
//! ```
//!
//! A download writes what arrives straight into an index, which takes
//! hashes only in strictly increasing order, so a body is accepted only
//! whole: every line well formed, the hashes strictly increasing (sorted,
//! no duplicates). A body cut short inside a line fails; one cut at a line
//! boundary cannot be told from a shorter range (the transfer's length
//! check is what catches that). Lines with count 0 are the padding the API
//! adds when asked (`Add-Padding: true`, random suffixes with count 0
//! mixed into the range): they are not hashes and are dropped, and the
//! order is checked on the real hashes only.
//!
//! Sans-IO: bytes in, hashes out through a callback. The line itself is
//! parsed by [`crate::text::hibp::parse_line`], with the prefix
//! as the line's first digits, so the hashes belong to the prefix by
//! construction. Fuzzed (`pwned_range_body`).

use crate::text::hibp::{parse_line, LineErrorKind, MAX_HASH_LEN};

use crate::format::HashKind;

/// Number of range prefixes: every value of five hex digits.
pub const RANGES: u32 = 1 << 20;

/// What a valid body held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RangeBody {
    /// Hashes handed out (lines with a count above 0).
    pub hashes: u64,
    /// Padding lines dropped (count 0).
    pub padding: u64,
}

/// Why a body was refused; lines are numbered from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// A line is not `SUFFIX:COUNT`.
    #[error("line {line}: {kind}")]
    Line {
        /// The line's number.
        line: u64,
        /// What is wrong with it.
        kind: LineErrorKind,
    },
    /// An empty line before the end of the body.
    #[error("line {line} is empty")]
    EmptyLine {
        /// The line's number.
        line: u64,
    },
    /// A hash not greater than the one before it.
    #[error("line {line}: the hash does not follow the one before it (unsorted or repeated)")]
    OutOfOrder {
        /// The line's number.
        line: u64,
    },
}

/// The five upper-case hex digits of `prefix` (below [`RANGES`]).
///
/// # Examples
///
/// ```
/// assert_eq!(&spool_pwned::range_body::prefix_hex(0x5BAA6), b"5BAA6");
/// ```
pub fn prefix_hex(prefix: u32) -> [u8; 5] {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = [0u8; 5];
    for (i, digit) in out.iter_mut().enumerate() {
        *digit = HEX[((prefix >> (4 * (4 - i))) & 0xF) as usize];
    }
    out
}

/// Checks `body`, the answer for range `prefix` of `kind` hashes, and
/// hands each hash (`kind.byte_len()` bytes, prefix included) and its
/// count to `each`, in order. Nothing is handed out after a bad line, but
/// the lines before it have been: a caller keeps what it receives until
/// the whole body is accepted.
///
/// # Errors
///
/// The first bad line, numbered from 1.
///
/// # Examples
///
/// ```
/// use spool_pwned::range_body::{parse_range_body, BodyError, RangeBody};
/// use spool_pwned::HashKind;
/// let body = b"1E4C9B93F3F0682250B6CF8331B7EE68FD8:10\r\nFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:2";
/// let mut counts = Vec::new();
/// let got = parse_range_body(HashKind::Sha1, 0x5BAA6, body, |hash, count| {
///     assert_eq!(hash[..2], [0x5B, 0xAA]);
///     counts.push(count);
/// });
/// assert_eq!(got, Ok(RangeBody { hashes: 2, padding: 0 }));
/// assert_eq!(counts, [10, 2]);
/// let unsorted = b"FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:2\r\n1E4C9B93F3F0682250B6CF8331B7EE68FD8:10";
/// assert_eq!(
///     parse_range_body(HashKind::Sha1, 0x5BAA6, unsorted, |_, _| {}),
///     Err(BodyError::OutOfOrder { line: 2 })
/// );
/// ```
pub fn parse_range_body(
    kind: HashKind,
    prefix: u32,
    body: &[u8],
    mut each: impl FnMut(&[u8], u32),
) -> Result<RangeBody, BodyError> {
    debug_assert!(prefix < RANGES, "a five-digit prefix");
    let digits = prefix_hex(prefix);
    let len = kind.byte_len();
    let mut hash = [0u8; MAX_HASH_LEN];
    let mut last = [0u8; MAX_HASH_LEN];
    let mut seen = RangeBody::default();
    let mut rest = body;
    let mut line_no = 0u64;
    while !rest.is_empty() {
        line_no += 1;
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(end) => (&rest[..end], &rest[end + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        if line.is_empty() || line == b"\r" {
            // Only the separator after the last line may be empty.
            if rest.is_empty() {
                break;
            }
            return Err(BodyError::EmptyLine { line: line_no });
        }
        let count =
            parse_line(line, &digits, &mut hash[..len]).map_err(|kind| BodyError::Line {
                line: line_no,
                kind,
            })?;
        if count == 0 {
            seen.padding += 1;
            continue;
        }
        if seen.hashes > 0 && hash[..len] <= last[..len] {
            return Err(BodyError::OutOfOrder { line: line_no });
        }
        last[..len].copy_from_slice(&hash[..len]);
        seen.hashes += 1;
        each(&hash[..len], count);
    }
    Ok(seen)
}

/// Upper-case hex digits, as the range API writes them.
pub const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// The longest line with its separator: CRLF, 35 suffix digits (SHA-1),
/// a colon, ten count digits.
const LINE_MAX: usize = 2 + 35 + 1 + 10;

/// Each byte's two upper-case hex digits.
static HEX_PAIRS: [[u8; 2]; 256] = {
    let mut pairs = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        pairs[b] = [HEX_UPPER[b >> 4], HEX_UPPER[b & 0x0F]];
        b += 1;
    }
    pairs
};

/// An upper bound of the bytes [`encode_range_body`] appends for
/// `records` hashes of `kind`: a suffix, a colon, up to ten count digits
/// and a separator per hash.
pub fn encoded_len_bound(kind: HashKind, records: usize) -> usize {
    records * (kind.hex_len() - 5 + 1 + 10 + 2)
}

/// Appends the body the range API sends for `records` — hashes of one
/// prefix in hash order, each as its key (the hash from byte 2 on, whose
/// high nibble is the prefix's fifth digit) and count — to `out`: one
/// `SUFFIX:COUNT` line per hash, the suffix in upper-case hex, CRLF between
/// lines and none after the last, as api.pwnedpasswords.com writes it and
/// its downloader saves it. [`parse_range_body`] reads it back.
///
/// # Examples
///
/// ```
/// use spool_pwned::range_body::encode_range_body;
/// let keys = [[0xA1, 0x23], [0xA4, 0x56]];
/// let mut body = Vec::new();
/// encode_range_body(keys.iter().map(|k| (&k[..], 7)), &mut body);
/// assert_eq!(body, b"123:7\r\n456:7");
/// ```
pub fn encode_range_body<'a>(
    records: impl IntoIterator<Item = (&'a [u8], u32)>,
    out: &mut Vec<u8>,
) {
    let mut digits = itoa::Buffer::new();
    // One line at a time in a stack buffer, copied out whole: the
    // separator, the suffix, the colon, the count.
    let mut line = [0u8; LINE_MAX];
    line[..2].copy_from_slice(b"\r\n");
    for (i, (key, count)) in records.into_iter().enumerate() {
        // The suffix starts at the low nibble of the key's first byte.
        line[2] = HEX_UPPER[usize::from(key[0] & 0x0F)];
        let mut end = 3;
        for &byte in &key[1..] {
            line[end..end + 2].copy_from_slice(&HEX_PAIRS[usize::from(byte)]);
            end += 2;
        }
        line[end] = b':';
        let count = digits.format(count).as_bytes();
        line[end + 1..end + 1 + count.len()].copy_from_slice(count);
        end += 1 + count.len();
        let start = if i == 0 { 2 } else { 0 };
        out.extend_from_slice(&line[start..end]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes(kind: HashKind, prefix: u32, body: &[u8]) -> Result<Vec<(Vec<u8>, u32)>, BodyError> {
        let mut got = Vec::new();
        parse_range_body(kind, prefix, body, |h, c| got.push((h.to_vec(), c)))?;
        Ok(got)
    }

    #[test]
    fn endings_crlf_lf_and_a_final_separator_are_taken() {
        let a = "0000000000000000000000000000000000A:1";
        let b = "0000000000000000000000000000000000B:2";
        for body in [
            format!("{a}\r\n{b}"),
            format!("{a}\n{b}\n"),
            format!("{a}\r\n{b}\r\n"),
        ] {
            let got = hashes(HashKind::Sha1, 0xABCDE, body.as_bytes()).unwrap();
            assert_eq!(got.len(), 2, "{body:?}");
            assert_eq!(got[0].0[..3], [0xAB, 0xCD, 0xE0]);
            assert_eq!(got[1].1, 2);
        }
        assert_eq!(hashes(HashKind::Sha1, 0, b""), Ok(vec![]));
    }

    #[test]
    fn bad_bodies_name_their_line() {
        let a = "0000000000000000000000000000000000A:1";
        let sha1 = HashKind::Sha1;
        let cut = format!("{a}\r\n000000000");
        assert!(matches!(
            hashes(sha1, 1, cut.as_bytes()),
            Err(BodyError::Line { line: 2, .. })
        ));
        let repeated = format!("{a}\r\n{a}");
        assert_eq!(
            hashes(sha1, 1, repeated.as_bytes()),
            Err(BodyError::OutOfOrder { line: 2 })
        );
        let gap = format!("{a}\r\n\r\n{a}");
        assert_eq!(
            hashes(sha1, 1, gap.as_bytes()),
            Err(BodyError::EmptyLine { line: 2 })
        );
        let ntlm_line_in_sha1 = "000000000000000000000000000:1";
        assert!(matches!(
            hashes(sha1, 1, ntlm_line_in_sha1.as_bytes()),
            Err(BodyError::Line {
                line: 1,
                kind: LineErrorKind::WrongLength { .. }
            })
        ));
        assert!(hashes(HashKind::Ntlm, 1, ntlm_line_in_sha1.as_bytes()).is_ok());
    }

    #[test]
    fn padding_is_dropped_and_not_ordered() {
        let body = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:0\r\n\
                    0000000000000000000000000000000000A:1\r\n\
                    0000000000000000000000000000000000A:0\r\n\
                    0000000000000000000000000000000000B:2";
        let mut n = 0;
        let got = parse_range_body(HashKind::Sha1, 7, body.as_bytes(), |_, _| n += 1);
        assert_eq!(
            got,
            Ok(RangeBody {
                hashes: 2,
                padding: 2
            })
        );
        assert_eq!(n, 2);
    }

    #[test]
    fn encoded_bodies_parse_back_to_their_hashes() {
        for kind in [HashKind::Sha1, HashKind::Ntlm] {
            let len = kind.byte_len();
            let prefix = 0xABCDE;
            let hashes: Vec<(Vec<u8>, u32)> = (0..50u32)
                .map(|i| {
                    let mut h = vec![0u8; len];
                    h[..3].copy_from_slice(&[0xAB, 0xCD, 0xE0 | (i / 4) as u8]);
                    h[3] = i as u8;
                    h[len - 1] = 0xF7;
                    (h, [1, 9, 10, u32::MAX][i as usize % 4])
                })
                .collect();
            let mut body = Vec::new();
            encode_range_body(hashes.iter().map(|(h, c)| (&h[2..], *c)), &mut body);
            assert!(body.len() <= encoded_len_bound(kind, hashes.len()));
            assert!(!body.ends_with(b"\n"));
            assert_eq!(self::hashes(kind, prefix, &body), Ok(hashes), "{kind:?}");
        }
    }
}
