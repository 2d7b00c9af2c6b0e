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
