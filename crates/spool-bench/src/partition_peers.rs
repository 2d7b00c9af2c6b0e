//! The partitioner most programs start with, for comparison: read lines
//! with `BufRead::lines`, split the key out, and keep one `BufWriter<File>`
//! per key in a `HashMap` — or, for compressed output, one zstd encoder per
//! key. Memory grows with the number of keys (8 KiB of buffer each, several
//! MiB per encoder) and so do open files — past the descriptor limit it
//! fails.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;

/// Partitions `input` (tab-separated) by field `column` (from 0) into
/// `out/KEY.tsv`; returns the number of keys. Keys are used as file names
/// unchecked — this is the naive peer, not a safe tool.
///
/// # Errors
///
/// I/O errors, including too many open files.
pub fn naive_partition(input: &Path, column: usize, out: &Path) -> io::Result<usize> {
    partition_with(
        input,
        column,
        out,
        "tsv",
        |file| Ok(BufWriter::new(file)),
        |mut w| w.flush(),
    )
}

/// The same with zstd output: one streaming `zstd::Encoder` at `level` per
/// key into `out/KEY.tsv.zst`, finished at the end. Each encoder holds its
/// own window and tables (a few MiB at level 3), so memory grows with the
/// number of keys far faster than with `BufWriter`s.
///
/// # Errors
///
/// As [`naive_partition`].
pub fn naive_partition_zstd(
    input: &Path,
    column: usize,
    out: &Path,
    level: i32,
) -> io::Result<usize> {
    partition_with(
        input,
        column,
        out,
        "tsv.zst",
        |file| zstd::Encoder::new(BufWriter::new(file), level),
        |encoder| encoder.finish()?.flush(),
    )
}

/// The naive loop: `BufRead::lines`, the key split out, one writer per key
/// made by `open` and closed by `finish`.
fn partition_with<W: Write>(
    input: &Path,
    column: usize,
    out: &Path,
    extension: &str,
    open: impl Fn(File) -> io::Result<W>,
    finish: impl Fn(W) -> io::Result<()>,
) -> io::Result<usize> {
    std::fs::create_dir_all(out)?;
    let mut writers: HashMap<String, W> = HashMap::new();
    for line in BufReader::new(File::open(input)?).lines() {
        let line = line?;
        let key = line.split('\t').nth(column).unwrap_or("").to_owned();
        let writer = match writers.get_mut(&key) {
            Some(w) => w,
            None => {
                let file = File::create(out.join(format!("{key}.{extension}")))?;
                writers.entry(key).or_insert(open(file)?)
            }
        };
        writer.write_all(line.as_bytes())?;
        writer.write_all(b"\n")?;
    }
    let keys = writers.len();
    for (_, w) in writers {
        finish(w)?;
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_naive_peers_write_every_key_s_records() {
        let dir = std::env::temp_dir().join(format!("spool-naive-peers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("in.tsv");
        std::fs::write(&input, "a\t1\nb\t2\na\t3\n").unwrap();
        assert_eq!(naive_partition(&input, 0, &dir.join("plain")).unwrap(), 2);
        assert_eq!(
            naive_partition_zstd(&input, 0, &dir.join("zstd"), 3).unwrap(),
            2
        );
        let plain = std::fs::read(dir.join("plain/a.tsv")).unwrap();
        let packed = std::fs::read(dir.join("zstd/a.tsv.zst")).unwrap();
        assert_eq!(plain, b"a\t1\na\t3\n");
        assert_eq!(zstd::decode_all(&packed[..]).unwrap(), plain);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
