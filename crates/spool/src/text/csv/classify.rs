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

/// The bytes to look for, prepared once per splitter (on x86-64: each
/// byte repeated across a vector register).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Needles {
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    delimiter: u8,
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    quote: Option<u8>,
    #[cfg(target_arch = "x86_64")]
    vectors: sse2::Vectors,
}

impl Needles {
    pub(crate) fn new(delimiter: u8, quote: Option<u8>) -> Self {
        Needles {
            delimiter,
            quote,
            #[cfg(target_arch = "x86_64")]
            vectors: sse2::Vectors::new(delimiter, quote),
        }
    }

    /// Classifies `chunk`; no quote bits when quoting is off.
    #[inline(always)]
    pub(crate) fn classify(&self, chunk: &[u8; 64]) -> Classes {
        #[cfg(target_arch = "x86_64")]
        {
            self.vectors.classify(chunk)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            portable(chunk, self.delimiter, self.quote)
        }
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

    /// The needles, each byte in all 16 lanes.
    #[derive(Clone, Copy, Debug)]
    pub(super) struct Vectors {
        quote: Option<__m128i>,
        delimiter: __m128i,
        lf: __m128i,
        cr: __m128i,
    }

    impl Vectors {
        pub(super) fn new(delimiter: u8, quote: Option<u8>) -> Self {
            // SAFETY: SSE2 is part of the x86-64 base instruction set, so
            // every x86-64 CPU has it.
            unsafe { Self::new_sse2(delimiter, quote) }
        }

        #[target_feature(enable = "sse2")]
        fn new_sse2(delimiter: u8, quote: Option<u8>) -> Self {
            Vectors {
                quote: quote.map(|q| _mm_set1_epi8(q as i8)),
                delimiter: _mm_set1_epi8(delimiter as i8),
                lf: _mm_set1_epi8(b'\n' as i8),
                cr: _mm_set1_epi8(b'\r' as i8),
            }
        }

        #[inline(always)]
        pub(super) fn classify(&self, chunk: &[u8; 64]) -> Classes {
            // SAFETY: as in `new`, SSE2 is always there on x86-64.
            unsafe { self.classify_sse2(chunk) }
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        fn classify_sse2(&self, chunk: &[u8; 64]) -> Classes {
            let lanes: [__m128i; 4] = core::array::from_fn(|k| {
                // SAFETY: `chunk` is 64 readable bytes and `16 * k + 16 <=
                // 64` for k < 4, so the 16-byte unaligned load stays inside
                // it. Checked by the `sse2_matches_portable` test, which
                // classifies chunks whose last byte is special.
                unsafe { _mm_loadu_si128(chunk.as_ptr().add(16 * k).cast()) }
            });
            Classes {
                quote: self.quote.map_or(0, |q| mask(&lanes, q)),
                delimiter: mask(&lanes, self.delimiter),
                lf: mask(&lanes, self.lf),
                cr: mask(&lanes, self.cr),
            }
        }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn mask(lanes: &[__m128i; 4], needle: __m128i) -> u64 {
        // `movemask` leaves the upper 16 bits zero: the casts are free.
        let bits = |k: usize| _mm_movemask_epi8(_mm_cmpeq_epi8(lanes[k], needle)) as u32 as u64;
        bits(0) | bits(1) << 16 | bits(2) << 32 | bits(3) << 48
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
            prop_assert_eq!(Needles::new(delimiter, quote).classify(chunk), portable(chunk, delimiter, quote));
            // Each byte, the last one included, lands on its own bit.
            let last = chunk[63];
            prop_assert_eq!(Needles::new(last, None).classify(chunk).delimiter >> 63, 1);
        }
    }
}
