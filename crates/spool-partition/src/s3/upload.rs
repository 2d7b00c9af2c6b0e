//! A run's files as S3 multipart uploads, begun and filled but not
//! completed (the commit completes them), and the completion itself.
//!
//! Every file is one upload whose parts are [`PART_BYTES`] of it (S3
//! takes parts of 5 MiB and more, but the last): a file of any size costs
//! three requests — begin, part, complete — and only the last of them
//! makes it visible. Uploads are begun in batches, and each batch's ids
//! are written to the run's staging prefix ([`RunObjects::write_begun`])
//! before any part of them is sent, so that `clean` can abort them.
//!
//! A part is sent as soon as its file holds it whole: while the run reads
//! (the `parts_during_run` module) for the parts of growing files, then at the end
//! ([`send_rest`]) for every file's unsent rest. Each part in flight holds
//! a permit of a semaphore sized by the memory plan, taken before the
//! part is read; once sent, its range of the local file is punched out
//! ([`punch_out`]), so local disk holds the unsent bytes only.

use std::collections::HashMap;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::aws::AmazonS3;
use object_store::multipart::{MultipartStore, PartId};
use object_store::PutPayload;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::answers::failed;
use super::journal::{RunObjects, Upload};
use super::store::{object_key, Refused, Store};
use super::PART_BYTES;

/// Requests that begin uploads sent at once (they carry no data).
const BEGINS_AT_ONCE: usize = 16;

/// Begins one upload per key of `keys` and writes their ids to the run's
/// staging prefix as begun-segment `segment` before returning them: no
/// part may be sent before. On an error, the uploads begun (for the
/// caller to abort).
pub(crate) fn begin_all(
    store: &Store,
    run: &RunObjects<'_>,
    segment: usize,
    keys: Vec<String>,
) -> Result<Vec<Upload>, (std::io::Error, Vec<Upload>)> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let (s3, verbose) = (store.client(), store.verbose);
    let begun: Vec<Result<Upload, std::io::Error>> = store.block_on(async move {
        let permits = Arc::new(Semaphore::new(BEGINS_AT_ONCE));
        let mut tasks = JoinSet::new();
        for (n, key) in keys.into_iter().enumerate() {
            let permit = permits.clone().acquire_owned().await.expect("never closed");
            let s3 = s3.clone();
            tasks.spawn(async move {
                let begun = begin(&s3, &key, verbose).await;
                drop(permit);
                (
                    n,
                    begun.map(|id| Upload {
                        key,
                        id,
                        parts: Vec::new(),
                        size: 0,
                    }),
                )
            });
        }
        let mut begun = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            begun.push(joined.unwrap_or_else(|e| (usize::MAX, Err(std::io::Error::other(e)))));
        }
        begun.sort_by_key(|(n, _)| *n);
        begun.into_iter().map(|(_, b)| b).collect()
    });
    let mut uploads = Vec::new();
    let mut first_error = None;
    for b in begun {
        match b {
            Ok(upload) => uploads.push(upload),
            Err(e) => drop(first_error.get_or_insert(e)),
        }
    }
    if let Some(e) = first_error {
        return Err((e, uploads));
    }
    if let Err(e) = run.write_begun(store, segment, &uploads) {
        return Err((e, uploads));
    }
    Ok(uploads)
}

async fn begin(s3: &AmazonS3, key: &str, verbose: bool) -> std::io::Result<String> {
    let path = object_key(key)?;
    (s3.create_multipart(&path).await).map_err(|e| failed("uploading", key, e, verbose))
}

/// Sends, for each `(upload, file, end)`, the parts of `file` from
/// `upload.size` (the bytes sent so far, a multiple of [`PART_BYTES`]) up
/// to `end` (whole parts, and a shorter last one only where `end` is the
/// file's end), at most `permits` parts at once; each upload back with
/// what it sent, in the order given, whatever happened, and the first
/// error.
pub(crate) fn send_all(
    store: &Store,
    permits: &Arc<Semaphore>,
    work: Vec<(Upload, PathBuf, u64)>,
) -> (Vec<Upload>, Option<std::io::Error>) {
    let (s3, verbose) = (store.client(), store.verbose);
    let permits = permits.clone();
    store.block_on(async move {
        let mut tasks = JoinSet::new();
        for (n, (mut upload, file, end)) in work.into_iter().enumerate() {
            let (s3, permits) = (s3.clone(), permits.clone());
            tasks.spawn(async move {
                let sent = send_parts(&s3, &permits, &mut upload, &file, end, verbose).await;
                (n, upload, sent.err())
            });
        }
        let mut done = Vec::new();
        let mut first_error = None;
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok((n, upload, error)) => {
                    done.push((n, upload));
                    if let Some(e) = error {
                        first_error.get_or_insert(e);
                    }
                }
                Err(e) => drop(first_error.get_or_insert(std::io::Error::other(e))),
            }
        }
        done.sort_by_key(|(n, _)| *n);
        (done.into_iter().map(|(_, s)| s).collect(), first_error)
    })
}

/// Sends the parts of `file` from `upload.size` to `end` in order; see
/// [`send_all`].
async fn send_parts(
    s3: &AmazonS3,
    permits: &Semaphore,
    upload: &mut Upload,
    file: &Path,
    end: u64,
    verbose: bool,
) -> std::io::Result<()> {
    let path = object_key(&upload.key)?;
    // An empty file is one empty part.
    while upload.size < end || upload.parts.is_empty() && end == 0 {
        let len = (end - upload.size).min(PART_BYTES as u64);
        let permit = permits.acquire().await.expect("never closed");
        // Opened only while a permit is held: every file of the run has a
        // task waiting here, and a run of 100,000 keys must not hold
        // 100,000 descriptors (EMFILE); at most one per part in flight.
        let local = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(file);
        let local = local.map_err(|e| spool_io::input::with_path(e, file))?;
        let mut part = vec![0; len as usize];
        (local.read_exact_at(&mut part, upload.size))
            .map_err(|e| spool_io::input::with_path(e, file))?;
        let index = upload.parts.len();
        let put = s3.put_part(&path, &upload.id, index, PutPayload::from(part));
        let put = put.await;
        let etag = put.map_err(|e| failed("uploading", &upload.key, e, verbose))?;
        punch_out(&local, upload.size, len);
        // The file is closed before the permit goes back, so descriptors
        // never outnumber permits.
        drop(local);
        drop(permit);
        upload.parts.push(etag.content_id);
        upload.size += len;
    }
    Ok(())
}

/// Frees the bytes `offset..offset + len` of `file` on local disk
/// (`fallocate(FALLOC_FL_PUNCH_HOLE)`; they read as zeros after). Only
/// sent bytes are punched out, and nothing reads them again; a file
/// system that cannot punch keeps them until the run's end.
fn punch_out(file: &std::fs::File, offset: u64, len: u64) {
    use rustix::fs::{fallocate, FallocateFlags};
    let flags = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
    let _ = fallocate(file, flags, offset, len);
}

/// Sends the rest of each `(key, file)` — all of it, for a file whose
/// upload did not begin while the run read — its uploads begun as
/// begun-segment `segment`; every upload of `files`, in their order, with
/// its parts. An upload of `parts_during_run` whose file is not in `files` is
/// aborted. On an error, the error and every upload begun.
pub(crate) fn send_rest(
    store: &Store,
    run: &RunObjects<'_>,
    segment: usize,
    files: Vec<(String, PathBuf)>,
    mut early: HashMap<String, Upload>,
    in_flight: usize,
) -> Result<Vec<Upload>, (std::io::Error, Vec<Upload>)> {
    let fresh = (files.iter())
        .filter(|(key, _)| !early.contains_key(key))
        .map(|(key, _)| key.clone())
        .collect();
    let mut fresh: HashMap<String, Upload> = match begin_all(store, run, segment, fresh) {
        Ok(begun) => begun.into_iter().map(|u| (u.key.clone(), u)).collect(),
        Err((e, begun)) => {
            let mut uploads: Vec<Upload> = early.into_values().collect();
            uploads.extend(begun);
            return Err((e, uploads));
        }
    };
    let mut work = Vec::new();
    for (key, file) in files {
        let upload = (early.remove(&key).or_else(|| fresh.remove(&key))).expect("begun above");
        let end = std::fs::metadata(&file).map_or(0, |m| m.len());
        work.push((upload, file, end));
    }
    for (_, stray) in early.drain() {
        let _ = store.abort(&stray.key, &stray.id);
    }
    let permits = Arc::new(Semaphore::new(in_flight.max(1)));
    let (uploads, error) = send_all(store, &permits, work);
    match error {
        Some(e) => Err((e, uploads)),
        None => Ok(uploads),
    }
}

/// Completes every upload, at most `in_flight` at once; what the store
/// answered, by key, for each completion it refused (see
/// [`Store::complete`]): the listing that follows settles those.
///
/// # Errors
///
/// The first error the store may get over (it failed, or could not be
/// reached, after the client's retries): the commit is taken up again
/// later.
pub(crate) fn complete_all(
    store: &Store,
    uploads: &[Upload],
    in_flight: usize,
) -> std::io::Result<HashMap<String, Refused>> {
    let (s3, verbose) = (store.client(), store.verbose);
    let uploads = uploads.to_vec();
    store.block_on(async move {
        let permits = Arc::new(Semaphore::new(in_flight.max(1)));
        let mut tasks = JoinSet::new();
        for upload in uploads {
            let permit = permits.clone().acquire_owned().await.expect("never closed");
            let s3 = s3.clone();
            tasks.spawn(async move {
                let parts = upload.parts.iter().map(|p| PartId {
                    content_id: p.clone(),
                });
                let parts = parts.collect();
                let done = Store::complete(&s3, &upload.key, &upload.id, parts, verbose).await;
                drop(permit);
                done.map(|refused| refused.map(|r| (upload.key, r)))
            });
        }
        let mut refused = HashMap::new();
        let mut first_error = None;
        while let Some(joined) = tasks.join_next().await {
            match joined.map_err(std::io::Error::other).and_then(|done| done) {
                Ok(answer) => refused.extend(answer),
                Err(e) => drop(first_error.get_or_insert(e)),
            }
        }
        first_error.map_or(Ok(refused), Err)
    })
}
