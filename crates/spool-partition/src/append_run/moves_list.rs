//! A run's list of moves (`_moves.txt` in its staging directory): what
//! lets the next run undo an [`AppendRun`](super::AppendRun) that died
//! halfway through moving its files into the shared output.
//!
//! The list is written whole (temporary name, then rename) before the
//! first move, so it names every file the run may have moved, and the
//! dead run's moved files are found without walking the dataset: a file
//! the list names that is no longer in the staging directory but is in
//! the output was moved. Writing and reading the list live together here,
//! so its format is one file's business; when and under which lock it is
//! read is `append_run.rs`'s.

use std::ffi::OsStr;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use super::no_replace::remove_empty_parents;
use spool_io::input::with_path;
use spool_io::write::PartialFile;

/// The list of files a run moves, in its staging directory.
const MOVES: &str = "_moves.txt";

/// `_moves.txt`: one relative path a line, complete before the first
/// move (temporary name, then rename), so a dead run's moved files can
/// be found without walking the dataset.
pub(super) fn write_moves(staging: &Path, files: &[PathBuf], sync: bool) -> io::Result<()> {
    let path = staging.join(MOVES);
    let mut partial = PartialFile::create(&path)?;
    let mut out = io::BufWriter::new(partial.file());
    for rel in files {
        out.write_all(rel.as_os_str().as_encoded_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush().map_err(|e| with_path(e, &path))?;
    drop(out);
    if sync {
        partial.sync()?;
    }
    partial.commit()
}

/// Removes what the dead run staged in `staging` left in `target`: every
/// file its `_moves.txt` names that is in `target` but no longer in
/// `staging` (so it was moved), then `staging`. Returns what it removed.
/// The caller holds the run's lock and has checked that its manifest is
/// missing.
///
/// # Errors
///
/// The list cannot be read, or a file cannot be removed.
pub(super) fn remove_dead(target: &Path, staging: &Path) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let moves = staging.join(MOVES);
    match std::fs::File::open(&moves) {
        Ok(file) => {
            for line in io::BufReader::new(file).split(b'\n') {
                let line = line.map_err(|e| with_path(e, &moves))?;
                let rel = Path::new(os_str_from_bytes(&line));
                let (from, to) = (staging.join(rel), target.join(rel));
                if std::fs::symlink_metadata(&from).is_err()
                    && std::fs::symlink_metadata(&to).is_ok()
                {
                    std::fs::remove_file(&to).map_err(|e| with_path(e, &to))?;
                    remove_empty_parents(target, rel);
                    removed.push(to);
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {} // nothing was moved
        Err(e) => return Err(with_path(e, &moves)),
    }
    std::fs::remove_dir_all(staging).map_err(|e| with_path(e, staging))?;
    removed.push(staging.to_path_buf());
    Ok(removed)
}

/// A path read back from `_moves.txt`.
fn os_str_from_bytes(bytes: &[u8]) -> &OsStr {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        OsStr::from_bytes(bytes)
    }
    #[cfg(not(unix))]
    {
        // Written from valid UTF-8 names (escaped keys, header columns).
        OsStr::new(std::str::from_utf8(bytes).unwrap_or_default())
    }
}
