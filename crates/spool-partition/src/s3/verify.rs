//! The commit trusts no answer: before the manifest names a run's
//! objects, one listing of the dataset's prefix must show each of them
//! with the size the run sent and, where the store gives a multipart
//! ETag, the ETag its parts make.
//!
//! Why a 200 is not enough: a store that crashes while completing an
//! upload can answer the client's retry with success and never write the
//! object (a server that renames the upload away before writing it, then
//! finds nothing to complete after its restart). A retried completion of
//! an upload that did complete is answered 404 `NoSuchUpload` by S3 and
//! 403 by some stores. Neither answer says whether the object exists; the
//! listing does. S3's listings are strongly consistent, so an object
//! completed is listed.
//!
//! A multipart object's ETag, as S3 and the stores that follow it make
//! it, is the MD5 of its parts' MD5s followed by `-` and the part count:
//! computed here from the parts' ETags when each is an MD5, and compared
//! only with a listed ETag of that form (a store with other ETags is
//! checked by size alone).

use std::collections::HashMap;

use md5::{Digest, Md5};

use super::journal::Upload;
use super::store::{Listed, Refused};

/// An object the run completed that the listing does not show as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Missing {
    pub key: String,
    /// What the listing showed instead, and what completing it was
    /// answered if the store refused.
    pub why: String,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.key, self.why)
    }
}

/// Every upload of `uploads` whose object `listing` does not show with
/// the upload's size and ETag; `refused` holds what completing an upload
/// was answered, by key, where the store refused it.
pub(crate) fn missing(
    uploads: &[Upload],
    listing: &[Listed],
    refused: &HashMap<String, Refused>,
) -> Vec<Missing> {
    let listed: HashMap<&str, &Listed> = listing.iter().map(|o| (o.key.as_str(), o)).collect();
    let mut missing = Vec::new();
    for upload in uploads {
        let why = match listed.get(upload.key.as_str()) {
            None => "not there".to_owned(),
            Some(o) if o.size != upload.size => {
                format!("{} bytes, not the {} sent", o.size, upload.size)
            }
            Some(o) => match etag_differs(upload, o.e_tag.as_deref()) {
                Some((listed, expected)) => format!("ETag {listed}, not {expected}"),
                None => continue,
            },
        };
        let why = match refused.get(&upload.key) {
            Some(Refused(said)) => format!("{why}; completing it was answered {said}"),
            None => why,
        };
        missing.push(Missing {
            key: upload.key.clone(),
            why,
        });
    }
    missing
}

/// The listed ETag and the one `upload`'s parts make, if the listed one
/// is a multipart ETag and not that one.
fn etag_differs<'a>(upload: &Upload, listed: Option<&'a str>) -> Option<(&'a str, String)> {
    let listed = listed?;
    let bare = listed.trim_matches('"');
    let (_, count) = bare.rsplit_once('-')?;
    count.parse::<usize>().ok()?;
    let expected = multipart_etag(&upload.parts)?;
    (bare != expected).then_some((listed, expected))
}

/// The ETag of an object completed from parts with ETags `parts`: the
/// MD5 of the parts' MD5s, `-`, the part count; `None` if a part's ETag
/// is not an MD5 in hex.
///
/// ```text
/// parts "5d41402abc4b2a76b9719d911017c592", "7d793037a0760186574b0282f2f435e7"
///   → hex(md5(bytes(5d41…) ‖ bytes(7d79…))) + "-2"
/// ```
pub(crate) fn multipart_etag(parts: &[String]) -> Option<String> {
    // An upload with no part is completed with one empty part.
    const EMPTY_MD5: &str = "d41d8cd98f00b204e9800998ecf8427e";
    let empty = [EMPTY_MD5.to_owned()];
    let parts = if parts.is_empty() { &empty[..] } else { parts };
    let mut md5 = Md5::new();
    for part in parts {
        let hex = part.trim_matches('"');
        if hex.len() != 32 {
            return None;
        }
        let mut digest = [0u8; 16];
        for (byte, pair) in digest.iter_mut().zip(hex.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).ok()?;
            *byte = u8::from_str_radix(pair, 16).ok()?;
        }
        md5.update(digest);
    }
    let sum: String = md5.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("{sum}-{}", parts.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md5_hex(data: &[u8]) -> String {
        Md5::digest(data)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn upload(key: &str, parts: &[&[u8]]) -> Upload {
        Upload {
            key: key.into(),
            id: "id".into(),
            parts: parts
                .iter()
                .map(|p| format!("\"{}\"", md5_hex(p)))
                .collect(),
            size: parts.iter().map(|p| p.len() as u64).sum(),
        }
    }

    fn listed(key: &str, size: u64, e_tag: Option<String>) -> Listed {
        Listed {
            key: key.into(),
            size,
            e_tag,
        }
    }

    #[test]
    fn the_etag_of_parts_is_s3s() {
        // The ETag S3 gives an object uploaded in parts "hello" and
        // "world": md5(md5("hello") ‖ md5("world")), "-2".
        let parts = [md5_hex(b"hello"), md5_hex(b"world")];
        let mut both = Md5::new();
        both.update(Md5::digest(b"hello"));
        both.update(Md5::digest(b"world"));
        let sum: String = both.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(multipart_etag(&parts), Some(format!("{sum}-2")));
        assert_eq!(multipart_etag(&["\"not-an-md5\"".into()]), None);
        let empty = multipart_etag(&[]).unwrap();
        assert!(empty.ends_with("-1"), "{empty}");
    }

    #[test]
    fn an_object_must_be_there_whole() {
        let a = upload("d/k=a/part-00000.csv", &[b"hello", b"world"]);
        let b = upload("d/k=b/part-00000.csv", &[b"abc"]);
        let c = upload("d/k=c/part-00000.csv", &[b"xyz"]);
        let d = upload("d/k=d/part-00000.csv", &[b"uvw"]);
        let good = multipart_etag(&a.parts).map(|e| format!("\"{e}\""));
        let other = multipart_etag(&c.parts[..0]).map(|e| format!("\"{e}\""));
        let listing = [
            listed(&a.key, 10, good),
            listed(&b.key, 2, None),
            listed(&c.key, 3, other),
            // A store whose ETags are not multipart ETags: size alone.
            listed(&d.key, 3, Some("\"0123\"".into())),
            listed("d/k=z/part-00000.csv", 1, None),
        ];
        let gone = upload("d/k=e/part-00000.csv", &[b"e"]);
        let refused = HashMap::from([(
            gone.key.clone(),
            Refused("AccessDenied: Access Denied. (HTTP 403)".into()),
        )]);
        let uploads = [a, b.clone(), c.clone(), d, gone.clone()];
        let found = missing(&uploads, &listing, &refused);
        let keys: Vec<&str> = found.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, [&b.key, &c.key, &gone.key]);
        assert_eq!(found[0].why, "2 bytes, not the 3 sent");
        assert!(found[1].why.starts_with("ETag"), "{}", found[1].why);
        assert_eq!(
            found[2].to_string(),
            "d/k=e/part-00000.csv (not there; completing it was answered \
             AccessDenied: Access Denied. (HTTP 403))"
        );
    }
}
