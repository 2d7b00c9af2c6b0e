//! The open indexes, and swapping in rebuilt ones with no failed request.
//!
//! Each hash kind's index sits behind an [`ArcSwapOption`]: a request
//! takes a reference with one atomic load and keeps the index it got until
//! its response is built; a reload opens and checks every new file first,
//! then stores each with one atomic swap. A request therefore sees the old
//! index or the new one, whole. The old map is unmapped when the last
//! request holding it ends.
//!
//! Replacing an index must be a rename of a complete file over the path
//! (which `spool pwned build` does): the reload opens the path anew, while
//! requests in flight keep reading the old file through their map. Writing
//! into the served file instead changes pages under those maps, and
//! truncating it makes reading them raise SIGBUS, which ends the process.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use arc_swap::ArcSwapOption;
use axum::http::HeaderValue;
use spool_pwned::{AnyIndex, HashKind, IndexError};

use crate::query::kind_name;

/// Why an index could not be (re)loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file is missing, unreadable or not a valid index.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The file holds the other kind of hash.
    #[error("{path}: holds {found} hashes, but it was given as the {expected} index")]
    WrongKind {
        /// The index path.
        path: String,
        /// The kind it was given as.
        expected: &'static str,
        /// The kind it holds.
        found: &'static str,
    },
}

/// An open index with what responses say about it.
pub struct Loaded {
    index: AnyIndex,
    last_modified: HeaderValue,
    built: SystemTime,
}

impl Loaded {
    /// Opens the index at `path`, which must hold `kind` hashes; checks its
    /// checksums first if `verify`.
    ///
    /// # Errors
    ///
    /// A [`LoadError`] naming the file.
    pub fn open(path: &Path, kind: HashKind, verify: bool) -> Result<Loaded, LoadError> {
        let index = AnyIndex::open(path)?;
        if index.kind() != kind {
            return Err(LoadError::WrongKind {
                path: path.display().to_string(),
                expected: kind_name(kind),
                found: kind_name(index.kind()),
            });
        }
        if verify {
            index.verify()?;
        }
        // The build date: the index is written under a temporary name and
        // renamed into place when complete, so its modification time is
        // when the build finished.
        let built = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        Ok(Loaded {
            last_modified: HeaderValue::from_str(&httpdate::fmt_http_date(built)).expect("ASCII"),
            built,
            index,
        })
    }

    /// The index (of any layout: full, t64 or filter).
    pub fn index(&self) -> &AnyIndex {
        &self.index
    }

    /// The build date as an HTTP date, for `Last-Modified`.
    pub fn last_modified(&self) -> &HeaderValue {
        &self.last_modified
    }

    /// When the index was built (its file's modification time).
    pub fn built(&self) -> SystemTime {
        self.built
    }
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("path", &self.index.path())
            .field("records", &self.index.header().records)
            .field("built", &self.built)
            .finish()
    }
}

/// The indexes a server serves, one slot per hash kind, swappable.
pub struct Indexes {
    sha1: Slot,
    ntlm: Slot,
    verify: bool,
    reloading: Mutex<()>,
}

struct Slot {
    path: Option<PathBuf>,
    current: ArcSwapOption<Loaded>,
}

impl Indexes {
    /// Opens the given indexes.
    ///
    /// # Errors
    ///
    /// The first [`LoadError`].
    pub(crate) fn open(
        sha1: Option<PathBuf>,
        ntlm: Option<PathBuf>,
        verify: bool,
    ) -> Result<Indexes, LoadError> {
        let indexes = Indexes {
            sha1: Slot {
                path: sha1,
                current: ArcSwapOption::empty(),
            },
            ntlm: Slot {
                path: ntlm,
                current: ArcSwapOption::empty(),
            },
            verify,
            reloading: Mutex::new(()),
        };
        indexes.reload()?;
        Ok(indexes)
    }

    fn slot(&self, kind: HashKind) -> &Slot {
        match kind {
            HashKind::Sha1 => &self.sha1,
            HashKind::Ntlm => &self.ntlm,
        }
    }

    /// The index of `kind` now, if one is served. Cheap (one atomic load
    /// in the common case); hold it only while building one response.
    pub fn get(&self, kind: HashKind) -> arc_swap::Guard<Option<Arc<Loaded>>> {
        self.slot(kind).current.load()
    }

    /// The path an index of `kind` is served from, if any.
    pub fn path(&self, kind: HashKind) -> Option<&Path> {
        self.slot(kind).path.as_deref()
    }

    /// Opens every served path anew and, once all opened, swaps them in;
    /// on error nothing changes. Returns the indexes now served. Reloads
    /// run one at a time. (Reached through [`Handle::reload`], which also
    /// updates the metrics.)
    ///
    /// [`Handle::reload`]: crate::Handle::reload
    ///
    /// # Errors
    ///
    /// The first [`LoadError`]; the indexes served stay as they were.
    pub(crate) fn reload(&self) -> Result<Vec<(HashKind, Arc<Loaded>)>, LoadError> {
        let _one_at_a_time = self.reloading.lock().unwrap_or_else(|e| e.into_inner());
        let mut opened = Vec::new();
        for kind in [HashKind::Sha1, HashKind::Ntlm] {
            if let Some(path) = self.path(kind) {
                opened.push((kind, Arc::new(Loaded::open(path, kind, self.verify)?)));
            }
        }
        for (kind, loaded) in &opened {
            self.slot(*kind).current.store(Some(Arc::clone(loaded)));
        }
        Ok(opened)
    }
}
