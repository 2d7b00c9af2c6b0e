//! A run's list of moves (`_moves.journal` in its staging directory):
//! what lets the next run undo an [`AppendRun`](super::AppendRun) that
//! died halfway through moving its files into the shared output.
//!
//! The list is a journal in spool-io's format (kind `moves`, one record
//! per relative path), written whole (temporary name, then rename, synced
//! first when the run syncs) before the first move, so it names every
//! file the run may have moved, and the
//! dead run's moved files are found without walking the dataset: a file
//! the list names that is no longer in the staging directory but is in
//! the output was moved. Writing and reading the list live together here,
//! so its format is one file's business; when and under which lock it is
//! read is `append_run.rs`'s.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::no_replace::remove_empty_parents;
use spool_io::input::with_path;
use spool_io::journal::{self, Kind, Replay};
use spool_io::write::PartialFile;

/// The list of files a run moves, in its staging directory.
const MOVES: &str = "_moves.journal";
/// The list's journal kind.
const KIND: Kind = *b"moves\0\0\0";

/// `_moves.journal`: one relative path a record, complete before the
/// first move (temporary name, then rename), so a dead run's moved files
/// can be found without walking the dataset.
pub(super) fn write_moves(staging: &Path, files: &[PathBuf], sync: bool) -> io::Result<()> {
    let path = staging.join(MOVES);
    let bytes = journal::encode(
        KIND,
        files.iter().map(|rel| rel.as_os_str().as_encoded_bytes()),
    );
    let mut partial = PartialFile::create(&path)?;
    partial
        .file()
        .write_all(&bytes)
        .map_err(|e| partial.error(e))?;
    if sync {
        partial.sync()?;
    }
    partial.commit()
}

/// The paths `_moves.journal` names.
///
/// # Errors
///
/// The list cannot be read, or is damaged: it was written whole before
/// the first move, so a record missing from it is not a crash's doing,
/// and a file it no longer names could not be found again.
fn read_moves(moves: &Path) -> io::Result<Vec<PathBuf>> {
    let mut replay = Replay::open(moves, KIND)?;
    let mut paths = Vec::new();
    while let Some(rel) = replay.next_record()? {
        paths.push(PathBuf::from(os_str_from_bytes(rel)));
    }
    let len = std::fs::metadata(moves)
        .map_err(|e| with_path(e, moves))?
        .len();
    if replay.valid_len() != len {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: the list of a dead run's moves is damaged after {} of its paths; \
                 compare the dataset with its manifests and remove that run's files by hand",
                moves.display(),
                paths.len()
            ),
        ));
    }
    Ok(paths)
}

/// Removes what the dead run staged in `staging` left in `target`: every
/// file its `_moves.journal` names that is in `target` but no longer in
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
    match read_moves(&moves) {
        Ok(paths) => {
            for rel in &paths {
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

/// A path read back from `_moves.journal`.
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
