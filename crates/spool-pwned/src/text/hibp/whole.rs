//! Whole `HASH:COUNT` lines of a file of full hashes, split and parsed in
//! one pass: the build's common case, kept apart from [`parse_line`]'s
//! general rules (prefixes, error kinds), which it agrees with.
//!
//! [`parse_line`]: super::parse_line

use super::MAX_HASH_LEN;

/// The common case of a file of full hashes, with the line splitting in
/// the same pass: parses the line at the start of `text` if it is exactly
/// `HASH:COUNT` ended by `\n`, `\r\n` or the end of `text` (a `\r` just
/// before the end too), decoding the hash into `hash`, and returns the
/// count and the line's length with its ending. Walking the count's digits
/// finds the line's end, so the line needs no separate search for its
/// newline.
///
/// Returns `None` for any other line — empty, malformed, a count of 2^32
/// or more: split that line off at its `\n` and hand it to [`parse_line`](super::parse_line),
/// which accepts exactly the lines this accepts (with an empty prefix) and
/// says what is wrong with the others.
///
/// # Examples
///
/// ```
/// use spool_pwned::text::hibp::parse_whole_line;
/// let mut sha1 = [0u8; 20];
/// let text = b"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:12\r\nnext line";
/// assert_eq!(parse_whole_line(text, &mut sha1), Some((12, 45)));
/// assert_eq!(sha1[..2], [0x5b, 0xaa]);
/// assert_eq!(parse_whole_line(b"\r\n", &mut sha1), None);
/// assert_eq!(parse_whole_line(b"5BAA6:3\n", &mut sha1), None);
/// ```
#[inline]
pub fn parse_whole_line(text: &[u8], hash: &mut [u8]) -> Option<(u32, usize)> {
    whole_line(text, hash, super::super::hex::decoded)
}

/// [`parse_whole_line`] for line after line: parses the whole lines at
/// the start of `text`, one after another, handing each one's hash
/// (decoded into the first `hash_len` bytes of a buffer whose other bytes
/// are zero) and count to `each`, and stops before the first line that is
/// not one, or at the end of `text`. Returns the bytes taken. The loop
/// runs in one function compiled for AVX2 when the CPU has it (the hex
/// digits then decoded 32 at a time), and with [`parse_whole_line`]'s
/// decoder otherwise; both accept exactly the same lines.
///
/// # Panics
///
/// If `hash_len` is more than [`MAX_HASH_LEN`].
///
/// # Examples
///
/// ```
/// use spool_pwned::text::hibp::parse_whole_lines;
/// let text = b"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:12\r\n\
///              5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD9:3\r\n\r\nnext";
/// let mut seen = Vec::new();
/// let used = parse_whole_lines(text, 20, |hash, count| seen.push((hash[19], count)));
/// assert_eq!(seen, [(0xd8, 12), (0xd9, 3)]);
/// assert_eq!(&text[used..], b"\r\nnext");
/// ```
#[inline]
pub fn parse_whole_lines(
    text: &[u8],
    hash_len: usize,
    mut each: impl FnMut(&[u8; MAX_HASH_LEN], u32),
) -> usize {
    assert!(
        hash_len <= MAX_HASH_LEN,
        "hashes of up to {MAX_HASH_LEN} bytes"
    );
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, just checked.
        return unsafe { whole_lines_avx2(text, hash_len, &mut each) };
    }
    whole_lines_by_len(text, hash_len, &mut each, super::super::hex::decoded)
}

/// [`parse_whole_lines`] compiled for AVX2, its decoder too.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn whole_lines_avx2(
    text: &[u8],
    hash_len: usize,
    each: &mut impl FnMut(&[u8; MAX_HASH_LEN], u32),
) -> usize {
    let decode = |hex: &[u8], out: &mut [u8]| {
        // SAFETY: this function runs only on a CPU with AVX2.
        unsafe { super::super::hex::decode_avx2(hex, out) }
    };
    whole_lines_by_len(text, hash_len, each, decode)
}

/// The loop for `hash_len`: one with the length a constant for SHA-1 and
/// NTLM, [`whole_lines_of`] for any other. Inlined, so that it is compiled
/// for AVX2 inside [`whole_lines_avx2`].
#[inline(always)]
fn whole_lines_by_len(
    text: &[u8],
    hash_len: usize,
    each: &mut impl FnMut(&[u8; MAX_HASH_LEN], u32),
    decode: impl Fn(&[u8], &mut [u8]) -> bool,
) -> usize {
    match hash_len {
        20 => whole_lines::<20>(text, each, decode),
        16 => whole_lines::<16>(text, each, decode),
        _ => whole_lines_of(text, hash_len, each, decode),
    }
}

/// Bytes a line is read from in [`short_line`]: more than any line it
/// takes (64 hex digits at most, a colon, 7 digits, `\r\n`).
const WINDOW: usize = 2 * MAX_HASH_LEN + 10;

/// The loop of [`parse_whole_lines`] for hashes of `LEN` bytes: while a
/// whole window is ahead, a line with a count of up to seven digits (the
/// common case by far) is read from it at fixed offsets, with no bounds
/// checks; any other line, and the text's last lines, go through
/// [`whole_line`], which decides alike.
#[inline(always)]
pub(super) fn whole_lines<const LEN: usize>(
    text: &[u8],
    each: &mut impl FnMut(&[u8; MAX_HASH_LEN], u32),
    decode: impl Fn(&[u8], &mut [u8]) -> bool,
) -> usize {
    let mut hash = [0u8; MAX_HASH_LEN];
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let short = rest
            .first_chunk::<WINDOW>()
            .and_then(|window| short_line::<LEN>(window, &mut hash, &decode));
        let Some((count, used)) = short.or_else(|| whole_line(rest, &mut hash[..LEN], &decode))
        else {
            return at;
        };
        each(&hash, count);
        at += used;
    }
}

/// The line at the start of `window` if it is a hash of `LEN` bytes, a
/// colon, one to seven digits and `\n` or `\r\n`: its count and length.
/// `None` says only that the line is not of that form (it may still be a
/// whole line, e.g. with a longer count).
#[inline(always)]
fn short_line<const LEN: usize>(
    window: &[u8; WINDOW],
    hash: &mut [u8; MAX_HASH_LEN],
    decode: impl Fn(&[u8], &mut [u8]) -> bool,
) -> Option<(u32, usize)> {
    let digits = 2 * LEN;
    if window[digits] != b':' || !decode(&window[..digits], &mut hash[..LEN]) {
        return None;
    }
    let eight = window[digits + 1..digits + 9].try_into().expect("8 bytes");
    let (n, value) = swar_digits(eight);
    if n == 0 || n == 8 {
        return None;
    }
    // Seven digits at most: the value fits a `u32`.
    let (end, count) = (digits + 1 + n, value as u32);
    match (window[end], window[end + 1]) {
        (b'\n', _) => Some((count, end + 1)),
        (b'\r', b'\n') => Some((count, end + 2)),
        _ => None,
    }
}

/// The loop of [`parse_whole_lines`] for any hash length.
#[inline(always)]
pub(super) fn whole_lines_of(
    text: &[u8],
    hash_len: usize,
    each: &mut impl FnMut(&[u8; MAX_HASH_LEN], u32),
    decode: impl Fn(&[u8], &mut [u8]) -> bool,
) -> usize {
    let mut hash = [0u8; MAX_HASH_LEN];
    let mut at = 0;
    while let Some((count, used)) = whole_line(&text[at..], &mut hash[..hash_len], &decode) {
        each(&hash, count);
        at += used;
    }
    at
}

/// [`parse_whole_line`] with the hex decoder given.
#[inline(always)]
fn whole_line(
    text: &[u8],
    hash: &mut [u8],
    decode: impl Fn(&[u8], &mut [u8]) -> bool,
) -> Option<(u32, usize)> {
    let digits = 2 * hash.len();
    if text.get(digits) != Some(&b':') || !decode(&text[..digits], hash) {
        return None;
    }
    let start = digits + 1;
    // At most ten digits, as `parse_count` takes; an eleventh is not a
    // line end below, so such a line goes the slow way.
    let limit = text.len().min(start + 10);
    let (mut at, mut value, more) = match text.get(start..start + 8) {
        Some(eight) => {
            let (n, value) = swar_digits(eight.try_into().expect("8 bytes"));
            (start + n, value, n == 8)
        }
        None => (start, 0, true),
    };
    // Past eight digits, or near the end of the text: a digit at a time.
    while more && at < limit {
        let digit = text[at].wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value * 10 + u64::from(digit);
        at += 1;
    }
    if at == start {
        return None;
    }
    let count = u32::try_from(value).ok()?;
    match (text.get(at), text.get(at + 1)) {
        (None, _) => Some((count, at)),
        (Some(b'\n'), _) => Some((count, at + 1)),
        (Some(b'\r'), Some(b'\n')) => Some((count, at + 2)),
        (Some(b'\r'), None) => Some((count, at + 1)),
        _ => None,
    }
}

/// The leading decimal digits of `eight` (up to all eight): how many,
/// and their value. Eight bytes at once instead of a loop over them:
/// find the first byte that is not a digit, shift the digits to the top
/// (zeros move in as leading zeros), and add them up pairwise.
#[inline]
pub(super) fn swar_digits(eight: [u8; 8]) -> (usize, u64) {
    let word = u64::from_le_bytes(eight);
    const LOW: u64 = 0x0101_0101_0101_0101;
    // A byte is a digit if its high nibble is 3 and stays 3 after adding
    // 6 (low nibble at most 9). A byte of 0xFA or more carries into the
    // next one, which is past the first non-digit and so does not matter.
    let nibble = (word & (0xF0 * LOW)) ^ (0x30 * LOW);
    let plus6 = (word.wrapping_add(0x06 * LOW) & (0xF0 * LOW)) ^ (0x30 * LOW);
    let not_digit = nibble | plus6;
    let n = (not_digit.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    let digits = (word << (8 * (8 - n))) & (0x0F * LOW);
    // Pairs, then fours, then all eight (first digit most significant).
    let v = digits.wrapping_mul((10 << 8) + 1) >> 8;
    let v = (v & 0x00FF_00FF_00FF_00FF).wrapping_mul((100 << 16) + 1) >> 16;
    let v = (v & 0x0000_FFFF_0000_FFFF).wrapping_mul((10_000 << 32) + 1) >> 32;
    (n, v)
}
