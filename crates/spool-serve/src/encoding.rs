//! Compressed range bodies: `Content-Encoding: br` or `gzip` for a client
//! that asks for it in `Accept-Encoding`.
//!
//! A range body is hex text, which compresses to about half; a mirror
//! downloading every range moves that much less. The choice follows the
//! request's `Accept-Encoding` (RFC 9110 §12.5.3): the codings with a
//! non-zero weight, the highest weight first, brotli before gzip at equal
//! weight; `identity` (no coding) otherwise. Each coding is a
//! representation of its own, so it has an ETag of its own: the range's
//! ETag with `-br` or `-gz` before the closing quote — a cache or a
//! downloader that stored a gzip copy gets `304` only for that copy, and
//! `Vary: Accept-Encoding` says the answer depends on the header.
//!
//! Padded answers (`Add-Padding: true`) are never compressed: padding is
//! there to hide how many hashes a range holds, and a compressed size
//! would tell more about that than the padded one.
//!
//! Bodies are compressed on the fly, per request, at settings chosen for
//! speed over the last few percent of size (brotli quality 5, gzip level
//! 6): an on-the-fly copy costs the server CPU that a plain answer does
//! not, which is why nothing is compressed unless asked for.

use std::io::Write;

use axum::http::{HeaderMap, HeaderValue};

/// A content coding the server can send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// Brotli (`br`).
    Brotli,
    /// gzip.
    Gzip,
}

impl Coding {
    /// The `Content-Encoding` value.
    pub fn name(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
        }
    }

    /// What the coding's ETag adds before the closing quote.
    fn etag_suffix(self) -> &'static str {
        match self {
            Coding::Brotli => "-br",
            Coding::Gzip => "-gz",
        }
    }
}

/// The coding to answer a request with `headers` in, if any (see the
/// module docs).
///
/// # Examples
///
/// ```
/// use axum::http::{HeaderMap, HeaderValue};
/// use spool_serve::encoding::{chosen, Coding};
/// let mut headers = HeaderMap::new();
/// assert_eq!(chosen(&headers), None);
/// headers.insert("accept-encoding", HeaderValue::from_static("gzip, br;q=0.5"));
/// assert_eq!(chosen(&headers), Some(Coding::Gzip));
/// headers.insert("accept-encoding", HeaderValue::from_static("gzip, br"));
/// assert_eq!(chosen(&headers), Some(Coding::Brotli));
/// headers.insert("accept-encoding", HeaderValue::from_static("*;q=0, identity"));
/// assert_eq!(chosen(&headers), None);
/// ```
pub fn chosen(headers: &HeaderMap) -> Option<Coding> {
    // (weight in thousandths, preference at equal weight, coding)
    let mut best: Option<(u16, u8, Coding)> = None;
    let mut any_weight = None;
    let mut named = Vec::new();
    for value in headers.get_all("accept-encoding") {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
            let weight = parts
                .find_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .map_or(Some(1000), weight_of);
            let Some(weight) = weight else { continue };
            match name.as_str() {
                "br" => named.push((weight, 2, Coding::Brotli)),
                "gzip" | "x-gzip" => named.push((weight, 1, Coding::Gzip)),
                "*" => any_weight = Some(weight),
                _ => {}
            }
        }
    }
    // `*` gives its weight to the codings not named.
    if let Some(weight) = any_weight {
        for (preference, coding) in [(2, Coding::Brotli), (1, Coding::Gzip)] {
            if !named.iter().any(|&(_, _, c)| c == coding) {
                named.push((weight, preference, coding));
            }
        }
    }
    for candidate in named {
        if candidate.0 > 0 && best.is_none_or(|b| (candidate.0, candidate.1) > (b.0, b.1)) {
            best = Some(candidate);
        }
    }
    best.map(|(_, _, coding)| coding)
}

/// A `q=` value in thousandths, `None` if it is not one (`0` to `1` with
/// up to three decimals).
fn weight_of(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let fraction: u16 = format!("{fraction:0<3}").parse().ok()?;
    match whole {
        "0" => Some(fraction),
        "1" if fraction == 0 => Some(1000),
        _ => None,
    }
}

/// `body` in `coding`.
pub fn compress(body: &[u8], coding: Coding) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() / 2 + 64);
    match coding {
        Coding::Brotli => {
            let mut writer = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
            writer.write_all(body).expect("writing to memory");
            drop(writer);
        }
        Coding::Gzip => {
            let mut writer = flate2::write::GzEncoder::new(&mut out, flate2::Compression::new(6));
            writer.write_all(body).expect("writing to memory");
            writer.finish().expect("writing to memory");
        }
    }
    out
}

/// The ETag of the range's copy in `coding`: `tag` (a quoted ETag) with
/// the coding's suffix before its closing quote.
pub fn etag(tag: &HeaderValue, coding: Coding) -> HeaderValue {
    let text = tag.to_str().unwrap_or_default();
    let opaque = text.strip_suffix('"').unwrap_or(text);
    HeaderValue::from_str(&format!("{opaque}{}\"", coding.etag_suffix()))
        .expect("an ETag with an ASCII suffix")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(value: &'static str) -> Option<Coding> {
        let mut headers = HeaderMap::new();
        headers.insert("accept-encoding", HeaderValue::from_static(value));
        chosen(&headers)
    }

    #[test]
    fn the_heaviest_accepted_coding_is_chosen() {
        assert_eq!(asking("br, gzip, zstd"), Some(Coding::Brotli));
        assert_eq!(asking("gzip"), Some(Coding::Gzip));
        assert_eq!(asking("x-gzip"), Some(Coding::Gzip));
        assert_eq!(asking("GZIP;Q=0.9, br;q=0.8"), Some(Coding::Gzip));
        assert_eq!(asking("br;q=0, gzip;q=0.001"), Some(Coding::Gzip));
        assert_eq!(asking("br;q=0, gzip;q=0"), None);
        assert_eq!(asking("zstd, deflate"), None);
        assert_eq!(asking("*"), Some(Coding::Brotli));
        assert_eq!(asking("br;q=0, *"), Some(Coding::Gzip));
        assert_eq!(asking("identity"), None);
        assert_eq!(asking(""), None);
        // A weight that is not one is ignored with its coding.
        assert_eq!(asking("br;q=2, gzip;q=0.5"), Some(Coding::Gzip));
        assert_eq!(asking("br;q=0.5555, gzip;q=abc"), None);
    }

    #[test]
    fn compressed_bodies_decode_to_the_body_and_etags_differ_per_coding() {
        let body: Vec<u8> = (0..2000)
            .flat_map(|i| format!("{i:035X}:{i}\r\n").into_bytes())
            .collect();
        let mut plain = Vec::new();
        let gz = compress(&body, Coding::Gzip);
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut plain).unwrap();
        assert_eq!(plain, body);
        assert!(gz.len() < body.len() / 2);
        let br = compress(&body, Coding::Brotli);
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut brotli::Decompressor::new(&br[..], 4096), &mut plain)
            .unwrap();
        assert_eq!(plain, body);
        let tag = HeaderValue::from_static("\"0123456789abcdef\"");
        assert_eq!(etag(&tag, Coding::Gzip), "\"0123456789abcdef-gz\"");
        assert_eq!(etag(&tag, Coding::Brotli), "\"0123456789abcdef-br\"");
    }
}
