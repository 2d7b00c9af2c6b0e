//! The partitioner most programs start with, for comparison: read lines
//! with `BufRead::lines`, split the key out, and keep one `BufWriter<File>`
//! per key in a `HashMap`. Memory grows with the number of keys (8 KiB of
//! buffer each) and so do open files — past the descriptor limit it fails.

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
    std::fs::create_dir_all(out)?;
    let mut writers: HashMap<String, BufWriter<File>> = HashMap::new();
    for line in BufReader::new(File::open(input)?).lines() {
        let line = line?;
        let key = line.split('\t').nth(column).unwrap_or("").to_owned();
        let writer = match writers.get_mut(&key) {
            Some(w) => w,
            None => {
                let file = File::create(out.join(format!("{key}.tsv")))?;
                writers.entry(key).or_insert(BufWriter::new(file))
            }
        };
        writer.write_all(line.as_bytes())?;
        writer.write_all(b"\n")?;
    }
    let keys = writers.len();
    for (_, mut w) in writers {
        w.flush()?;
    }
    Ok(keys)
}
