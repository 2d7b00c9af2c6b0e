//! Helpers shared by the CLI tests.

pub mod append;
pub mod csv;
pub mod download;
pub mod parquet;
pub mod serve;
pub mod upstream;

use std::process::Command;

/// The `spool` binary, to run.
pub fn spool() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spool"))
}

use std::path::PathBuf;

/// A fresh temporary folder for one test (`spool-cli-TAG-…` in the
/// system's temporary folder, a name of its own even when two tests give
/// one tag), removed on drop.
pub struct Dir(pub PathBuf);

impl Dir {
    /// A new empty folder, its name starting with `spool-cli-TAG-`.
    pub fn new(tag: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("spool-cli-{tag}-"))
            .tempdir()
            .unwrap();
        Dir(dir.keep())
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The names in `dir`, sorted.
pub fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
