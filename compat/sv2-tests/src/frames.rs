//! The frames every round trip sends and the digest each prints: shared
//! by the builds on codec_sv2 7.x (this crate) and on codec_sv2 3.x
//! (`v2/`, which includes this file by path).

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
