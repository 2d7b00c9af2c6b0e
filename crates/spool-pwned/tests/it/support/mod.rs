//! Helpers shared by the index tests.

use std::path::{Path, PathBuf};

use spool_pwned::build::{build, BuildError, BuildOptions, BuildReport, Source};

/// A scratch directory, removed when dropped.
pub struct Dir(pub PathBuf);

impl Dir {
    /// A new empty folder, its name starting with `spool-pwned-test-TAG-`.
    pub fn new(tag: &str) -> Self {
        let prefix = format!("spool-pwned-test-{tag}-");
        Dir(tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir()
            .unwrap()
            .keep())
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `text` as one input named `input.txt`.
pub fn text_source(text: &str) -> Source {
    Source::from_reader("input.txt", std::io::Cursor::new(text.as_bytes().to_vec()))
}

/// Builds the index at `out` from `text`, with `memory` and `skip` as
/// `--memory` and `--skip-invalid`.
pub fn build_text(
    text: &str,
    out: &Path,
    memory: usize,
    skip: bool,
) -> Result<BuildReport, BuildError> {
    let opts = BuildOptions {
        memory,
        skip_invalid: skip,
        ..BuildOptions::default()
    };
    build(vec![text_source(text)], out, &opts)
}

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
