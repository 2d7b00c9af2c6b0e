//! `Add-Padding: true`: random lines that hide a range's size.
//!
//! Ranges differ in size, so the length of an encrypted response says
//! something about which prefix was asked for. A client that sends
//! `Add-Padding: true` gets extra lines of random suffixes with a count of
//! 0, which it must ignore (no real hash has a count of 0).
//!
//! This follows what api.pwnedpasswords.com does today (its Cloudflare
//! worker): between 10 and 209 padding lines (uniformly), each a random
//! upper-case suffix of the hash kind's length and `:0`, appended after the
//! real lines with the same CRLF separator — not sorted in among them. (The
//! 2020 announcement padded to at least 800 lines; the service has since
//! changed to a random number of extra lines, which also hides the size of
//! ranges already larger than 800.) The one difference: an empty range
//! gets no separator before its first padding line, where the official
//! service, which has no empty ranges, would start with one.
//!
//! The number of lines comes from the operating system's random source
//! through the thread's ChaCha generator, as the official worker takes it
//! from `crypto.getRandomValues`. A padded response is never given an
//! ETag: it differs from the unpadded body and from every other padded one.

use rand::{Rng, RngExt};
use spool_pwned::HashKind;

use crate::range::{suffix_len, HEX_UPPER};

/// Fewest padding lines a padded response gets.
pub const MIN_LINES: usize = 10;
/// Most padding lines a padded response gets.
pub const MAX_LINES: usize = 209;

/// Whether a request's `Add-Padding` header asks for padding: the value
/// `true` in any case, as the official service reads it.
///
/// # Examples
///
/// ```
/// assert!(spool_serve::padding::requested(Some(b"True")));
/// assert!(!spool_serve::padding::requested(Some(b"1")));
/// assert!(!spool_serve::padding::requested(None));
/// ```
pub fn requested(header: Option<&[u8]>) -> bool {
    header.is_some_and(|v| v.eq_ignore_ascii_case(b"true"))
}

/// Appends padding lines for `kind` to the range body `out`, their number
/// drawn from `rng`; returns how many.
///
/// # Examples
///
/// ```
/// let mut body = b"0018A45C4D1DEF81644B54AB7F969B88D65:1".to_vec();
/// let n = spool_serve::padding::pad(&mut body, spool_pwned::HashKind::Sha1, &mut rand::rng());
/// let text = String::from_utf8(body).unwrap();
/// let lines: Vec<&str> = text.split("\r\n").collect();
/// assert_eq!(lines.len(), 1 + n);
/// assert!(lines[1..].iter().all(|l| l.len() == 37 && l.ends_with(":0")));
/// ```
pub fn pad(out: &mut Vec<u8>, kind: HashKind, rng: &mut impl Rng) -> usize {
    let lines = rng.random_range(MIN_LINES..=MAX_LINES);
    let len = suffix_len(kind);
    out.reserve(lines * (len + 4));
    let mut nibbles = [0u8; 64];
    for _ in 0..lines {
        if !out.is_empty() {
            out.extend_from_slice(b"\r\n");
        }
        rng.fill(&mut nibbles[..len]);
        out.extend(
            nibbles[..len]
                .iter()
                .map(|&b| HEX_UPPER[usize::from(b & 0x0F)]),
        );
        out.extend_from_slice(b":0");
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn line_counts_cover_the_whole_official_range_and_no_more() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let (mut min, mut max) = (usize::MAX, 0);
        for _ in 0..5_000 {
            let mut body = Vec::new();
            let n = pad(&mut body, HashKind::Ntlm, &mut rng);
            let text = String::from_utf8(body).unwrap();
            let lines: Vec<&str> = text.split("\r\n").collect();
            assert_eq!(
                lines.len(),
                n,
                "no separator before the first line of an empty range"
            );
            for line in lines {
                let (suffix, count) = line.split_once(':').unwrap();
                assert_eq!((suffix.len(), count), (27, "0"));
                assert!(suffix.bytes().all(|c| HEX_UPPER.contains(&c)));
            }
            min = min.min(n);
            max = max.max(n);
        }
        assert_eq!((min, max), (MIN_LINES, MAX_LINES));
    }

    #[test]
    fn padding_digits_are_all_used() {
        let mut body = Vec::new();
        pad(&mut body, HashKind::Sha1, &mut rand::rng());
        for &digit in HEX_UPPER {
            assert!(body.contains(&digit), "digit {}", digit as char);
        }
    }
}
