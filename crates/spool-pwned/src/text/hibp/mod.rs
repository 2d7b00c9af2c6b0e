//! Have I Been Pwned lines: `HASH:COUNT`, LF or CRLF, hex in either case.
//!
//! HIBP publishes its password corpus as text: one hash in hex, a colon and
//! a prevalence count per line, either as one large file or as a million
//! "range" files named after the first five hex digits, whose lines hold
//! only the rest of the hash. [`parse_line`] reads both kinds of line into a
//! caller's buffer without allocating; the caller (the `spool-pwned` index
//! builder) splits the lines and adds file, line and byte offset to any
//! [`LineErrorKind`].
//!
//! The hash's length is the length of the buffer it is decoded into: 20
//! bytes (40 digits) for SHA-1, 16 (32 digits) for NTLM.

/// What was wrong with a line.
///
/// # Examples
///
/// ```
/// use spool_pwned::text::hibp::{parse_line, LineErrorKind};
/// let mut hash = [0u8; 20];
/// assert_eq!(parse_line(b"ABC:1", b"", &mut hash), Err(LineErrorKind::WrongLength { expected: 40, found: 3 }));
/// ```
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

impl core::fmt::Display for LineErrorKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
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

impl core::error::Error for LineErrorKind {}

/// Longest hash [`parse_line`] decodes, in bytes.
pub const MAX_HASH_LEN: usize = 32;

/// Parses one line (without its `\n`; a trailing `\r` is allowed) whose
/// hash is `prefix` (hex, possibly empty, e.g. a range file's name)
/// followed by the line's own hex digits. Decodes the hash into `hash`,
/// whose length is the hash's, and returns the count.
///
/// # Errors
///
/// The kind of problem; the caller adds file, line and offset. `hash` then
/// holds unspecified bytes.
///
/// # Panics
///
/// If `hash` is longer than [`MAX_HASH_LEN`] or `prefix` has more digits
/// than the hash: both are the caller's settings, not input.
///
/// # Examples
///
/// ```
/// use spool_pwned::text::hibp::{parse_line, LineErrorKind};
/// let mut sha1 = [0u8; 20];
/// let count = parse_line(b"5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8:3\r", b"", &mut sha1);
/// assert_eq!(count, Ok(3));
/// assert_eq!(sha1[..2], [0x5b, 0xaa]);
/// // A range file's line: the file name `5BAA6` holds the first digits.
/// let count = parse_line(b"1E4C9B93F3F0682250B6CF8331B7EE68FD8:3", b"5BAA6", &mut sha1);
/// assert_eq!(count, Ok(3));
/// assert_eq!(parse_line(b"5BAA6:3", b"", &mut sha1), Err(LineErrorKind::WrongLength { expected: 40, found: 5 }));
/// ```
pub fn parse_line(line: &[u8], prefix: &[u8], hash: &mut [u8]) -> Result<u32, LineErrorKind> {
    assert!(
        hash.len() <= MAX_HASH_LEN,
        "hashes of up to {MAX_HASH_LEN} bytes"
    );
    let digits = 2 * hash.len();
    let expected = digits
        .checked_sub(prefix.len())
        .expect("a prefix no longer than the hash");
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // The common case in one pass: the colon right after a whole hash.
    if prefix.is_empty() && line.get(expected) == Some(&b':') {
        if let (true, Some(count)) = (
            super::hex::decoded(&line[..expected], hash),
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
    let ok = if prefix.is_empty() {
        super::hex::decoded(hex, hash)
    } else {
        let mut full = [0u8; 2 * MAX_HASH_LEN];
        full[..prefix.len()].copy_from_slice(prefix);
        full[prefix.len()..digits].copy_from_slice(hex);
        super::hex::decoded(&full[..digits], hash)
    };
    if !ok {
        return Err(LineErrorKind::NotHex);
    }
    parse_count(count).ok_or(LineErrorKind::BadCount)
}

fn is_hex(s: &[u8]) -> bool {
    s.iter().all(u8::is_ascii_hexdigit)
}

/// A decimal count below 2^32: digits only, no sign, at most ten of them
/// (leading zeros count).
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

mod whole;
pub use whole::{parse_whole_line, parse_whole_lines};

#[cfg(test)]
mod tests {
    use super::whole::{swar_digits, whole_lines, whole_lines_of};
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a loop over the bytes, for digits followed by anything.
        #[test]
        fn swar_digits_agrees_with_a_loop(eight in proptest::array::uniform8(prop_oneof![b'0'..=b'9', any::<u8>()])) {
            let n = eight.iter().take_while(|b| b.is_ascii_digit()).count();
            let value = eight[..n].iter().fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
            prop_assert_eq!(swar_digits(eight), (n, value));
        }
    }

    /// The oracle: split at the first colon, `str::parse` the count, and
    /// decode the prefix and the digits as one hex string.
    fn model(line: &[u8], prefix: &[u8], len: usize) -> Option<(Vec<u8>, u32)> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = core::str::from_utf8(line).ok()?;
        let (hex, count) = text.split_once(':')?;
        let full = format!("{}{hex}", core::str::from_utf8(prefix).ok()?);
        if full.len() != 2 * len || !full.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let bytes = (0..len)
            .map(|i| u8::from_str_radix(&full[2 * i..2 * i + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        // At most ten digits, leading zeros included.
        if count.is_empty() || count.len() > 10 || !count.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((bytes, count.parse().ok()?))
    }

    proptest! {
        /// Lines of the right shape most of the time (as many digits as
        /// the hash needs after the prefix), with a wrong length, a stray
        /// byte, a bad or missing count some of the time.
        #[test]
        fn agrees_with_a_plain_parser(
            len in prop_oneof![Just(16usize), Just(20)],
            ranged in any::<bool>(),
            right_length in proptest::bool::weighted(0.8),
            other_length in 0usize..44,
            digits in proptest::collection::vec(
                proptest::sample::select(b"0123456789abcdefABCDEF".to_vec()),
                44,
            ),
            stray in proptest::option::weighted(0.2, (any::<usize>(), any::<u8>())),
            count in proptest::option::weighted(0.9, "[0-9]{1,11}|[0-9+-]{1,3}"),
            crlf in any::<bool>(),
        ) {
            let prefix: &[u8] = if ranged { b"0a1B2" } else { b"" };
            let n = if right_length { 2 * len - prefix.len() } else { other_length };
            let mut line = digits[..n].to_vec();
            if let (Some((at, byte)), false) = (stray, line.is_empty()) {
                let at = at % line.len();
                line[at] = byte;
            }
            if let Some(count) = count {
                line.push(b':');
                line.extend_from_slice(count.as_bytes());
            }
            if crlf {
                line.push(b'\r');
            }
            let mut hash = vec![0u8; len];
            let got = parse_line(&line, prefix, &mut hash).ok().map(|count| (hash, count));
            prop_assert_eq!(got, model(&line, prefix, len));
        }
    }

    proptest! {
        /// The fast path of a whole text agrees with splitting its first
        /// line at `\n` and parsing that with `parse_line`.
        #[test]
        fn whole_lines_agree_with_split_lines(
            len in prop_oneof![Just(16usize), Just(20)],
            digits in proptest::collection::vec(
                proptest::sample::select(b"0123456789abcdefABCDEF".to_vec()),
                40,
            ),
            short in proptest::option::weighted(0.1, 0usize..40),
            stray in proptest::option::weighted(0.1, (any::<usize>(), any::<u8>())),
            count in "[0-9]{0,11}|[0-9]{1,3}[+ x-]",
            ending in proptest::sample::select(vec!["", "\n", "\r\n", "\r", "\r\r\n", "\n\r\n"]),
            rest in "[0-9A-F:\r\n]{0,50}",
        ) {
            let n = short.unwrap_or(2 * len);
            let mut text = digits[..n.min(2 * len)].to_vec();
            text.push(b':');
            text.extend_from_slice(count.as_bytes());
            if let (Some((at, byte)), false) = (stray, text.is_empty()) {
                let at = at % text.len();
                text[at] = byte;
            }
            text.extend_from_slice(ending.as_bytes());
            if !ending.is_empty() {
                text.extend_from_slice(rest.as_bytes());
            }
            let line_len = memchr::memchr(b'\n', &text).map_or(text.len(), |i| i + 1);
            let line = text[..line_len].strip_suffix(b"\n").unwrap_or(&text[..line_len]);
            let mut want_hash = vec![0u8; len];
            let want = parse_line(line, b"", &mut want_hash)
                .ok()
                .map(|count| (want_hash, count, line_len));
            let mut hash = vec![0u8; len];
            let got = parse_whole_line(&text, &mut hash).map(|(count, used)| (hash, count, used));
            prop_assert_eq!(got, want);
        }
    }

    /// What the line loops hand each line to.
    type Each<'a> = dyn FnMut(&[u8; MAX_HASH_LEN], u32) + 'a;

    /// Each whole line of `text` with the portable decoder, one call at a
    /// time: the oracle of the loop.
    fn whole_lines_one_by_one(text: &[u8], len: usize) -> (Vec<(Vec<u8>, u32)>, usize) {
        let (mut seen, mut at, mut hash) = (Vec::new(), 0, vec![0u8; len]);
        while let Some((count, used)) = parse_whole_line(&text[at..], &mut hash) {
            seen.push((hash.clone(), count));
            at += used;
        }
        (seen, at)
    }

    proptest! {
        /// The loop (AVX2 where the CPU has it; short counts read at fixed
        /// offsets) agrees with the one-line parser called line after
        /// line, on runs of good lines broken by bad bytes anywhere.
        #[test]
        fn whole_lines_agree_with_one_line_at_a_time(
            len in prop_oneof![Just(16usize), Just(20)],
            lines in proptest::collection::vec(
                (proptest::collection::vec(
                    proptest::sample::select(b"0123456789abcdefABCDEF".to_vec()),
                    40,
                ),
                prop_oneof![0u32..10_000_000, any::<u32>()],
                proptest::sample::select(vec!["\n", "\r\n"])),
                0..20,
            ),
            stray in proptest::option::weighted(0.3, (any::<usize>(), any::<u8>())),
        ) {
            let mut text = Vec::new();
            for (digits, count, ending) in &lines {
                text.extend_from_slice(&digits[..2 * len]);
                text.extend_from_slice(format!(":{count}{ending}").as_bytes());
            }
            if let (Some((at, byte)), false) = (stray, text.is_empty()) {
                let at = at % text.len();
                text[at] = byte;
            }
            let mut seen = Vec::new();
            let used = parse_whole_lines(&text, len, |hash, count| {
                assert!(hash[len..].iter().all(|&b| b == 0), "zeros past the hash");
                seen.push((hash[..len].to_vec(), count));
            });
            let want = whole_lines_one_by_one(&text, len);
            prop_assert_eq!((seen, used), want.clone());
            // The portable loops too, whatever this CPU has.
            let portable = |loop_: &dyn Fn(&mut Each) -> usize| {
                let mut seen = Vec::new();
                let used = loop_(&mut |hash, count| seen.push((hash[..len].to_vec(), count)));
                (seen, used)
            };
            let fixed = portable(&|each| match len {
                20 => whole_lines::<20>(&text, &mut |h, c| each(h, c), super::super::hex::decoded),
                _ => whole_lines::<16>(&text, &mut |h, c| each(h, c), super::super::hex::decoded),
            });
            prop_assert_eq!(fixed, want.clone());
            let any = portable(&|each| {
                whole_lines_of(&text, len, &mut |h, c| each(h, c), super::super::hex::decoded)
            });
            prop_assert_eq!(any, want);
        }
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let mut h = [0u8; 20];
        let hex = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8";
        assert_eq!(
            parse_line(hex.as_bytes(), b"", &mut h),
            Err(LineErrorKind::MissingCount)
        );
        assert_eq!(
            parse_line(format!("{}G:1", &hex[..39]).as_bytes(), b"", &mut h),
            Err(LineErrorKind::NotHex)
        );
        assert_eq!(
            parse_line(format!("{hex}:4294967296").as_bytes(), b"", &mut h),
            Err(LineErrorKind::BadCount)
        );
        assert_eq!(
            parse_line(format!("{hex}:4294967295").as_bytes(), b"", &mut h),
            Ok(u32::MAX)
        );
        assert_eq!(
            parse_line(b"abc:1", b"", &mut [0u8; 16]),
            Err(LineErrorKind::WrongLength {
                expected: 32,
                found: 3
            })
        );
    }
}
