//! The AVX2 decoder, for callers that detected AVX2 at run time: 32
//! digits per step, the same arithmetic as `sse2` on twice the
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
