//! The bucket a run writes into, through the `object_store` crate's S3
//! client, with blocking calls for the rest of the crate (which has no
//! async code): each call runs on the store's own small runtime.
//!
//! Credentials and the endpoint are found the AWS way
//! ([`AmazonS3Builder::from_env`]: `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`,
//! `AWS_ENDPOINT_URL` for S3-compatible stores), and from the shared
//! credentials file's profile (`AWS_PROFILE`, else `default`) when the
//! environment names no key. Plain `http://` is allowed for a loopback
//! endpoint only.
//!
//! Listing the uploads still pending under a prefix (S3's
//! `ListMultipartUploads`) is not in `object_store`'s API; [`Store::pending_uploads`]
//! signs that one request with the crate's own [`AwsAuthorizer`]. What the
//! store says back is read in the `answers` module.

use std::future::Future;
use std::sync::Arc;

use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey, AwsAuthorizer};
use object_store::client::{HttpClient, HttpConnector, ReqwestConnector};
use object_store::multipart::{MultipartStore, PartId};
use object_store::path::Path as Key;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt, PutPayload};

use super::answers::{describe, elements, failed, unescape_xml};
use super::S3Url;

/// One object of a listing: its key, size and ETag (as the store gave it,
/// if it gave one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Listed {
    pub key: String,
    pub size: u64,
    pub e_tag: Option<String>,
}

/// What the store said to completing an upload, when it did not complete
/// it: an answer that settles nothing by itself (S3 answers 404
/// `NoSuchUpload` to completing an upload completed before; some stores
/// answer 403), left to a look at the object (see the `verify` module).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refused(pub String);

/// One pending multipart upload: its object's key and its id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PendingUpload {
    pub key: String,
    pub id: String,
}

/// The bucket of an `s3://` output and a runtime to call it from.
pub(crate) struct Store {
    s3: Arc<AmazonS3>,
    /// Errors carry the store's whole answer (`-v`), not one line.
    pub verbose: bool,
    runtime: tokio::runtime::Runtime,
    /// For [`pending_uploads`](Self::pending_uploads).
    endpoint: String,
    bucket: String,
    region: String,
    http: HttpClient,
}

impl Store {
    /// Connects to the bucket of `url` (nothing is sent yet); `verbose`:
    /// errors carry the store's whole answer.
    ///
    /// # Errors
    ///
    /// Credentials or an endpoint that cannot be used.
    pub fn connect(url: &S3Url, verbose: bool) -> std::io::Result<Self> {
        let (s3, options, endpoint, region) = client(&url.bucket)?;
        let http = ReqwestConnector::default()
            .connect(&options)
            .map_err(std::io::Error::other)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        Ok(Store {
            s3,
            verbose,
            runtime,
            endpoint: endpoint.trim_end_matches('/').to_owned(),
            bucket: url.bucket.clone(),
            region,
            http,
        })
    }

    /// The client, for calls made in parallel (see the `upload` module).
    pub fn client(&self) -> Arc<AmazonS3> {
        self.s3.clone()
    }

    /// Runs `future` to its end on the store's runtime.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// Writes the object `key` whole.
    pub fn put(&self, key: &str, data: Vec<u8>) -> std::io::Result<()> {
        let path = object_key(key)?;
        let put = self.s3.put(&path, PutPayload::from(data));
        self.block_on(put)
            .map_err(|e| failed("writing", key, e, self.verbose))?;
        Ok(())
    }

    /// The object `key`'s bytes, or `None` if there is none.
    pub fn get(&self, key: &str) -> std::io::Result<Option<Vec<u8>>> {
        let path = object_key(key)?;
        let got = self.block_on(async {
            match self.s3.get(&path).await {
                Ok(result) => result.bytes().await.map(Some),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        });
        let bytes = got.map_err(|e| failed("reading", key, e, self.verbose))?;
        Ok(bytes.map(|b| b.to_vec()))
    }

    /// Whether the object `key` exists.
    pub fn exists(&self, key: &str) -> std::io::Result<bool> {
        let path = object_key(key)?;
        match self.block_on(self.s3.head(&path)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(failed("looking up", key, e, self.verbose)),
        }
    }

    /// Every object under `prefix` (a key ending in `/`, or empty).
    pub fn list(&self, prefix: &str) -> std::io::Result<Vec<Listed>> {
        use futures_util::TryStreamExt;
        let path = object_key(prefix.trim_end_matches('/'))?;
        let listed = self.block_on(self.s3.list(Some(&path)).try_collect::<Vec<_>>());
        let listed = listed.map_err(|e| failed("listing", prefix, e, self.verbose))?;
        Ok(listed
            .into_iter()
            .map(|o| Listed {
                key: o.location.to_string(),
                size: o.size,
                e_tag: o.e_tag,
            })
            .collect())
    }

    /// Deletes the object `key` (nothing if there is none).
    pub fn delete(&self, key: &str) -> std::io::Result<()> {
        let path = object_key(key)?;
        match self.block_on(self.s3.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(failed("deleting", key, e, self.verbose)),
        }
    }

    /// Completes the upload `id` of `key` with `parts`. `Ok(Some(_))`: the
    /// store refused it as no longer known or not allowed (404, 403),
    /// which a commit taken up again meets for the uploads it completed
    /// before; only a look at the object settles it. An error the store
    /// may get over (it failed, or could not be reached) is `Err`.
    pub async fn complete(
        s3: &AmazonS3,
        key: &str,
        id: &str,
        parts: Vec<PartId>,
        verbose: bool,
    ) -> std::io::Result<Option<Refused>> {
        use object_store::Error::{NotFound, PermissionDenied};
        let path = object_key(key)?;
        let id = id.to_owned();
        match s3.complete_multipart(&path, &id, parts).await {
            Ok(_) => Ok(None),
            Err(e @ (NotFound { .. } | PermissionDenied { .. })) => {
                let said = e.to_string();
                Ok(Some(Refused(if verbose { said } else { describe(&said) })))
            }
            Err(e) => Err(failed("completing the upload of", key, e, verbose)),
        }
    }

    /// Aborts the upload `id` of `key` (nothing if S3 no longer knows it).
    pub fn abort(&self, key: &str, id: &str) -> std::io::Result<()> {
        let path = object_key(key)?;
        let id = id.to_owned();
        match self.block_on(self.s3.abort_multipart(&path, &id)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(failed("aborting the upload of", key, e, self.verbose)),
        }
    }

    /// Every multipart upload begun and neither completed nor aborted
    /// under `prefix` (S3's `ListMultipartUploads`, page after page).
    pub fn pending_uploads(&self, prefix: &str) -> std::io::Result<Vec<PendingUpload>> {
        let mut found = Vec::new();
        let mut marker: Option<(String, String)> = None;
        loop {
            let mut query = format!("uploads=&prefix={}", encode(prefix));
            if let Some((key, id)) = &marker {
                query += &format!(
                    "&key-marker={}&upload-id-marker={}",
                    encode(key),
                    encode(id)
                );
            }
            let url = format!("{}/{}?{}", self.endpoint, self.bucket, query);
            let body = self.block_on(self.signed_get(&url))?;
            let page = String::from_utf8_lossy(&body);
            for upload in elements(&page, "Upload") {
                let key = elements(upload, "Key").next().unwrap_or_default();
                let id = elements(upload, "UploadId").next().unwrap_or_default();
                found.push(PendingUpload {
                    key: unescape_xml(key),
                    id: unescape_xml(id),
                });
            }
            if elements(&page, "IsTruncated").next() != Some("true") {
                return Ok(found);
            }
            let next = |name| elements(&page, name).next().map(unescape_xml);
            match (next("NextKeyMarker"), next("NextUploadIdMarker")) {
                (Some(key), Some(id)) if marker.as_ref() != Some(&(key.clone(), id.clone())) => {
                    marker = Some((key, id));
                }
                _ => return Ok(found),
            }
        }
    }

    /// A GET of `url` signed with the store's credentials; its body.
    async fn signed_get(&self, url: &str) -> std::io::Result<Vec<u8>> {
        let credential = (self.s3.credentials().get_credential().await)
            .map_err(|e| failed("listing uploads in", &self.bucket, e, self.verbose))?;
        let mut request =
            object_store::client::HttpRequest::new(object_store::client::HttpRequestBody::empty());
        *request.uri_mut() = url.parse().map_err(std::io::Error::other)?;
        AwsAuthorizer::new(&credential, "s3", &self.region).authorize(&mut request, None);
        let response = (self.http.execute(request).await)
            .map_err(|e| failed("listing uploads in", &self.bucket, e, self.verbose))?;
        let status = response.status();
        let body = (response.into_body().bytes().await)
            .map_err(|e| failed("listing uploads in", &self.bucket, e, self.verbose))?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body);
            let kind = if status.as_u16() == 501 {
                std::io::ErrorKind::Unsupported
            } else {
                std::io::ErrorKind::Other
            };
            let e = failed(
                "listing uploads in",
                &self.bucket,
                format!("status code: {status}: {text}"),
                self.verbose,
            );
            return Err(std::io::Error::new(kind, e.to_string()));
        }
        Ok(body.to_vec())
    }
}

/// A client of `bucket` with the credentials and endpoint the
/// environment (or the shared credentials file) gives, as the module docs
/// say; the client's options, the endpoint and the region beside it. The
/// one place the rules live: outputs ([`Store::connect`]) and inputs (the
/// `source::remote` module) both come here.
///
/// # Errors
///
/// Credentials or an endpoint that cannot be used.
pub(crate) fn client(
    bucket: &str,
) -> std::io::Result<(Arc<AmazonS3>, ClientOptions, String, String)> {
    let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
    if std::env::var_os("AWS_ACCESS_KEY_ID").is_none() {
        if let Some((key, secret, token)) = super::profile::credentials() {
            builder = builder
                .with_access_key_id(key)
                .with_secret_access_key(secret);
            if let Some(token) = token {
                builder = builder.with_token(token);
            }
        }
    }
    let endpoint = builder
        .get_config_value(&AmazonS3ConfigKey::Endpoint)
        .unwrap_or_else(|| "https://s3.amazonaws.com".into());
    let loopback = ["http://127.", "http://localhost", "http://[::1]"];
    let allow_http = loopback.iter().any(|l| endpoint.starts_with(l));
    let options = ClientOptions::new().with_allow_http(allow_http);
    builder = builder
        .with_allow_http(allow_http)
        .with_client_options(options.clone());
    let region = builder
        .get_config_value(&AmazonS3ConfigKey::Region)
        .unwrap_or_else(|| "us-east-1".into());
    let s3 = builder.build().map_err(std::io::Error::other)?;
    Ok((Arc::new(s3), options, endpoint, region))
}

/// `key` as an object path (kept as written: spool's names are already
/// escaped for file systems).
pub(crate) fn object_key(key: &str) -> std::io::Result<Key> {
    Key::parse(key).map_err(|e| failed("naming", key, e, true))
}

/// Percent-encodes a query value the way SigV4 canonicalises it.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_list_multipart_uploads_answer() {
        let xml = "<ListMultipartUploadsResult><Upload><Key>p/a&amp;b</Key><UploadId>x1</UploadId>\
                   </Upload><Upload><Key>p/c</Key><UploadId>x2</UploadId></Upload>\
                   <IsTruncated>false</IsTruncated></ListMultipartUploadsResult>";
        let uploads: Vec<_> = elements(xml, "Upload").collect();
        assert_eq!(uploads.len(), 2);
        assert_eq!(
            unescape_xml(elements(uploads[0], "Key").next().unwrap()),
            "p/a&b"
        );
        assert_eq!(elements(uploads[1], "UploadId").next(), Some("x2"));
        assert_eq!(encode("a b/c=d"), "a%20b%2Fc%3Dd");
    }
}
