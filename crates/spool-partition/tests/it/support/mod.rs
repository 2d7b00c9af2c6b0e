//! Helpers shared by the partition tests.

pub mod range_server;

use std::path::{Path, PathBuf};

/// A fresh directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// `spool-partition-test-…` in the system's temporary folder.
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("spool-partition-test-")
            .tempdir();
        TempDir(dir.unwrap().keep())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `text` to `name` in `dir`; its path.
pub fn write(dir: &TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.0.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Every file under `dir`, hidden ones included (none if it is missing).
pub fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if !dir.exists() {
        return out;
    }
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// The record batches of every Parquet part under `out`, in path order,
/// each with its key (what follows `=` in its directory's name).
pub fn parquet_parts(out: &Path) -> Vec<(String, arrow_array::RecordBatch)> {
    let mut parts: Vec<PathBuf> = (all_files(out).into_iter())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    parts.sort();
    let mut batches = Vec::new();
    for part in parts {
        let dir = part.parent().unwrap().file_name().unwrap();
        let key = dir.to_string_lossy().split_once('=').unwrap().1.to_owned();
        let file = std::fs::File::open(&part).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        batches.extend(reader.map(|batch| (key.clone(), batch.unwrap())));
    }
    batches
}
