//! One remote object a run reads: where it is, the size and version seen
//! when it was listed (or looked up), and its ranged reads.
//!
//! Every ranged read is conditional on that version: `If-Match` with the
//! ETag the listing gave (S3 gives one for every object; an HTTP server
//! may), else `If-Unmodified-Since` with the time the server gave; and
//! the size the answer reports must be the size listed. An object written
//! again during the run (a new ETag) thus fails the run, which then
//! commits nothing, rather than mixing two versions' bytes. Transient
//! errors are retried by `object_store` (with backoff, up to its limits),
//! each read on its own.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use object_store::path::Path as Key;
use object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore};

use tokio::task::JoinHandle;

use super::connection::Connection;
use super::ranged_read::RANGE_BYTES;
use crate::s3::answers::describe;

/// A remote object; see the module docs.
pub(crate) struct Object {
    /// The object as the user would name it: `s3://BUCKET/KEY` or the URL.
    pub url: String,
    pub size: u64,
    reads: Arc<Reads>,
    /// The runtime the reads run on (kept out of the reads themselves:
    /// a runtime is never dropped by one of its own tasks).
    pub connection: Arc<Connection>,
    /// The first range, when it was asked for before the object was
    /// opened ([`read_first_range_early`](Self::read_first_range_early)).
    early: Mutex<Early>,
}

/// Where an object's early first range is.
enum Early {
    NotAsked,
    InFlight(JoinHandle<std::io::Result<Bytes>>),
    /// Taken by the object's reader, or never to be asked for.
    Done,
}

/// The first range of an object read early, and where it ends.
pub(crate) struct FirstRange {
    pub read: JoinHandle<std::io::Result<Bytes>>,
    pub end: u64,
}

/// What each ranged read of an object needs.
struct Reads {
    store: Arc<dyn ObjectStore>,
    key: Key,
    size: u64,
    e_tag: Option<String>,
    /// When it was last written, if the store named a time.
    modified: Option<DateTime<Utc>>,
    verbose: bool,
}

impl std::fmt::Debug for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Object")
            .field("url", &self.url)
            .field("size", &self.size)
            .field("e_tag", &self.reads.e_tag)
            .finish()
    }
}

impl Object {
    /// The object `meta` describes, read through `store`.
    pub fn new(
        url: String,
        meta: ObjectMeta,
        store: Arc<dyn ObjectStore>,
        connection: Arc<Connection>,
    ) -> Self {
        // `object_store` says the epoch when the server named no time.
        let modified = (meta.last_modified.timestamp() != 0).then_some(meta.last_modified);
        let reads = Reads {
            store,
            key: meta.location,
            size: meta.size,
            e_tag: meta.e_tag,
            modified,
            verbose: connection.verbose,
        };
        Object {
            url,
            size: meta.size,
            reads: Arc::new(reads),
            connection,
            early: Mutex::new(Early::NotAsked),
        }
    }

    /// The bytes the first range holds: the object's first
    /// [`RANGE_BYTES`], or all of a smaller object.
    pub fn first_range_bytes(&self) -> u64 {
        self.size.min(RANGE_BYTES)
    }

    /// Starts reading the first range now, before the object is opened:
    /// an input of many small objects is then not read one request at a
    /// time. At most once; nothing after the object's reader took its
    /// first range.
    pub fn read_first_range_early(&self) {
        let mut early = self.early.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(*early, Early::NotAsked) {
            let range = 0..self.first_range_bytes();
            *early = Early::InFlight(self.connection.spawn(self.fetch(range)));
        }
    }

    /// The first range, if it was read early; from now on it never is.
    pub fn take_first_range(&self) -> Option<FirstRange> {
        let mut early = self.early.lock().unwrap_or_else(|e| e.into_inner());
        match std::mem::replace(&mut *early, Early::Done) {
            Early::InFlight(read) => Some(FirstRange {
                read,
                end: self.first_range_bytes(),
            }),
            Early::NotAsked | Early::Done => None,
        }
    }

    /// The bytes `range` of the object, read on the connection's runtime
    /// (started now, awaited by the caller).
    ///
    /// # Errors
    ///
    /// The store's error, or the object changed since it was listed; the
    /// message does not name the object (the caller's message does).
    pub fn fetch(
        &self,
        range: Range<u64>,
    ) -> impl std::future::Future<Output = std::io::Result<Bytes>> + Send + 'static {
        let reads = self.reads.clone();
        async move { reads.fetch(range).await }
    }

    /// [`fetch`](Self::fetch), waited for.
    pub fn fetch_now(&self, range: Range<u64>) -> std::io::Result<Bytes> {
        self.connection.block_on(self.fetch(range))
    }
}

impl Drop for Object {
    /// Stops an early read no one will take (a run that ended first).
    fn drop(&mut self) {
        let early = self.early.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Early::InFlight(read) = early {
            read.abort();
        }
    }
}

impl Reads {
    async fn fetch(&self, range: Range<u64>) -> std::io::Result<Bytes> {
        let options = GetOptions {
            if_match: self.e_tag.clone(),
            if_unmodified_since: match self.e_tag {
                Some(_) => None,
                None => self.modified,
            },
            range: Some(GetRange::Bounded(range.clone())),
            ..GetOptions::default()
        };
        let got = (self.store.get_opts(&self.key, options).await).map_err(|e| self.error(e))?;
        let other_tag = matches!((&got.meta.e_tag, &self.e_tag), (Some(a), Some(b)) if a != b);
        if got.meta.size != self.size || other_tag {
            return Err(self.changed());
        }
        let bytes = got.bytes().await.map_err(|e| self.error(e))?;
        if bytes.len() as u64 != range.end - range.start {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "asked for bytes {}..{}, got {}",
                    range.start,
                    range.end,
                    bytes.len()
                ),
            ));
        }
        Ok(bytes)
    }

    fn changed(&self) -> std::io::Error {
        let seen = match (&self.e_tag, self.modified) {
            (Some(tag), _) => format!("its ETag was {tag} when listed"),
            (None, Some(_)) => "its modification time changed".into(),
            (None, None) => format!("its size was {} when listed", self.size),
        };
        std::io::Error::other(format!(
            "the object changed during the run ({seen}): nothing from this run was committed; run again"
        ))
    }

    fn error(&self, e: object_store::Error) -> std::io::Error {
        use object_store::Error::{NotFound, NotModified, Precondition};
        match e {
            Precondition { .. } | NotModified { .. } => self.changed(),
            NotFound { .. } => std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the object was deleted during the run: nothing from this run was committed",
            ),
            e => {
                let said = e.to_string();
                std::io::Error::other(if self.verbose { said } else { describe(&said) })
            }
        }
    }
}
