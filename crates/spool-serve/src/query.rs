//! What a request asks for, read from its path, query and headers: the
//! hash kind (`?mode=ntlm`), a full hash, JSON or text.
//! Each reader takes the raw bytes and cannot fail except with a one-line
//! reason for a 400.

use axum::http::header::ACCEPT;
use axum::http::HeaderMap;
use spool_pwned::HashKind;

/// The hash kind a query string selects: NTLM for `mode=ntlm`, SHA-1
/// otherwise — any other mode included, as the official service does.
pub(crate) fn mode(query: Option<&str>) -> HashKind {
    let ntlm = query.is_some_and(|q| {
        form_urlencoded::parse(q.as_bytes())
            .find(|(key, _)| key == "mode")
            .is_some_and(|(_, value)| value == "ntlm")
    });
    if ntlm {
        HashKind::Ntlm
    } else {
        HashKind::Sha1
    }
}

/// The name of a hash kind in messages and labels.
pub(crate) fn kind_name(kind: HashKind) -> &'static str {
    match kind {
        HashKind::Sha1 => "SHA-1",
        HashKind::Ntlm => "NTLM",
    }
}

/// Decodes a full hash of `kind` from hex digits, either case.
pub(crate) fn parse_hash(kind: HashKind, text: &[u8]) -> Result<Vec<u8>, String> {
    if text.len() != kind.hex_len() {
        let article = if kind == HashKind::Ntlm { "an" } else { "a" };
        return Err(format!(
            "{article} {} hash is {} hex digits, not {} characters",
            kind_name(kind),
            kind.hex_len(),
            text.len()
        ));
    }
    let mut hash = vec![0u8; kind.byte_len()];
    if spool_pwned::text::hex::decode(text, &mut hash).is_ok() {
        Ok(hash)
    } else {
        Err(format!("the {} hash is not hexadecimal", kind_name(kind)))
    }
}

/// Whether the client asked for JSON: `application/json` among the media
/// types of its `Accept` headers.
pub(crate) fn wants_json(headers: &HeaderMap) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let media = item.split(';').next().unwrap_or_default();
            media.trim().eq_ignore_ascii_case("application/json")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn mode_is_ntlm_only_when_it_says_so() {
        assert_eq!(mode(None), HashKind::Sha1);
        assert_eq!(mode(Some("mode=ntlm")), HashKind::Ntlm);
        assert_eq!(mode(Some("x=1&mode=ntlm")), HashKind::Ntlm);
        assert_eq!(mode(Some("mode=%6Etlm")), HashKind::Ntlm);
        assert_eq!(mode(Some("mode=NTLM")), HashKind::Sha1);
        assert_eq!(mode(Some("mode=sha1")), HashKind::Sha1);
        assert_eq!(mode(Some("mode=sha1&mode=ntlm")), HashKind::Sha1);
        assert_eq!(mode(Some("")), HashKind::Sha1);
    }

    #[test]
    fn hashes_have_their_kind_s_length_and_hex_digits() {
        let sha1 = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8";
        let hash = parse_hash(HashKind::Sha1, sha1.as_bytes()).unwrap();
        assert_eq!(spool_pwned::to_hex(&hash), sha1);
        let lower = sha1.to_ascii_lowercase();
        assert_eq!(parse_hash(HashKind::Sha1, lower.as_bytes()).unwrap(), hash);
        assert_eq!(
            parse_hash(HashKind::Sha1, &sha1.as_bytes()[..39]).unwrap_err(),
            "a SHA-1 hash is 40 hex digits, not 39 characters"
        );
        assert_eq!(
            parse_hash(HashKind::Ntlm, sha1.as_bytes()).unwrap_err(),
            "an NTLM hash is 32 hex digits, not 40 characters"
        );
        let mut bad = sha1.as_bytes().to_vec();
        bad[17] = b'g';
        assert_eq!(
            parse_hash(HashKind::Sha1, &bad).unwrap_err(),
            "the SHA-1 hash is not hexadecimal"
        );
    }

    #[test]
    fn json_is_chosen_by_media_type_only() {
        let with = |accept: &[&str]| {
            let mut headers = HeaderMap::new();
            for a in accept {
                headers.append(ACCEPT, HeaderValue::from_str(a).unwrap());
            }
            wants_json(&headers)
        };
        assert!(!with(&[]));
        assert!(with(&["application/json"]));
        assert!(with(&["text/html, Application/JSON;q=0.9"]));
        assert!(with(&["text/plain", "application/json"]));
        assert!(!with(&["application/jsonx"]));
        assert!(!with(&["*/*"]));
    }
}
