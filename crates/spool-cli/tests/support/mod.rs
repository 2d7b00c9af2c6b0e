//! Helpers shared by the CLI tests.

use std::path::PathBuf;

/// A fresh temporary folder for one test, removed on drop.
pub struct Dir(pub PathBuf);

impl Dir {
    /// `spool-cli-TAG-PID` in the system's temporary folder, emptied.
    pub fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("spool-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
