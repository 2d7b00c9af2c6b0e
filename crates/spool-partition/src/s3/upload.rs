//! A run's files as S3 multipart uploads, begun and filled but not
//! completed (the commit completes them), and the completion itself; at
//! most `in_flight` requests at once, each holding at most one part.
//!
//! Every file is one upload whose parts are [`PART_BYTES`] of it (S3
//! takes parts of 5 MiB and more, but the last): a file of any size costs
//! three requests — begin, part, complete — and only the last of them
//! makes it visible.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use object_store::aws::AmazonS3;
use object_store::multipart::{MultipartStore, PartId};
use object_store::PutPayload;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::journal::Upload;
use super::store::{object_key, Store};

/// The size of every part of an upload but its last: above S3's least
/// (5 MiB), so that a part never needs merging.
pub(crate) const PART_BYTES: usize = 8 << 20;

/// Uploads each `(key, file)` as a multipart upload left pending; the
/// uploads begun, in the order of `files`, with their parts. On an error,
/// the error and every upload begun so far (for the caller to abort).
pub(crate) fn upload_all(
    store: &Store,
    files: Vec<(String, PathBuf)>,
    in_flight: usize,
) -> Result<Vec<Upload>, (std::io::Error, Vec<Upload>)> {
    let s3 = store.client();
    store.block_on(async move {
        let permits = Arc::new(Semaphore::new(in_flight.max(1)));
        let mut tasks = JoinSet::new();
        for (n, (key, file)) in files.into_iter().enumerate() {
            let permit = permits.clone().acquire_owned().await.expect("never closed");
            let s3 = s3.clone();
            tasks.spawn(async move {
                let result = upload_one(&s3, &key, file).await;
                drop(permit);
                (n, key, result)
            });
        }
        let mut begun: Vec<(usize, Upload)> = Vec::new();
        let mut first_error = None;
        while let Some(joined) = tasks.join_next().await {
            let (n, key, result) = joined.map_err(|e| (std::io::Error::other(e), Vec::new()))?;
            match result {
                Ok(upload) => begun.push((n, upload)),
                Err((e, id)) => {
                    first_error.get_or_insert(e);
                    if let Some(id) = id {
                        let parts = Vec::new();
                        begun.push((n, Upload { key, id, parts }));
                    }
                }
            }
        }
        begun.sort_by_key(|(n, _)| *n);
        let uploads = begun.into_iter().map(|(_, u)| u).collect();
        match first_error {
            Some(e) => Err((e, uploads)),
            None => Ok(uploads),
        }
    })
}

/// Begins the upload of `file` as `key` and sends its parts in order.
/// On an error, the error and the upload's id if it was begun.
async fn upload_one(
    s3: &AmazonS3,
    key: &str,
    file: PathBuf,
) -> Result<Upload, (std::io::Error, Option<String>)> {
    let path = object_key(key).map_err(|e| (e, None))?;
    let failed = |e: object_store::Error| std::io::Error::other(format!("uploading {key}: {e}"));
    let id = s3
        .create_multipart(&path)
        .await
        .map_err(|e| (failed(e), None))?;
    let mut parts = Vec::new();
    let result: std::io::Result<()> = async {
        let mut reader = std::fs::File::open(&file)?;
        let mut left = reader.metadata()?.len();
        loop {
            let len = left.min(PART_BYTES as u64) as usize;
            let mut part = vec![0; len];
            reader.read_exact(&mut part)?;
            let index = parts.len();
            let put = s3.put_part(&path, &id, index, PutPayload::from(part));
            parts.push(put.await.map_err(failed)?.content_id);
            left -= len as u64;
            if left == 0 {
                return Ok(());
            }
        }
    }
    .await;
    match result {
        Ok(()) => Ok(Upload {
            key: key.to_owned(),
            id,
            parts,
        }),
        Err(e) => Err((e, Some(id))),
    }
}

/// Completes every upload; `Ok` once each is complete (or, for an
/// upload S3 no longer knows, its object exists: a commit finished by
/// another process, or before a kill).
pub(crate) fn complete_all(
    store: &Store,
    uploads: &[Upload],
    in_flight: usize,
) -> std::io::Result<()> {
    let s3 = store.client();
    let uploads = uploads.to_vec();
    let unknown: Vec<String> = store.block_on(async move {
        let permits = Arc::new(Semaphore::new(in_flight.max(1)));
        let mut tasks = JoinSet::new();
        for upload in uploads {
            let permit = permits.clone().acquire_owned().await.expect("never closed");
            let s3 = s3.clone();
            tasks.spawn(async move {
                let parts = upload.parts.iter().map(|p| PartId {
                    content_id: p.clone(),
                });
                let done = Store::complete(&s3, &upload.key, &upload.id, parts.collect()).await;
                drop(permit);
                done.map(|known| (!known).then_some(upload.key))
            });
        }
        let mut unknown = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            unknown.extend(joined.map_err(std::io::Error::other)??);
        }
        Ok::<_, std::io::Error>(unknown)
    })?;
    for key in unknown {
        if !store.exists(&key)? {
            return Err(std::io::Error::other(format!(
                "the upload of {key} is gone and the object is not there: it was aborted"
            )));
        }
    }
    Ok(())
}
