//! Temporaries named after the process that made them (`NAME.tmp-PID`,
//! `.spool-pwned-spill-PID/`), as earlier versions of the tools named
//! theirs: found again and removed once that process is gone.
//!
//! Today's temporaries need no such sweep (a hidden `.NAME.partial` is
//! taken over by the next writer, which holds the output's lock; spill
//! files have no names). But a run killed under an older version left
//! PID-named files that nothing else removes, gigabytes of them after a
//! few kills. A name whose process no longer exists is removed; one whose
//! PID is alive is kept and reported — the PID may have been reused by
//! another program, but removing a live writer's file would be worse than
//! a warning.

use std::io;
use std::path::{Path, PathBuf};

/// What became of one PID-named temporary.
#[derive(Debug)]
pub struct Leftover {
    /// The file or folder.
    pub path: PathBuf,
    /// The process its name gives.
    pub pid: u32,
    /// `Ok(true)`: removed (its process is gone); `Ok(false)`: kept (a
    /// process with that PID is alive); `Err`: removing it failed.
    pub removed: io::Result<bool>,
}

/// Whether a process with `pid` exists (a PID of ours counts as alive).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(unix)]
    {
        let Ok(raw) = i32::try_from(pid) else {
            return false;
        };
        match rustix::process::Pid::from_raw(raw) {
            // Signal 0 checks existence; EPERM means it exists as
            // another user's.
            Some(p) => !matches!(
                rustix::process::test_kill_process(p),
                Err(rustix::io::Errno::SRCH)
            ),
            None => true, // PID 0: not a process a tool ran as
        }
    }
    #[cfg(not(unix))]
    true
}

/// Removes the entries of `dir` whose name `pid_of` reads a PID from and
/// whose process is gone (files and folders alike), and reports each
/// such entry. A missing or unreadable `dir` has none.
///
/// # Examples
///
/// ```
/// use spool_io::write::remove_dead_pid_temporaries;
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-stale-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// // PID 4194304 is above Linux's largest: no such process.
/// std::fs::write(dir.join("index.tmp-4194304"), "old")?;
/// std::fs::write(dir.join(format!("index.tmp-{}", std::process::id())), "ours")?;
/// let found = remove_dead_pid_temporaries(&dir, |name| {
///     name.strip_prefix("index.tmp-")?.parse().ok()
/// });
/// assert_eq!(found.len(), 2);
/// assert!(!dir.join("index.tmp-4194304").exists());
/// assert!(dir.join(format!("index.tmp-{}", std::process::id())).exists());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn remove_dead_pid_temporaries(
    dir: &Path,
    pid_of: impl Fn(&str) -> Option<u32>,
) -> Vec<Leftover> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(&pid_of) else {
            continue;
        };
        let path = entry.path();
        let removed = if alive(pid) {
            Ok(false)
        } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(&path).map(|()| true)
        } else {
            std::fs::remove_file(&path).map(|()| true)
        };
        found.push(Leftover { path, pid, removed });
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn dead_folders_go_live_and_unmatched_names_stay() {
        let dir = std::env::temp_dir().join(format!("spool-stale-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A child that has exited and been reaped: its PID is dead (until
        // reused, which a test this short does not wait for).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let dead_dir = dir.join(format!(".spool-pwned-spill-{dead}"));
        std::fs::create_dir_all(dead_dir.join("inner")).unwrap();
        std::fs::write(dead_dir.join("inner").join("spill"), "x").unwrap();
        // PID 1 is alive (and not ours): kept.
        let live = dir.join(".spool-pwned-spill-1");
        std::fs::create_dir(&live).unwrap();
        let other = dir.join(".spool-pwned-spill-x");
        std::fs::create_dir(&other).unwrap();
        let found = remove_dead_pid_temporaries(&dir, |n| {
            n.strip_prefix(".spool-pwned-spill-")?.parse().ok()
        });
        let outcomes: Vec<(u32, bool)> = found
            .iter()
            .map(|l| (l.pid, *l.removed.as_ref().unwrap()))
            .collect();
        assert!(outcomes.contains(&(dead, true)), "{found:?}");
        assert!(outcomes.contains(&(1, false)), "{found:?}");
        assert_eq!(found.len(), 2);
        assert!(!dead_dir.exists() && live.exists() && other.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
