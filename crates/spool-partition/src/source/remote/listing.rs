//! A remote input turned into its objects (see the `location` module for
//! the rules), each with the size and version the run reads it at, in
//! key order; and a remote object's format, from its first bytes and
//! name as for a local file.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::TryStreamExt;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt};

use super::super::expand::{self, Found};
use super::super::{detect, SourceFormat};
use super::connection::Connection;
use super::location::{self, Location};
use super::object::Object;
use crate::s3::answers::describe;
use crate::PartitionError;

/// Appends the objects `location` (the user's `input`) names to `found`,
/// in key order.
///
/// # Errors
///
/// No object found (a missing key, an empty prefix, a glob matching
/// none), a bucket or URL the store refuses or cannot be reached; each
/// names the user's input.
pub(crate) fn expand(
    connection: &Arc<Connection>,
    input: &Path,
    location: Location,
    found: &mut Vec<Found>,
) -> Result<(), PartitionError> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        let said = e.to_string();
        let said = if connection.verbose {
            said
        } else {
            describe(&said)
        };
        PartitionError::Io(std::io::Error::other(format!(
            "{}: {what}: {said}",
            input.display()
        )))
    };
    let (bucket, key) = match location {
        Location::Http(url) => {
            let store = connection.http(&url).map_err(|e| failed("not a URL", &e))?;
            let meta = (connection.block_on(store.head(&Key::from(""))))
                .map_err(|e| failed("cannot be read", &e))?;
            let object = Object::new(url.clone(), meta, store, connection.clone());
            found.push(Found::remote(PathBuf::from(url), None, object));
            return Ok(());
        }
        Location::S3 { bucket, key } => (bucket, key),
    };
    let store = (connection.bucket(&bucket)).map_err(|e| failed("cannot be reached", &e))?;
    let listing = location::listing(&key);
    let url = |key: &str| format!("s3://{bucket}/{key}");
    let object = |meta: object_store::ObjectMeta| {
        let url = url(meta.location.as_ref());
        Object::new(url, meta, store.clone(), connection.clone())
    };
    if let Some(single) = &listing.single {
        let key = crate::s3::store::object_key(single).map_err(PartitionError::Io)?;
        match connection.block_on(store.head(&key)) {
            Ok(meta) => {
                let object = object(meta);
                found.push(Found::remote(PathBuf::from(&object.url), None, object));
                return Ok(());
            }
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(failed("cannot be looked up", &e)),
        }
    }
    let prefix = listing.root.trim_end_matches('/');
    let prefix = match prefix {
        "" => None,
        p => Some(crate::s3::store::object_key(p).map_err(PartitionError::Io)?),
    };
    let listed: Vec<_> = (connection.block_on(store.list(prefix.as_ref()).try_collect()))
        .map_err(|e| failed("cannot be listed", &e))?;
    let matcher = match &listing.pattern {
        Some(pattern) => Some(expand::matcher(input, pattern)?),
        None => None,
    };
    let mut kept: Vec<_> = (listed.into_iter())
        .filter(|meta| {
            let key = meta.location.as_ref();
            !location::hidden(key, &listing.root)
                && matcher.as_ref().is_none_or(|m| m.is_match(key))
        })
        .collect();
    if kept.is_empty() {
        let why = match (&listing.pattern, &listing.single) {
            (Some(_), _) => "no object matches the pattern",
            (None, Some(_)) => "no such object, and no object under it",
            (None, None) => "no object under the prefix",
        };
        return Err(expand::nothing(input, why));
    }
    kept.sort_by(|a, b| a.location.as_ref().cmp(b.location.as_ref()));
    let root = PathBuf::from(url(&listing.root));
    for meta in kept {
        let object = object(meta);
        let path = PathBuf::from(&object.url);
        found.push(Found::remote(path, Some(root.clone()), object));
    }
    Ok(())
}

/// Heads looked at at once by [`detect`].
const HEADS_AT_ONCE: usize = 32;
/// The bytes of an object's start its format is found from.
const HEAD_BYTES: u64 = 4096;

/// What each of `objects` holds, by the rules of local files (the
/// `detect` module): its first bytes are read (several objects' at once)
/// unless its name says Parquet. An object whose bytes cannot be read is
/// left to its name, and to the run to report where it reads it.
pub(crate) fn detect(objects: &[&Arc<Object>]) -> Vec<SourceFormat> {
    let mut formats = Vec::with_capacity(objects.len());
    for some in objects.chunks(HEADS_AT_ONCE) {
        let heads: Vec<_> = (some.iter())
            .map(|object| {
                let named = detect::from_head_and_name(b"", Path::new(&object.url));
                let range = 0..object.size.min(HEAD_BYTES);
                let read = named != SourceFormat::Parquet && !range.is_empty();
                read.then(|| object.connection.spawn(object.fetch(range)))
            })
            .collect();
        for (object, head) in some.iter().zip(heads) {
            let head = head.map(|head| object.connection.block_on(head));
            let head = head.and_then(Result::ok).and_then(Result::ok);
            formats.push(format_of(object, head.unwrap_or_default()));
        }
    }
    formats
}

/// An object's format from its first bytes and its name.
fn format_of(object: &Object, head: bytes::Bytes) -> SourceFormat {
    let name = Path::new(&object.url);
    if head.starts_with(b"PAR1") {
        return SourceFormat::Parquet;
    }
    let mut text = Vec::new();
    if let Ok((plain, _)) = spool_io::input::decompress(Box::new(std::io::Cursor::new(head))) {
        let _ = plain.take(256).read_to_end(&mut text);
    }
    detect::from_head_and_name(&text, name)
}
