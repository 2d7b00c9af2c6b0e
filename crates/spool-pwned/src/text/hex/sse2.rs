//! The SSE2 decoder (x86-64's baseline, so no run-time check): 16
//! digits per step. For each byte `c` of a vector:
//! `digit = '0' <= c <= '9'`, `letter = 'a' <= (c | 0x20) <= 'f'`
//! (signed compares: bytes from 0x80 up are negative and fail both),
//! value `(c & 0x0F) + (letter ? 9 : 0)`; then each pair of values
//! `hi, lo` (one little-endian u16 lane) becomes `hi << 4 | lo`, and
//! two vectors of lanes pack into 16 bytes.

use core::arch::x86_64::{
    __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
    _mm_or_si128, _mm_packus_epi16, _mm_set1_epi16, _mm_set1_epi8, _mm_slli_epi16, _mm_srli_epi16,
    _mm_storeu_si128,
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
