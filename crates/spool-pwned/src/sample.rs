//! Deterministic HIBP-format sample data, for the demo, tests and
//! benchmarks: the "passwords" are `sample-<seed>-<i>`, so which are present
//! (`i < lines`) and absent (`i >= lines`) is known.

use std::io::{self, Write};
use std::path::Path;

use spool_io::input::with_path;
use spool_io::write::PartialFile;

use crate::format::{to_hex, HashKind};

/// Line order of a generated file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Sorted by hash (what the official downloader writes today).
    Hash,
    /// Sorted by count, highest first (the older archives).
    Prevalence,
}

/// The `i`-th sample password for `seed`.
pub fn sample_password(seed: u64, i: u64) -> String {
    format!("sample-{seed}-{i}")
}

/// The count the sample gives password `i`.
pub fn sample_count(seed: u64, i: u64) -> u32 {
    let x = (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    1 + ((x >> 40) % 100_000) as u32 / (1 + (i % 97) as u32)
}

/// The sample's `(hash, count)` pairs in the requested order.
pub fn sample_records(kind: HashKind, lines: u64, seed: u64, order: Order) -> Vec<(Vec<u8>, u32)> {
    let mut recs: Vec<(Vec<u8>, u32)> = (0..lines)
        .map(|i| {
            (
                kind.hash_password(&sample_password(seed, i)),
                sample_count(seed, i),
            )
        })
        .collect();
    match order {
        Order::Hash => recs.sort_unstable(),
        Order::Prevalence => {
            recs.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)))
        }
    }
    recs
}

/// Writes a sample file: `HASH:COUNT` lines, LF or CRLF.
///
/// # Errors
///
/// I/O errors from `out`.
pub fn write_sample(
    out: &mut impl Write,
    kind: HashKind,
    lines: u64,
    seed: u64,
    order: Order,
    crlf: bool,
) -> io::Result<()> {
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    for (hash, count) in sample_records(kind, lines, seed, order) {
        out.write_all(to_hex(&hash).as_bytes())?;
        write!(out, ":{count}")?;
        out.write_all(eol)?;
    }
    Ok(())
}

/// Writes the sample as a directory of range files `XXXXX.txt` (the first
/// five hex digits name the file; lines hold the rest), byte for byte as the
/// official downloader saves the API's responses: upper-case `SUFFIX:COUNT`
/// lines in hash order, separated by CRLF (LF unless `crlf`), with no line
/// break after the last.
///
/// # Errors
///
/// I/O errors, naming the file.
pub fn write_sample_ranges(
    dir: &Path,
    kind: HashKind,
    lines: u64,
    seed: u64,
    crlf: bool,
) -> io::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
    let eol = if crlf { "\r\n" } else { "\n" };
    // Each file's lines (about 30 KB at full size) are gathered, then
    // written under a temporary name and renamed, like every output.
    let mut current: Option<(String, Vec<u8>)> = None;
    for (hash, count) in sample_records(kind, lines, seed, Order::Hash) {
        let hex = to_hex(&hash);
        let (prefix, rest) = hex.split_at(5);
        if current.as_ref().map(|c| c.0.as_str()) != Some(prefix) {
            if let Some((name, text)) = current.take() {
                write_range_file(dir, &name, &text)?;
            }
            current = Some((prefix.to_string(), Vec::new()));
        } else {
            let text = &mut current.as_mut().expect("set above").1;
            text.extend_from_slice(eol.as_bytes());
        }
        let text = &mut current.as_mut().expect("set above").1;
        write!(text, "{rest}:{count}")?;
    }
    if let Some((name, text)) = current {
        write_range_file(dir, &name, &text)?;
    }
    Ok(())
}

/// Writes `dir/PREFIX.txt` through a [`PartialFile`].
fn write_range_file(dir: &Path, prefix: &str, text: &[u8]) -> io::Result<()> {
    let mut file = PartialFile::create(&dir.join(format!("{prefix}.txt")))?;
    file.file()
        .write_all(text)
        .map_err(|e| with_path(e, file.temp()))?;
    file.commit()
}
