//! Deterministic HIBP-format sample data, for the demo, tests and
//! benchmarks: the "passwords" are `sample-<seed>-<i>`, so which are present
//! (`i < lines`) and absent (`i >= lines`) is known.

use std::io::{self, Write};

use crate::{to_hex, HashKind};

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
/// five hex digits name the file; lines hold the rest), like the official
/// downloader.
///
/// # Errors
///
/// I/O errors, naming the file.
pub fn write_sample_ranges(
    dir: &std::path::Path,
    kind: HashKind,
    lines: u64,
    seed: u64,
    crlf: bool,
) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut current: Option<(String, io::BufWriter<std::fs::File>)> = None;
    for (hash, count) in sample_records(kind, lines, seed, Order::Hash) {
        let hex = to_hex(&hash);
        let (prefix, rest) = hex.split_at(5);
        if current.as_ref().map(|c| c.0.as_str()) != Some(prefix) {
            if let Some((_, mut f)) = current.take() {
                f.flush()?;
            }
            let path = dir.join(format!("{prefix}.txt"));
            let file =
                std::fs::File::create(&path).map_err(|e| spool_io::input::with_path(e, &path))?;
            current = Some((prefix.to_string(), io::BufWriter::new(file)));
        }
        let f = &mut current.as_mut().expect("just set").1;
        write!(f, "{rest}:{count}{eol}")?;
    }
    if let Some((_, mut f)) = current {
        f.flush()?;
    }
    Ok(())
}
