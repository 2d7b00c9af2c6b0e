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
//! - `decode_avx2` (chosen by run-time detection) does
//!   32 digits per step; it is meant to inline into a loop compiled for
//!   AVX2 as a whole, as [`hibp::parse_whole_lines`](super::hibp::parse_whole_lines)'s is.
//! - Measured in the index build (docs/perf/pwned-build-history.md):
//!   `faster-hex` first checks the digits, then decodes them, and its
//!   setup costs more than 40 bytes repay.
//!
//! The table decoder is the reference the SIMD decoders are tested against,
//! on every pair of byte values in every position.
//!
//! This file holds the API, the choice of decoder and the table; the SIMD
//! arithmetic, which needs its own `unsafe` intrinsics and target features,
//! is `sse2.rs`'s and `avx2.rs`'s, one instruction set each.

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
/// use spool_pwned::text::hex::{decode, InvalidHex};
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
/// spool_pwned::text::hex::decode(b"5bAA", &mut out)?;
/// assert_eq!(out, [0x5b, 0xaa]);
/// let err = spool_pwned::text::hex::decode(b"5bAG", &mut out).unwrap_err();
/// assert_eq!(err.to_string(), "byte 0x47 at position 3 is not a hex digit");
/// # Ok::<(), spool_pwned::text::hex::InvalidHex>(())
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
#[cfg(target_arch = "x86_64")]
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
mod avx2;
#[cfg(target_arch = "x86_64")]
mod sse2;

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
                    #[cfg(target_arch = "x86_64")]
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
