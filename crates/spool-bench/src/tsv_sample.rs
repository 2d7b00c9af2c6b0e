//! Deterministic tab-separated sample data for the partition benchmarks
//! and the demo: five fields, about 100 bytes per line, a chosen number of
//! distinct keys in column 1 (uniformly drawn).
//!
//! ```text
//! key0042<TAB>83920117<TAB>2026-03-14T09:26:53<TAB>purple<TAB>qwhxj...ztk
//! ```

use std::io::{self, Write};

pub(crate) const WORDS: [&str; 8] = [
    "red", "orange", "yellow", "green", "blue", "indigo", "violet", "purple",
];

/// SplitMix64: tiny, fast, and the same on every platform.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Appends `len` random lowercase letters.
pub(crate) fn push_letters(rng: &mut SplitMix, len: usize, out: &mut Vec<u8>) {
    let mut x = rng.next();
    for i in 0..len {
        if i % 12 == 0 {
            x = rng.next();
        }
        out.push(b'a' + (x % 26) as u8);
        x /= 26;
    }
}

/// Writes lines until at least `bytes` bytes were written; returns the
/// number of lines. The same `(bytes, keys, seed)` always gives the same
/// output.
///
/// # Errors
///
/// Write errors.
pub fn write_sample(mut out: impl Write, bytes: u64, keys: u32, seed: u64) -> io::Result<u64> {
    let mut rng = SplitMix(seed);
    let mut buf = Vec::with_capacity(1 << 20);
    let mut written = 0u64;
    let mut lines = 0u64;
    while written < bytes {
        buf.clear();
        while buf.len() < (1 << 20) - 256 && written + (buf.len() as u64) < bytes {
            let r = rng.next();
            let key = (r % u64::from(keys.max(1))) as u32;
            let id = (r >> 32) % 100_000_000;
            let t = rng.next();
            let text_len = 40 + (t % 31) as usize;
            write!(
                buf,
                "key{key:04}\t{id:08}\t2026-{:02}-{:02}T{:02}:{:02}:{:02}\t{}\t",
                1 + (t >> 8) % 12,
                1 + (t >> 12) % 28,
                (t >> 17) % 24,
                (t >> 22) % 60,
                (t >> 28) % 60,
                WORDS[((t >> 34) % 8) as usize],
            )?;
            push_letters(&mut rng, text_len, &mut buf);
            buf.push(b'\n');
            lines += 1;
        }
        out.write_all(&buf)?;
        written += buf.len() as u64;
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_five_fields_about_100_bytes() {
        let mut a = Vec::new();
        let lines = write_sample(&mut a, 1 << 20, 1000, 7).unwrap();
        let mut b = Vec::new();
        write_sample(&mut b, 1 << 20, 1000, 7).unwrap();
        assert_eq!(a, b);
        assert!(a.len() >= 1 << 20);
        let avg = a.len() as f64 / lines as f64;
        assert!((85.0..115.0).contains(&avg), "{avg}");
        assert!(a
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .all(|l| l.split(|&b| b == b'\t').count() == 5));
    }
}
