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

mod frames;

pub use frames::{large_frames, raw_frame, small_frames, Digest};

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
