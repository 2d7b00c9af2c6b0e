//! Hex decoding fast enough for a hot loop: every line of the Have I Been
//! Pwned corpus (about a billion) carries a 40-digit hash, decoded by
//! [`hibp`](super::hibp) as `spool-pwned` builds its index.
//!
//! - [`decode`] checks and decodes in one pass, and on failure says what
//!   was wrong and where ([`InvalidHex`]); finding that out is a second,
//!   out-of-line pass that only bad input pays for. For 32 and 40 digits
//!   (NTLM and SHA-1) on x86-64 it works on 16 digits at a time with SSE2,
//!   which every x86-64 CPU has, so no runtime detection is needed; any
//!   other length or target uses a 256-entry table.
//! - `decode_avx2` (with the `std` feature, for run-time detection) does
//!   32 digits per step; it is meant to inline into a loop compiled for
//!   AVX2 as a whole, as [`hibp::parse_whole_lines`](super::hibp::parse_whole_lines)'s is.
//! - Measured in the index build (docs/perf/pwned-build-history.md):
//!   `faster-hex` first checks the digits, then decodes them, and its
//!   setup costs more than 40 bytes repay.
//!
//! The table decoder is the reference the SIMD decoders are tested against,
//! on every pair of byte values in every position.

/// Value of each byte as a hex digit, or `INVALID`.
static HEX_VALUE: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// Marks a byte that is not a hex digit: any value with a bit above the
/// low four.
const INVALID: u8 = 0xF0;

/// Why [`decode`] refused its input.
///
/// # Examples
///
/// ```
/// use spool::text::hex::{decode, InvalidHex};
///
/// let mut out = [0u8; 2];
/// assert_eq!(decode(b"5bAG", &mut out), Err(InvalidHex::Digit { position: 3, byte: b'G' }));
/// assert_eq!(decode(b"5bA", &mut out), Err(InvalidHex::Length { expected: 4, found: 3 }));
/// assert_eq!(
///     InvalidHex::Digit { position: 3, byte: b'G' }.to_string(),
///     "byte 0x47 at position 3 is not a hex digit"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidHex {
    /// The input does not hold exactly two digits per output byte.
    #[error("expected {expected} hex digits (two per byte), found {found}")]
    Length {
        /// Twice the output's length.
        expected: usize,
        /// The input's length.
        found: usize,
    },
    /// A byte that is not a hex digit (`0-9`, `a-f`, `A-F`): the first one.
    #[error("byte {byte:#04x} at position {position} is not a hex digit")]
    Digit {
        /// Its index in the input, from 0.
        position: usize,
        /// The byte found there.
        byte: u8,
    },
}

/// Decodes `hex` (either case) into `out`, which must be half its length.
///
/// # Errors
///
/// [`InvalidHex`] naming the first byte that is not a hex digit, or the
/// lengths; `out` then holds unspecified bytes.
///
/// # Examples
///
/// ```
/// let mut out = [0u8; 2];
/// spool::text::hex::decode(b"5bAA", &mut out)?;
/// assert_eq!(out, [0x5b, 0xaa]);
/// let err = spool::text::hex::decode(b"5bAG", &mut out).unwrap_err();
/// assert_eq!(err.to_string(), "byte 0x47 at position 3 is not a hex digit");
/// # Ok::<(), spool::text::hex::InvalidHex>(())
/// ```
#[inline]
pub fn decode(hex: &[u8], out: &mut [u8]) -> Result<(), InvalidHex> {
    if decoded(hex, out) {
        Ok(())
    } else {
        Err(invalid(hex, out.len()))
    }
}

/// What is wrong with `hex`, which did not decode into `out_len` bytes:
/// the second pass, out of line, that only bad input pays for.
#[cold]
#[inline(never)]
fn invalid(hex: &[u8], out_len: usize) -> InvalidHex {
    if hex.len() != 2 * out_len {
        return InvalidHex::Length {
            expected: 2 * out_len,
            found: hex.len(),
        };
    }
    let position = hex
        .iter()
        .position(|&b| HEX_VALUE[usize::from(b)] == INVALID)
        .expect("the decoders refuse only input with a non-digit");
    InvalidHex::Digit {
        position,
        byte: hex[position],
    }
}

/// [`decode`] without the error: whether every digit was valid and the
/// lengths agree. For the line parser in [`hibp`](super::hibp), which
/// names a bad line's problem itself.
#[inline]
pub(crate) fn decoded(hex: &[u8], out: &mut [u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if let (Ok(hex), Ok(out)) = (
            <&[u8; 40]>::try_from(hex),
            <&mut [u8; 20]>::try_from(&mut *out),
        ) {
            // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 CPU
            // has it, so the target-feature precondition holds.
            return unsafe { sse2::decode_40(hex, out) };
        }
        if let (Ok(hex), Ok(out)) = (
            <&[u8; 32]>::try_from(hex),
            <&mut [u8; 16]>::try_from(&mut *out),
        ) {
            // SAFETY: as above.
            return unsafe { sse2::decode_32(hex, out) };
        }
    }
    decode_with_table(hex, out)
}

/// [`decoded`] compiled for AVX2: 32 digits per step, decoded straight
/// into `out`. Inlines into a caller that is itself compiled for AVX2
/// (the line parser's loop in [`hibp`](super::hibp)).
///
/// # Safety
///
/// The CPU must have AVX2 (`is_x86_feature_detected!("avx2")`).
#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn decode_avx2(hex: &[u8], out: &mut [u8]) -> bool {
    if let (Ok(hex), Ok(out)) = (
        <&[u8; 40]>::try_from(hex),
        <&mut [u8; 20]>::try_from(&mut *out),
    ) {
        return avx2::decode_40(hex, out);
    }
    if let (Ok(hex), Ok(out)) = (
        <&[u8; 32]>::try_from(hex),
        <&mut [u8; 16]>::try_from(&mut *out),
    ) {
        return avx2::decode_32(hex, out);
    }
    decode_with_table(hex, out)
}

/// The portable decoder: one table lookup per digit.
fn decode_with_table(hex: &[u8], out: &mut [u8]) -> bool {
    if hex.len() != 2 * out.len() {
        return false;
    }
    let mut bad = 0u8;
    for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        let hi = HEX_VALUE[usize::from(pair[0])];
        let lo = HEX_VALUE[usize::from(pair[1])];
        bad |= hi | lo;
        *byte = (hi << 4) | lo;
    }
    bad & INVALID == 0
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    //! 16 digits per step. For each byte `c` of a vector:
    //! `digit = '0' <= c <= '9'`, `letter = 'a' <= (c | 0x20) <= 'f'`
    //! (signed compares: bytes from 0x80 up are negative and fail both),
    //! value `(c & 0x0F) + (letter ? 9 : 0)`; then each pair of values
    //! `hi, lo` (one little-endian u16 lane) becomes `hi << 4 | lo`, and
    //! two vectors of lanes pack into 16 bytes.

    use core::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_packus_epi16, _mm_set1_epi16, _mm_set1_epi8, _mm_slli_epi16,
        _mm_srli_epi16, _mm_storeu_si128,
    };

    /// Loads 16 bytes.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn load(bytes: &[u8; 16]) -> __m128i {
        // SAFETY: `bytes` is 16 readable bytes; `loadu` has no alignment
        // requirement.
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
    }

    /// Stores 16 bytes.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn store(out: &mut [u8; 16], v: __m128i) {
        // SAFETY: `out` is 16 writable bytes; `storeu` has no alignment
        // requirement.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), v) }
    }

    /// 16 digits to 8 bytes (in the low byte of each u16 lane), and whether
    /// all 16 were hex digits.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn lanes(v: __m128i) -> (__m128i, bool) {
        let digit = _mm_and_si128(
            _mm_cmpgt_epi8(v, _mm_set1_epi8(b'0' as i8 - 1)),
            _mm_cmpgt_epi8(_mm_set1_epi8(b'9' as i8 + 1), v),
        );
        let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
        let letter = _mm_and_si128(
            _mm_cmpgt_epi8(folded, _mm_set1_epi8(b'a' as i8 - 1)),
            _mm_cmpgt_epi8(_mm_set1_epi8(b'f' as i8 + 1), folded),
        );
        let valid = _mm_movemask_epi8(_mm_or_si128(digit, letter)) == 0xFFFF;
        let value = _mm_add_epi8(
            _mm_and_si128(v, _mm_set1_epi8(0x0F)),
            _mm_and_si128(letter, _mm_set1_epi8(9)),
        );
        let high = _mm_slli_epi16(value, 4);
        let low = _mm_srli_epi16(value, 8);
        let byte = _mm_and_si128(_mm_or_si128(high, low), _mm_set1_epi16(0x00FF));
        (byte, valid)
    }

    #[inline]
    fn half(hex: &[u8; 40], at: usize) -> &[u8; 16] {
        hex[at..at + 16].try_into().expect("16 bytes")
    }

    /// 40 digits: two vectors for the first 32, and one that overlaps them
    /// (digits 24..40) for the last 8.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn decode_40(hex: &[u8; 40], out: &mut [u8; 20]) -> bool {
        let (a, ok_a) = lanes(load(half(hex, 0)));
        let (b, ok_b) = lanes(load(half(hex, 16)));
        let mut first = [0u8; 16];
        store(&mut first, _mm_packus_epi16(a, b));
        let (last, ok_last) = last_8(hex);
        out[..16].copy_from_slice(&first);
        out[16..].copy_from_slice(&last);
        ok_a & ok_b & ok_last
    }

    /// The last 8 of 40 digits as 4 bytes, from a vector that overlaps
    /// the first 32 (digits 24..40), and whether those 16 were hex digits.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn last_8(hex: &[u8; 40]) -> ([u8; 4], bool) {
        let (c, ok) = lanes(load(half(hex, 24)));
        let mut last = [0u8; 16];
        store(&mut last, _mm_packus_epi16(c, c));
        (last[4..8].try_into().expect("4 bytes"), ok)
    }

    /// 32 digits: two vectors.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn decode_32(hex: &[u8; 32], out: &mut [u8; 16]) -> bool {
        let (a, ok_a) = lanes(load(hex[..16].try_into().expect("16 bytes")));
        let (b, ok_b) = lanes(load(hex[16..].try_into().expect("16 bytes")));
        store(out, _mm_packus_epi16(a, b));
        ok_a & ok_b
    }
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod avx2 {
    //! 32 digits per step, the same arithmetic as `sse2` on twice the
    //! lanes; pairs of values are joined with one multiply-add
    //! (`hi * 16 + lo` per u16 lane) instead of shifts and masks. The
    //! last 8 of 40 digits are `sse2`'s.

    use core::arch::x86_64::{
        __m128i, _mm256_add_epi8, _mm256_and_si256, _mm256_castsi256_si128, _mm256_cmpgt_epi8,
        _mm256_loadu_si256, _mm256_maddubs_epi16, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_packus_epi16, _mm256_permute4x64_epi64, _mm256_set1_epi16, _mm256_set1_epi8,
        _mm_storeu_si128,
    };

    /// 32 digits to 16 bytes (the low half of the result), and whether all
    /// 32 were hex digits.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn bytes_32(hex: &[u8; 32]) -> (__m128i, bool) {
        // SAFETY: `hex` is 32 readable bytes; `loadu` has no alignment
        // requirement.
        let v = unsafe { _mm256_loadu_si256(hex.as_ptr().cast()) };
        let digit = _mm256_and_si256(
            _mm256_cmpgt_epi8(v, _mm256_set1_epi8(b'0' as i8 - 1)),
            _mm256_cmpgt_epi8(_mm256_set1_epi8(b'9' as i8 + 1), v),
        );
        let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        let letter = _mm256_and_si256(
            _mm256_cmpgt_epi8(folded, _mm256_set1_epi8(b'a' as i8 - 1)),
            _mm256_cmpgt_epi8(_mm256_set1_epi8(b'f' as i8 + 1), folded),
        );
        let valid = _mm256_movemask_epi8(_mm256_or_si256(digit, letter)) == -1;
        let value = _mm256_add_epi8(
            _mm256_and_si256(v, _mm256_set1_epi8(0x0F)),
            _mm256_and_si256(letter, _mm256_set1_epi8(9)),
        );
        // Each u16 lane: its first byte (the high digit) times 16 plus its
        // second; at most 255, so the unsigned pack keeps it whole.
        let pairs = _mm256_maddubs_epi16(value, _mm256_set1_epi16(0x0110));
        // Packing works within each 128-bit half: bytes 0..8 and 16..24
        // hold the result; gather those two quadwords into the low half.
        let packed = _mm256_packus_epi16(pairs, pairs);
        let low = _mm256_permute4x64_epi64::<0b00_00_10_00>(packed);
        (_mm256_castsi256_si128(low), valid)
    }

    /// 40 digits: 32 in one step, the last 8 as `sse2` does them.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn decode_40(hex: &[u8; 40], out: &mut [u8; 20]) -> bool {
        let (first, ok_first) = bytes_32(hex[..32].try_into().expect("32 bytes"));
        let (last, ok_last) = super::sse2::last_8(hex);
        // SAFETY: `out` has 16 writable bytes at its front; `storeu` has
        // no alignment requirement.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), first) };
        out[16..].copy_from_slice(&last);
        ok_first & ok_last
    }

    /// 32 digits: one step.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn decode_32(hex: &[u8; 32], out: &mut [u8; 16]) -> bool {
        let (bytes, ok) = bytes_32(hex);
        // SAFETY: `out` is 16 writable bytes; `storeu` has no alignment
        // requirement.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), bytes) };
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_decoder_agrees_with_a_plain_decoder_on_every_byte_pair() {
        let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let mut out = [0u8; 1];
                let want = digit(a).zip(digit(b)).map(|(h, l)| h << 4 | l);
                let ok = decode_with_table(&[a, b], &mut out);
                assert_eq!(ok.then_some(out[0]), want, "{a:#x} {b:#x}");
            }
        }
        assert!(!decoded(b"abc", &mut [0u8; 1]));
    }

    #[test]
    fn errors_name_the_first_bad_byte_or_the_lengths() {
        let mut out = [0u8; 20];
        let mut hex = *b"0123456789abcdefABCDEF0123456789aBcDeF09";
        assert_eq!(decode(&hex, &mut out), Ok(()));
        for position in [0, 1, 15, 16, 23, 24, 31, 32, 39] {
            let mut bad = hex;
            bad[position] = b'g';
            bad[39] = if position == 39 { b'g' } else { b'/' };
            let first = position.min(39);
            assert_eq!(
                decode(&bad, &mut out),
                Err(InvalidHex::Digit {
                    position: first,
                    byte: bad[first],
                }),
                "{position}"
            );
            assert_eq!(decode(&bad[..32], &mut out[..16]).is_err(), position < 32);
        }
        hex[7] = 0xFF;
        assert_eq!(
            decode(&hex, &mut out),
            Err(InvalidHex::Digit {
                position: 7,
                byte: 0xFF
            })
        );
        assert_eq!(
            decode(b"abc", &mut [0u8; 1]),
            Err(InvalidHex::Length {
                expected: 2,
                found: 3
            })
        );
        // A length mismatch is reported even when the digits are bad too.
        assert_eq!(
            decode(b"zz", &mut [0u8; 2]),
            Err(InvalidHex::Length {
                expected: 4,
                found: 2
            })
        );
    }

    /// Every pair of byte values at every pair position of a 40- and a
    /// 32-digit hash: the fast decoders (SSE2, and AVX2 where the CPU has
    /// it) must agree with the table.
    #[test]
    fn fast_decoders_agree_with_the_table_everywhere() {
        let base = *b"0123456789abcdefABCDEF0123456789aBcDeF09";
        for pos in (0..40).step_by(2) {
            for a in 0..=255u8 {
                for b in 0..=255u8 {
                    let mut hex = base;
                    hex[pos] = a;
                    hex[pos + 1] = b;
                    let (mut fast, mut slow) = ([0u8; 20], [0u8; 20]);
                    let ok = decoded(&hex, &mut fast);
                    assert_eq!(
                        ok,
                        decode_with_table(&hex, &mut slow),
                        "{pos} {a:#x} {b:#x}"
                    );
                    if ok {
                        assert_eq!(fast, slow);
                    }
                    #[cfg(all(target_arch = "x86_64", feature = "std"))]
                    if std::is_x86_feature_detected!("avx2") {
                        let mut wide = [0u8; 20];
                        // SAFETY: the CPU has AVX2, just checked.
                        let ok_wide = unsafe { decode_avx2(&hex, &mut wide) };
                        assert_eq!(ok_wide, ok, "avx2 {pos} {a:#x} {b:#x}");
                        if ok {
                            assert_eq!(wide, slow);
                        }
                        if pos < 32 {
                            let (mut wide, mut slow) = ([0u8; 16], [0u8; 16]);
                            // SAFETY: as above.
                            let ok = unsafe { decode_avx2(&hex[..32], &mut wide) };
                            assert_eq!(ok, decode_with_table(&hex[..32], &mut slow));
                            if ok {
                                assert_eq!(wide, slow);
                            }
                        }
                    }
                    if pos < 32 {
                        let (mut fast, mut slow) = ([0u8; 16], [0u8; 16]);
                        let ok = decoded(&hex[..32], &mut fast);
                        assert_eq!(ok, decode_with_table(&hex[..32], &mut slow));
                        if ok {
                            assert_eq!(fast, slow);
                        }
                    }
                }
            }
        }
    }
}
