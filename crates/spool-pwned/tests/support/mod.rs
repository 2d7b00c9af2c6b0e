//! Helpers shared by the index tests.
#![allow(dead_code)] // each test binary compiles this module; not all use all of it

/// A small deterministic generator (splitmix64), so a failure replays.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// 20 random bytes: a SHA-1 hash that no sample holds.
    pub fn hash(&mut self) -> Vec<u8> {
        let mut h: Vec<u8> = (0..3).flat_map(|_| self.next().to_be_bytes()).collect();
        h.truncate(20);
        h
    }
}
