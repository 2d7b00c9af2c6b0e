//! Range ETags and `If-None-Match`: a mirror or a cache refetches only the
//! ranges that changed.
//!
//! # The ETag of a range
//!
//! ```text
//! ETag: "0123456789abcdef"      <- 16 lower-case hex digits:
//!                                  XXH3-64 (seed 0) of the unpadded body
//! ```
//!
//! It is a strong validator of the range's **unpadded** representation:
//! the response body exactly as [`range::encode`](crate::range::encode)
//! writes it for that prefix and hash kind. So it depends on nothing but
//! the range's lines — not on the index file, its layout version, its
//! build date or any other range — and an unchanged range keeps its ETag
//! across rebuilds, as the official API's ranges do, while a changed line
//! changes it. Anyone holding a range's bytes (a downloaded range file, a
//! cached body) can compute its ETag without asking: `xxh3_64` of the
//! bytes, in hex. `/range/X` and `/range/X?mode=ntlm` are different
//! resources, each with its own ETag (an empty range of either has the
//! same one, which HTTP allows: ETags compare within one resource).
//!
//! 64 bits: a changed range keeps its old ETag with probability 2⁻⁶⁴, so
//! a mirror that revalidates all 2²⁰ ranges every day would, on average,
//! miss one change in about 5 × 10¹⁰ years. XXH3 hashes a 4 KB body in
//! well under a microsecond, so the ETag is computed for each response
//! rather than stored (see `docs/perf/serve.md` for the measurement).
//!
//! # Padding
//!
//! A padded response (`Add-Padding: true`) is a different representation
//! every time (random lines), so it has **no ETag**, and a padded request
//! is **never answered `304`**: a `304` would let a cache between client
//! and server hand out an unpadded copy it holds (the ETag a cache sends
//! comes from whichever variant it stored), whose size is what padding
//! hides. For the same reason padded responses say `Cache-Control:
//! no-store`: a stored padded body replayed for the prefix would make its
//! size a fingerprint of the prefix again.
//!
//! # `If-None-Match`
//!
//! Evaluated as RFC 9110 §13.1.2 says: `*` matches any current
//! representation (every range has one, empty or not); otherwise a list
//! of entity tags compared with the **weak** comparison (`W/"x"` matches
//! `"x"`). A match answers `304 Not Modified` with no body and the headers
//! a `200` would carry (ETag, Cache-Control, Vary). A malformed header
//! matches nothing: a full response is always a correct answer.

use axum::http::header::IF_NONE_MATCH;
use axum::http::{HeaderMap, HeaderValue};

/// The ETag of an unpadded range body (see the module docs).
///
/// # Examples
///
/// ```
/// let etag = spool_serve::etag::of_range(b"1E4C9B93F3F0682250B6CF8331B7EE68FD8:10");
/// assert_eq!(etag.len(), 18);
/// assert!(etag.starts_with('"') && etag.ends_with('"'));
/// // The same bytes, the same ETag; other bytes, another.
/// assert_eq!(etag, spool_serve::etag::of_range(b"1E4C9B93F3F0682250B6CF8331B7EE68FD8:10"));
/// assert_ne!(etag, spool_serve::etag::of_range(b"1E4C9B93F3F0682250B6CF8331B7EE68FD8:11"));
/// ```
pub fn of_range(body: &[u8]) -> String {
    String::from_utf8(quoted(body).to_vec()).expect("quoted hex digits are ASCII")
}

/// [`of_range`] as a header value, built without formatting machinery
/// (it is computed for every range response).
pub(crate) fn header_of_range(body: &[u8]) -> HeaderValue {
    HeaderValue::from_bytes(&quoted(body)).expect("quoted hex digits are a valid header value")
}

/// The ETag's bytes: a quote, 16 lower-case hex digits, a quote.
fn quoted(body: &[u8]) -> [u8; 18] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let hash = twox_hash::XxHash3_64::oneshot(body).to_be_bytes();
    let mut tag = [b'"'; 18];
    for (i, byte) in hash.iter().enumerate() {
        tag[1 + 2 * i] = HEX[usize::from(byte >> 4)];
        tag[2 + 2 * i] = HEX[usize::from(byte & 0x0F)];
    }
    tag
}

/// Whether the request's `If-None-Match` fields match `etag` (a quoted
/// strong tag): the client's copy is current, answer `304`.
///
/// # Examples
///
/// ```
/// use axum::http::{HeaderMap, HeaderValue, header::IF_NONE_MATCH};
/// let etag = HeaderValue::from_static("\"00112233aabbccdd\"");
/// let mut headers = HeaderMap::new();
/// headers.insert(IF_NONE_MATCH, HeaderValue::from_static("\"x\", W/\"00112233aabbccdd\""));
/// assert!(spool_serve::etag::none_match_fails(&headers, &etag));
/// headers.insert(IF_NONE_MATCH, HeaderValue::from_static("\"00112233aabbccde\""));
/// assert!(!spool_serve::etag::none_match_fails(&headers, &etag));
/// ```
pub fn none_match_fails(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let Some(opaque) = etag.as_bytes().strip_prefix(b"\"") else {
        return false;
    };
    let opaque = opaque.strip_suffix(b"\"").unwrap_or(opaque);
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .any(|field| field_matches(field.as_bytes(), opaque))
}

/// Whether one `If-None-Match` field value (`*` or a comma-separated list
/// of entity tags) matches the opaque tag `want` (without its quotes),
/// weakly. Parsing stops at the first malformed element: what was matched
/// before it counts, nothing after it.
fn field_matches(mut field: &[u8], want: &[u8]) -> bool {
    loop {
        field = field.trim_ascii_start();
        while let Some(rest) = field.strip_prefix(b",") {
            field = rest.trim_ascii_start();
        }
        if field.is_empty() {
            return false;
        }
        if let Some(rest) = field.strip_prefix(b"*") {
            // `*` is a field value of its own, not a list element.
            return rest.trim_ascii().is_empty();
        }
        let tag = field.strip_prefix(b"W/").unwrap_or(field);
        let Some(tag) = tag.strip_prefix(b"\"") else {
            return false;
        };
        let Some(end) = tag.iter().position(|&b| b == b'"') else {
            return false;
        };
        if &tag[..end] == want {
            return true;
        }
        field = &tag[end + 1..];
        let after = field.trim_ascii_start();
        if !(after.is_empty() || after.starts_with(b",")) {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(values: &[&str]) -> bool {
        let etag = HeaderValue::from_static("\"0a0b0c0d0e0f1011\"");
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(IF_NONE_MATCH, HeaderValue::from_str(v).unwrap());
        }
        none_match_fails(&headers, &etag)
    }

    #[test]
    fn if_none_match_is_a_list_compared_weakly() {
        assert!(with(&["\"0a0b0c0d0e0f1011\""]));
        assert!(with(&["W/\"0a0b0c0d0e0f1011\""]));
        assert!(with(&["\"x\", \"0a0b0c0d0e0f1011\""]));
        assert!(with(&["\"x\",W/\"0a0b0c0d0e0f1011\" , \"y\""]));
        assert!(with(&[" , ,\"0a0b0c0d0e0f1011\""]));
        // Across several fields.
        assert!(with(&["\"x\"", "\"0a0b0c0d0e0f1011\""]));
        // A comma inside a tag is part of it.
        assert!(with(&["\"a,b\", \"0a0b0c0d0e0f1011\""]));
        assert!(!with(&["\"a,\"0a0b0c0d0e0f1011\"\""]));
        assert!(!with(&["\"0a0b0c0d0e0f1012\""]));
        assert!(!with(&["0a0b0c0d0e0f1011"]));
        assert!(!with(&["w/\"0a0b0c0d0e0f1011\""]), "W/ is case-sensitive");
        assert!(!with(&["\"0a0b0c0d0e0f1011"]), "unterminated");
        assert!(!with(&["\"0A0B0C0D0E0F1011\""]), "compared byte for byte");
        assert!(!with(&[]));
        assert!(!with(&[""]));
    }

    #[test]
    fn star_matches_any_current_representation() {
        assert!(with(&["*"]));
        assert!(with(&[" * "]));
        assert!(!with(&["*, \"x\""]), "`*` is not a list element");
    }

    #[test]
    fn the_etag_is_the_xxh3_of_the_body_in_hex() {
        // XXH3-64 of the empty input, as the reference implementation
        // gives it.
        assert_eq!(of_range(b""), "\"2d06800538d394c2\"");
        assert_eq!(header_of_range(b"A:1"), of_range(b"A:1").as_str());
        let hash = twox_hash::XxHash3_64::oneshot(b"A:1");
        assert_eq!(of_range(b"A:1"), format!("\"{hash:016x}\""));
    }
}
