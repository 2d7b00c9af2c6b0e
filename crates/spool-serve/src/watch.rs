//! `--watch`: reload when an index path is replaced.
//!
//! The folder of each index is watched (a rename replaces the folder's
//! entry, not the file, so watching the file itself would keep following
//! the old one). An event that creates, renames to, or finishes writing
//! the index's name schedules a reload; events arriving within
//! [`SETTLE`] of it join the same reload, so a copy written in several
//! steps is not opened halfway. Our own opening of the file (read access)
//! is not an event that counts, or every reload would schedule the next.
//!
//! The watcher reports absolute paths, so each index path is made
//! absolute once, at start: its folder canonicalised (`pwned.idx` becomes
//! `/srv/pwned/pwned.idx`), its name kept as given (the name is what a
//! rebuild renames over, even where it is a symbolic link). A relative
//! path therefore keeps meaning the folder it named when the server
//! started. Every reload it causes says so on standard error, whether it
//! worked or not.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use spool_pwned::HashKind;

use crate::ops::reload;
use crate::{Handle, ServeError};

/// How long after the first event of a replacement the reload waits.
pub(crate) const SETTLE: Duration = Duration::from_millis(250);

/// Starts watching the served index paths; the watch lasts as long as the
/// returned watcher. Says which folders it watches unless `quiet`.
pub(crate) fn spawn(handle: Handle, quiet: bool) -> Result<RecommendedWatcher, ServeError> {
    let targets = [HashKind::Sha1, HashKind::Ntlm]
        .into_iter()
        .filter_map(|kind| handle.indexes().path(kind))
        .map(absolute)
        .collect::<Result<Vec<PathBuf>, ServeError>>()?;
    let (wake, mut woken) = tokio::sync::mpsc::channel::<()>(1);
    let watched = targets.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            if counts(&event.kind) && event.paths.iter().any(|p| is_target(p, &watched)) {
                // A reload is already due if the channel is full.
                let _ = wake.try_send(());
            }
        }
    })
    .map_err(|source| watch_error(Path::new("."), source))?;
    for target in &targets {
        let folder = folder_of(target);
        watcher
            .watch(folder, RecursiveMode::NonRecursive)
            .map_err(|source| watch_error(folder, source))?;
        if !quiet {
            eprintln!(
                "{}: watching {} for a new {}",
                crate::ops::NAME,
                folder.display(),
                target.file_name().unwrap_or_default().to_string_lossy()
            );
        }
    }
    tokio::spawn(async move {
        while woken.recv().await.is_some() {
            tokio::time::sleep(SETTLE).await;
            while woken.try_recv().is_ok() {}
            reload(&handle, "index file replaced", quiet).await;
        }
    });
    Ok(watcher)
}

/// `path` with its folder canonicalised (see the module docs).
fn absolute(path: &Path) -> Result<PathBuf, ServeError> {
    let folder = folder_of(path);
    let canonical = std::fs::canonicalize(folder).map_err(|e| watch_error(folder, e.into()))?;
    Ok(match path.file_name() {
        Some(name) => canonical.join(name),
        None => canonical,
    })
}

fn watch_error(folder: &Path, source: notify::Error) -> ServeError {
    ServeError::Watch {
        path: folder.display().to_string(),
        source,
    }
}

/// The folder holding `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Whether an event path names one of the targets: same name, same folder
/// as watched (the watcher reports paths as the folder joined with the
/// entry's name).
fn is_target(path: &Path, targets: &[PathBuf]) -> bool {
    targets
        .iter()
        .any(|t| path.file_name() == t.file_name() && path.parent() == Some(folder_of(t)))
}

/// Whether an event kind may mean new contents under the name.
fn counts(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, MetadataKind, RenameMode};

    #[test]
    fn replacements_count_and_reads_do_not() {
        assert!(counts(&EventKind::Create(CreateKind::File)));
        assert!(counts(&EventKind::Modify(ModifyKind::Name(RenameMode::To))));
        assert!(counts(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(!counts(&EventKind::Access(AccessKind::Open(
            AccessMode::Read
        ))));
        assert!(!counts(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(!counts(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Any
        ))));
        assert!(!counts(&EventKind::Remove(notify::event::RemoveKind::File)));
    }

    #[test]
    fn relative_paths_become_absolute_in_the_same_folder() {
        let here = std::env::current_dir().unwrap().canonicalize().unwrap();
        assert_eq!(
            absolute(Path::new("pwned.idx")).unwrap(),
            here.join("pwned.idx")
        );
        assert_eq!(
            absolute(Path::new("./pwned.idx")).unwrap(),
            here.join("pwned.idx")
        );
        let up = here.parent().unwrap().to_path_buf();
        assert_eq!(absolute(Path::new("../x.idx")).unwrap(), up.join("x.idx"));
        // What the watcher reports for an absolute folder now matches.
        let targets = [absolute(Path::new("pwned.idx")).unwrap()];
        assert!(is_target(&here.join("pwned.idx"), &targets));
        assert!(absolute(Path::new("/no/such/folder/x.idx")).is_err());
    }

    #[test]
    fn targets_match_by_folder_and_name() {
        let targets = [PathBuf::from("/srv/pwned.idx"), PathBuf::from("ntlm.idx")];
        assert!(is_target(Path::new("/srv/pwned.idx"), &targets));
        assert!(is_target(Path::new("./ntlm.idx"), &targets));
        assert!(!is_target(Path::new("/srv/pwned.idx.tmp"), &targets));
        assert!(!is_target(Path::new("/other/pwned.idx"), &targets));
        assert!(!is_target(Path::new("/srv/ntlm.idx"), &targets));
    }
}
