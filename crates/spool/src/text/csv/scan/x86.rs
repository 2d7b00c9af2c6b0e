//! The whole chunk scan in one function compiled for AVX2, PCLMULQDQ and
//! POPCNT, so classification, masks and counts run without a call or a
//! spill between them. The prefix-XOR is one carry-less multiply by all
//! ones (bit `i` of the product is the XOR of bits `0..=i`), as in
//! simdjson. Apart from `mod.rs` because it is the one place compiled for
//! those features (what it saves: docs/perf/csv-split.md).

use core::arch::x86_64::{_mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set1_epi8, _mm_set_epi64x};

use super::{masks, scalar, valid, Carry, Scanned, Splitter};

/// [`Splitter::scan`] on a CPU with AVX2, PCLMULQDQ and POPCNT.
#[inline]
#[target_feature(enable = "avx2,pclmulqdq,popcnt")]
pub(crate) fn scan(s: &Splitter, carry: &mut Carry, chunk: &[u8; 64], len: usize) -> Scanned {
    let c = valid(s.needles.vectors.classify_avx2(chunk), len);
    // The closure inherits this function's target features, so the
    // call is safe and inlined.
    masks(c, carry, len, |x| prefix_xor(x))
        .unwrap_or_else(|| scalar(s.dialect, carry, &chunk[..len]))
}

/// [`super::prefix_xor`] as one carry-less multiply.
#[inline]
#[target_feature(enable = "pclmulqdq")]
fn prefix_xor(x: u64) -> u64 {
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The carry-less multiply is the shift-and-XOR ladder.
        #[test]
        fn clmul_prefix_xor_is_the_ladder(x in any::<u64>()) {
            if std::is_x86_feature_detected!("pclmulqdq") {
                // SAFETY: the CPU has PCLMULQDQ (checked above).
                let fast = unsafe { super::prefix_xor(x) };
                prop_assert_eq!(fast, super::super::prefix_xor(x));
            }
        }
    }
}
