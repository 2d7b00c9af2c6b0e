//! `spool partition clean`: removes what dead appending runs left in a
//! dataset, and nothing of a live run's.
//!
//! A run with `--append` stages in `OUT/_staging-ID/`, holding
//! `OUT/_staging-ID.lock` for its whole life, and moves its files into
//! place before its manifest. A run that was killed leaves its staging
//! directory (with the list of files it was moving), its lock file, and
//! perhaps some files already moved but no manifest. Its lock is free —
//! the kernel released it with the process — which is what tells it from
//! a live run: [`clean`] takes each run's lock in turn, without waiting,
//! and skips every run whose lock is held.

use std::path::{Path, PathBuf};

use crate::append_run::{AppendRun, STAGING_PREFIX};
use crate::file_layout::manifest_name;
use crate::PartitionError;
use spool_io::input::with_path;

/// What [`clean`] did.
#[derive(Clone, Debug, Default)]
pub struct Cleaned {
    /// Files, staging directories and lock files removed.
    pub removed: Vec<PathBuf>,
    /// Run ids whose files were removed (runs that died before their
    /// manifest).
    pub dead: Vec<String>,
    /// Run ids skipped because they are still writing.
    pub live: Vec<String>,
}

/// Removes, for every run in `out` that is dead (its lock free), its
/// staging directory, its lock file and — if it has no manifest — every
/// file it had moved into the dataset. Live runs are left alone.
///
/// # Errors
///
/// `out` cannot be read, or a file cannot be removed (naming it).
///
/// # Examples
///
/// ```
/// use spool_partition::clean::clean;
/// let out = std::env::temp_dir().join(format!("spool-io-doc-clean-{}", std::process::id()));
/// // What a run killed while moving its files leaves: its staging
/// // directory with the list of moves, and a file already moved.
/// std::fs::create_dir_all(out.join("_staging-r1/c=k"))?;
/// let moves = [&b"c=k/part-r1-00000.tsv"[..]];
/// let list = spool_io::journal::encode(*b"moves\0\0\0", moves);
/// std::fs::write(out.join("_staging-r1/_moves.journal"), list)?;
/// std::fs::create_dir_all(out.join("c=k"))?;
/// std::fs::write(out.join("c=k/part-r1-00000.tsv"), "a\n")?;
/// let cleaned = clean(&out)?;
/// assert_eq!(cleaned.dead, ["r1"]);
/// assert!(!out.join("c=k/part-r1-00000.tsv").exists());
/// assert!(!out.join("_staging-r1").exists());
/// # std::fs::remove_dir_all(&out)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn clean(out: &Path) -> Result<Cleaned, PartitionError> {
    let mut ids: Vec<String> = std::fs::read_dir(out)
        .map_err(|e| with_path(e, out))?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let id = name.strip_prefix(STAGING_PREFIX)?;
            Some(id.strip_suffix(".lock").unwrap_or(id).to_owned())
        })
        .filter(|id| crate::append_run::check_run_id(id).is_ok())
        .collect();
    ids.sort();
    ids.dedup();
    let mut cleaned = Cleaned::default();
    for id in ids {
        let manifest = manifest_name(Some(&id));
        match AppendRun::clean_dead(out, &id, &manifest)? {
            None => cleaned.live.push(id),
            Some(removed) => {
                if !out.join(&manifest).exists() && !removed.is_empty() {
                    cleaned.dead.push(id);
                }
                cleaned.removed.extend(removed);
            }
        }
    }
    Ok(cleaned)
}
