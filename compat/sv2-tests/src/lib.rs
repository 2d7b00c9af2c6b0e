//! Round trips through Stratum V2's codec — `codec_sv2` 7.x from crates.io,
//! plain and Noise — on whichever `buffer_sv2` this crate is built with:
//! spool's (`compat/sv2-tests`, through one `[patch]` line) or crates.io's
//! (`compat/sv2-tests/real`, the same sources). The codec picks its buffer
//! by feature: `with_buffer_pool` gives `buffer_sv2::BufferPool`, without it
//! `BufferFromSystemMemory`.
//!
//! Everything here is deterministic: frames come from rand's seeded
//! `StdRng` (the same version in both lock files) and the Noise handshake
//! from a seeded RNG and a fixed clock, so two builds that behave the same
//! print the same digests
//! (`src/bin/sv2-roundtrip.rs`), and scripts/test-sv2.sh compares them.

pub mod noise;
pub mod plain;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One raw Sv2 frame: a 6-byte header (extension type, message type,
/// payload length) and a payload of `len` bytes drawn from `rng`.
pub fn raw_frame(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut frame = Vec::with_capacity(6 + len);
    frame.extend(rng.gen::<u16>().to_le_bytes());
    frame.push(rng.gen());
    frame.extend(&(len as u32).to_le_bytes()[..3]);
    frame.resize(6 + len, 0);
    rng.fill(&mut frame[6..]);
    frame
}

/// `count` frames of `0..=70`-byte payloads (41 bytes on average with the
/// header: the size of a share submission).
pub fn small_frames(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let len = rng.gen_range(0..=70);
            raw_frame(&mut rng, len)
        })
        .collect()
}

/// Frames larger than codec_sv2's pool (327,680 bytes) and than one Noise
/// chunk (65,535 bytes), up to the largest payload a header can announce.
pub fn large_frames(seed: u64) -> Vec<Vec<u8>> {
    let mut rng = StdRng::seed_from_u64(seed);
    [65_535, 65_536, 327_674, 327_681, 1_000_000, (1 << 24) - 1]
        .into_iter()
        .map(|len| raw_frame(&mut rng, len))
        .collect()
}

/// FNV-1a over every frame's bytes, in order, each prefixed by its length:
/// what a run prints so that two runs can be compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest {
    /// Frames seen.
    pub frames: u64,
    /// Bytes seen (headers included).
    pub bytes: u64,
    hash: u64,
}

impl Default for Digest {
    fn default() -> Self {
        Self {
            frames: 0,
            bytes: 0,
            hash: 0xcbf2_9ce4_8422_2325,
        }
    }
}

impl Digest {
    /// Adds one frame.
    pub fn add(&mut self, bytes: &[u8]) {
        self.frames += 1;
        self.bytes += bytes.len() as u64;
        for &b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The digest of `frames`, in order.
    pub fn of<T: AsRef<[u8]>>(frames: &[T]) -> Self {
        let mut d = Self::default();
        for f in frames {
            d.add(f.as_ref());
        }
        d
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "frames={} bytes={} digest={:016x}",
            self.frames, self.bytes, self.hash
        )
    }
}

/// Which buffer_sv2 and which of its buffers this build runs on.
pub fn buffer_name() -> &'static str {
    match (cfg!(feature = "real"), cfg!(feature = "with_buffer_pool")) {
        (true, true) => "buffer_sv2 BufferPool",
        (true, false) => "buffer_sv2 BufferFromSystemMemory",
        (false, true) => "spool BufferPool",
        (false, false) => "spool BufferFromSystemMemory",
    }
}

/// Whether this build runs on crates.io's `buffer_sv2::BufferPool`, which
/// cannot run two kinds of case: a decoder dropped while its frames live
/// (its `Drop` spins until they are gone) and cloned frames (its `Slice`
/// clone copies the handle, so the pool reuses the bytes under the clone
/// and the slot's bit is left set, and `Drop` then spins forever).
pub fn on_buffer_sv2_pool() -> bool {
    cfg!(feature = "real") && cfg!(feature = "with_buffer_pool")
}
