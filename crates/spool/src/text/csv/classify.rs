//! One bit per byte: where a 64-byte chunk holds quotes, delimiters, LFs
//! and CRs.
//!
//! On x86-64 this is AVX2 when the CPU has it (32 bytes per compare,
//! checked once per splitter; without the `std` feature, only when the
//! build targets AVX2, as there is no run-time detection) and SSE2 otherwise (part of the base
//! instruction set: 16 bytes per compare); `movemask` turns compares into
//! bits. Other targets use the plain loop, which the tests also check both
//! vector versions against.

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
    pub(super) vectors: sse2::Vectors,
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
pub(super) mod sse2 {
    use super::Classes;
    use core::arch::x86_64::{
        __m128i, __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_set1_epi8, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };

    /// The needles, each byte in all 16 lanes, and whether the CPU has
    /// AVX2.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Vectors {
        quote: Option<__m128i>,
        delimiter: __m128i,
        lf: __m128i,
        cr: __m128i,
        /// The needle bytes again, for AVX2's wider vectors.
        bytes: (u8, Option<u8>),
        avx2: bool,
        /// AVX2, PCLMULQDQ and POPCNT together: the whole chunk scan can
        /// run in one function compiled for them (`scan::x86`).
        fused: bool,
    }

    impl Vectors {
        pub(super) fn new(delimiter: u8, quote: Option<u8>) -> Self {
            // Without `std` there is no run-time detection: AVX2 is used
            // only when the build targets it (`-C target-feature=+avx2`).
            #[cfg(feature = "std")]
            let (avx2, fused) = {
                let avx2 = std::is_x86_feature_detected!("avx2");
                let clmul = std::is_x86_feature_detected!("pclmulqdq");
                (
                    avx2,
                    avx2 && clmul && std::is_x86_feature_detected!("popcnt"),
                )
            };
            #[cfg(not(feature = "std"))]
            let (avx2, fused) = (
                cfg!(target_feature = "avx2"),
                cfg!(all(
                    target_feature = "avx2",
                    target_feature = "pclmulqdq",
                    target_feature = "popcnt"
                )),
            );
            // SAFETY: SSE2 is part of the x86-64 base instruction set, so
            // every x86-64 CPU has it.
            let vectors = unsafe { Self::new_sse2(delimiter, quote, avx2) };
            Vectors { fused, ..vectors }
        }

        /// Whether the CPU has AVX2, PCLMULQDQ and POPCNT (checked in
        /// `new`): `scan::x86::scan` may be called.
        #[inline(always)]
        pub(crate) fn fused(&self) -> bool {
            self.fused
        }

        /// Without AVX2 even if the CPU has it: for the tests.
        #[cfg(test)]
        pub(crate) fn without_avx2(mut self) -> Self {
            self.avx2 = false;
            self.fused = false;
            self
        }

        #[target_feature(enable = "sse2")]
        fn new_sse2(delimiter: u8, quote: Option<u8>, avx2: bool) -> Self {
            Vectors {
                quote: quote.map(|q| _mm_set1_epi8(q as i8)),
                delimiter: _mm_set1_epi8(delimiter as i8),
                lf: _mm_set1_epi8(b'\n' as i8),
                cr: _mm_set1_epi8(b'\r' as i8),
                bytes: (delimiter, quote),
                avx2,
                fused: false,
            }
        }

        #[inline(always)]
        pub(super) fn classify(&self, chunk: &[u8; 64]) -> Classes {
            if self.avx2 {
                // SAFETY: `avx2` is set only when the CPU has AVX2
                // (checked in `new`).
                unsafe { self.classify_avx2(chunk) }
            } else {
                // SAFETY: as in `new`, SSE2 is always there on x86-64.
                unsafe { self.classify_sse2(chunk) }
            }
        }

        #[inline]
        #[target_feature(enable = "avx2")]
        pub(crate) fn classify_avx2(&self, chunk: &[u8; 64]) -> Classes {
            let halves: [__m256i; 2] = core::array::from_fn(|k| {
                // SAFETY: `chunk` is 64 readable bytes and `32 * k + 32 <=
                // 64` for k < 2, so the 32-byte unaligned load stays inside
                // it. Checked by `vectors_match_portable`.
                unsafe { _mm256_loadu_si256(chunk.as_ptr().add(32 * k).cast()) }
            });
            let mask = |needle: u8| {
                let needle = _mm256_set1_epi8(needle as i8);
                let bits = |k: usize| {
                    _mm256_movemask_epi8(_mm256_cmpeq_epi8(halves[k], needle)) as u32 as u64
                };
                bits(0) | bits(1) << 32
            };
            Classes {
                quote: self.bytes.1.map_or(0, mask),
                delimiter: mask(self.bytes.0),
                lf: mask(b'\n'),
                cr: mask(b'\r'),
            }
        }

        #[inline]
        #[target_feature(enable = "sse2")]
        fn classify_sse2(&self, chunk: &[u8; 64]) -> Classes {
            let lanes: [__m128i; 4] = core::array::from_fn(|k| {
                // SAFETY: `chunk` is 64 readable bytes and `16 * k + 16 <=
                // 64` for k < 4, so the 16-byte unaligned load stays inside
                // it. Checked by the `vectors_match_portable` test, which
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
        fn vectors_match_portable(
            bytes in bytes(),
            delimiter in any::<u8>(),
            quote in proptest::option::of(any::<u8>()),
        ) {
            let chunk: &[u8; 64] = bytes[..].try_into().unwrap();
            let needles = Needles::new(delimiter, quote);
            let want = portable(chunk, delimiter, quote);
            prop_assert_eq!(needles.classify(chunk), want);
            #[cfg(target_arch = "x86_64")]
            {
                let sse2 = Needles { vectors: needles.vectors.without_avx2(), ..needles };
                prop_assert_eq!(sse2.classify(chunk), want);
            }
            // Each byte, the last one included, lands on its own bit.
            let last = chunk[63];
            prop_assert_eq!(Needles::new(last, None).classify(chunk).delimiter >> 63, 1);
        }
    }
}
