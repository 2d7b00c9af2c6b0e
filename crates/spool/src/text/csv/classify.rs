//! One bit per byte: where a 64-byte chunk holds quotes, delimiters, LFs
//! and CRs.
//!
//! On x86-64 this is SSE2 (part of the base instruction set, so there is
//! no feature detection): 16 bytes per compare, `movemask` to bits. Other
//! targets use the plain loop, which the tests also check the SSE2 version
//! against.

/// The four byte classes of one chunk; bit `i` stands for byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Classes {
    pub quote: u64,
    pub delimiter: u64,
    pub lf: u64,
    pub cr: u64,
}

/// Classifies `chunk`; `quote` is `None` when quoting is off (no bits).
#[inline(always)]
pub(crate) fn classify(chunk: &[u8; 64], delimiter: u8, quote: Option<u8>) -> Classes {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::classify(chunk, delimiter, quote)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        portable(chunk, delimiter, quote)
    }
}

/// Byte by byte: the reference, and the version for targets without SSE2.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn portable(chunk: &[u8; 64], delimiter: u8, quote: Option<u8>) -> Classes {
    let mut c = Classes::default();
    for (i, &b) in chunk.iter().enumerate() {
        let bit = 1u64 << i;
        if Some(b) == quote {
            c.quote |= bit;
        }
        if b == delimiter {
            c.delimiter |= bit;
        }
        if b == b'\n' {
            c.lf |= bit;
        }
        if b == b'\r' {
            c.cr |= bit;
        }
    }
    c
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod sse2 {
    use super::Classes;
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };

    #[inline]
    #[target_feature(enable = "sse2")]
    fn mask(lanes: &[__m128i; 4], needle: __m128i) -> u64 {
        let mut m = 0u64;
        for (k, lane) in lanes.iter().enumerate() {
            let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(*lane, needle)) as u16;
            m |= u64::from(bits) << (16 * k);
        }
        m
    }

    #[inline(always)]
    pub(super) fn classify(chunk: &[u8; 64], delimiter: u8, quote: Option<u8>) -> Classes {
        // SAFETY: SSE2 is part of the x86-64 base instruction set, so every
        // x86-64 CPU has it.
        unsafe { classify_sse2(chunk, delimiter, quote) }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn classify_sse2(chunk: &[u8; 64], delimiter: u8, quote: Option<u8>) -> Classes {
        let lanes: [__m128i; 4] = core::array::from_fn(|k| {
            // SAFETY: `chunk` is 64 readable bytes and `16 * k + 16 <= 64`
            // for k < 4, so the 16-byte unaligned load stays inside it;
            // SSE2 is always enabled on x86-64. Checked by the
            // `sse2_matches_portable` test, which classifies chunks whose
            // last byte is special.
            unsafe { _mm_loadu_si128(chunk.as_ptr().add(16 * k).cast()) }
        });
        Classes {
            quote: match quote {
                Some(q) => mask(&lanes, _mm_set1_epi8(q as i8)),
                None => 0,
            },
            delimiter: mask(&lanes, _mm_set1_epi8(delimiter as i8)),
            lf: mask(&lanes, _mm_set1_epi8(b'\n' as i8)),
            cr: mask(&lanes, _mm_set1_epi8(b'\r' as i8)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            Just(b'"'),
            Just(b','),
            Just(b'\n'),
            Just(b'\r'),
            any::<u8>()
        ];
        proptest::collection::vec(byte, 64)
    }

    proptest! {
        #[test]
        fn sse2_matches_portable(
            bytes in bytes(),
            delimiter in any::<u8>(),
            quote in proptest::option::of(any::<u8>()),
        ) {
            let chunk: &[u8; 64] = bytes[..].try_into().unwrap();
            prop_assert_eq!(classify(chunk, delimiter, quote), portable(chunk, delimiter, quote));
            // Each byte, the last one included, lands on its own bit.
            let last = chunk[63];
            prop_assert_eq!(classify(chunk, last, None).delimiter >> 63, 1);
        }
    }
}
