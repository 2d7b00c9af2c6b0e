//! A range's body: taken only if its end is proven, decoded as it arrives
//! if it came compressed, and bounded.
//!
//! # The end of a body
//!
//! A body cut exactly at a line boundary is a valid range body with
//! hashes missing: no check of the text can see the cut. Only the
//! transfer can, so a body is taken only when its end is proven:
//!
//! - HTTP/1.x: `Content-Length` bytes arrived (hyper fails a shorter
//!   body), or the chunked encoding's last chunk arrived (hyper fails a
//!   body without it). A body with neither is ended by the server closing
//!   the connection, which a cut looks exactly like: that attempt fails
//!   (and is retried) without reading it.
//! - HTTP/2: the stream's `END_STREAM` arrived (hyper fails a stream reset
//!   or a connection lost before it).
//!
//! A compressed body carries a second proof: gzip's trailer (CRC-32 and
//! length), brotli's last meta-block, zstd's frame end (and checksum if
//! the frame has one). A stream that stops before it fails the attempt;
//! so do bytes after it.
//!
//! # Compression
//!
//! Unless `Options::no_compression`, requests carry `Accept-Encoding:`
//! [`ACCEPT`], and a body is decoded by its `Content-Encoding` (`gzip`,
//! `br`, `zstd`; an encoding sent without being asked for is decoded too,
//! since a misconfigured upstream may send one anyway). An unknown or
//! stacked encoding fails the attempt.
//!
//! # Bounds
//!
//! The bytes received and the decoded body are each at most [`MAX_BODY`];
//! a decoder holds its format's window besides: 32 KiB for gzip, at most
//! 16 MiB for brotli (the format's largest; a range's body is smaller, and
//! the decoder sizes its window to the body when the stream says how much
//! is left), and at most [`ZSTD_WINDOW_LOG`] for zstd (a frame asking for
//! more fails).

use std::io;
use std::sync::Arc;

use bytes::Bytes;

use async_compression::tokio::bufread::{BrotliDecoder, GzipDecoder, ZstdDecoder};
use reqwest::header::{HeaderMap, CONTENT_ENCODING, CONTENT_LENGTH, TRANSFER_ENCODING};
use reqwest::{Response, Version};
use tokio::io::{AsyncBufRead, AsyncRead, AsyncReadExt as _};
use tokio_util::io::StreamReader;

use crate::client::chain;
use crate::options::DownloadProgress;

/// The largest body taken as a range, received or decoded.
pub const MAX_BODY: usize = 4 << 20;

/// What a request asks for in `Accept-Encoding`, unless compression is
/// turned off.
pub const ACCEPT: &str = "br, gzip, zstd";

/// The largest zstd window accepted, as a power of two (8 MiB).
pub const ZSTD_WINDOW_LOG: u32 = 23;

/// How a body is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coding {
    Identity,
    Gzip,
    Brotli,
    Zstd,
}

impl Coding {
    /// The body's coding by its `Content-Encoding`.
    fn of(headers: &HeaderMap) -> Result<Coding, String> {
        let Some(value) = headers.get(CONTENT_ENCODING) else {
            return Ok(Coding::Identity);
        };
        let text = value.to_str().unwrap_or("").trim().to_ascii_lowercase();
        match text.as_str() {
            "" | "identity" => Ok(Coding::Identity),
            "gzip" | "x-gzip" => Ok(Coding::Gzip),
            "br" => Ok(Coding::Brotli),
            "zstd" => Ok(Coding::Zstd),
            _ => Err(format!(
                "a body in Content-Encoding {value:?}, which spool does not decode"
            )),
        }
    }
}

/// Whether `response`'s end can be told from a cut (see the module docs).
fn framed(response: &Response) -> bool {
    if response.version() >= Version::HTTP_2 {
        return true;
    }
    let headers = response.headers();
    let chunked = headers.get_all(TRANSFER_ENCODING).iter().any(|v| {
        v.to_str()
            .is_ok_and(|v| v.to_ascii_lowercase().trim_end().ends_with("chunked"))
    });
    chunked || headers.contains_key(CONTENT_LENGTH)
}

/// Reads `response`'s body whole, decoded; counts the bytes received in
/// `progress.bytes`, the decoded ones in `progress.decoded` and a
/// compressed body in `progress.compressed`.
///
/// # Errors
///
/// Why the body was not taken, as the attempt's failure: not framed, cut,
/// over [`MAX_BODY`], an unknown encoding, a damaged or cut compressed
/// stream.
pub(crate) async fn read(
    response: Response,
    progress: &Arc<DownloadProgress>,
) -> Result<Vec<u8>, String> {
    if !framed(&response) {
        return Err(
            "a body without Content-Length or chunked encoding, whose end cannot be told \
                    from a cut connection"
                .to_string(),
        );
    }
    let coding = Coding::of(response.headers())?;
    let declared = response.content_length();
    if let Some(n) = declared.filter(|&n| n > MAX_BODY as u64) {
        return Err(format!("a body of {n} bytes"));
    }
    let received = Received {
        response,
        seen: 0,
        progress: progress.clone(),
    };
    let capacity = usize::try_from(declared.unwrap_or(64 << 10)).unwrap_or(MAX_BODY);
    let reader =
        |r: Received| StreamReader::new(Box::pin(futures_util::stream::unfold(r, Received::next)));
    let body = match coding {
        Coding::Identity => plain(received, capacity).await?,
        Coding::Gzip => decode(GzipDecoder::new(reader(received)), capacity).await?,
        Coding::Brotli => decode(BrotliDecoder::new(reader(received)), capacity).await?,
        Coding::Zstd => {
            let window = async_compression::zstd::DParameter::window_log_max(ZSTD_WINDOW_LOG);
            decode(
                ZstdDecoder::with_params(reader(received), &[window]),
                capacity,
            )
            .await?
        }
    };
    DownloadProgress::add(&progress.decoded, body.len() as u64);
    if coding != Coding::Identity {
        DownloadProgress::add(&progress.compressed, 1);
    }
    Ok(body)
}

/// The body as it arrives, counted and bounded.
struct Received {
    response: Response,
    seen: usize,
    progress: Arc<DownloadProgress>,
}

impl Received {
    /// The next chunk, for `stream::unfold`.
    async fn next(mut self) -> Option<(io::Result<Bytes>, Received)> {
        match self.response.chunk().await {
            Ok(Some(chunk)) if self.seen + chunk.len() <= MAX_BODY => {
                DownloadProgress::add(&self.progress.bytes, chunk.len() as u64);
                self.seen += chunk.len();
                Some((Ok(chunk), self))
            }
            Ok(Some(_)) => {
                let over = io::Error::other("a body over the size limit");
                Some((Err(over), self))
            }
            Ok(None) => None,
            Err(e) => Some((Err(io::Error::other(chain(&e))), self)),
        }
    }
}

/// A plain body, its chunks appended as they come (no reader between).
async fn plain(mut received: Received, capacity: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::with_capacity(capacity);
    while let Some((chunk, rest)) = received.next().await {
        body.extend_from_slice(&chunk.map_err(|e| e.to_string())?);
        received = rest;
    }
    Ok(body)
}

/// A decoder's whole output, and nothing left after its stream's end.
async fn decode<D>(mut decoder: D, capacity: usize) -> Result<Vec<u8>, String>
where
    D: AsyncRead + Unpin + Inner,
{
    let body = take(&mut decoder, capacity * 3).await?;
    let mut rest = decoder.into_received();
    let mut byte = [0u8];
    match rest.read(&mut byte).await {
        Ok(0) => Ok(body),
        Ok(_) => Err("bytes after the end of the compressed stream".to_string()),
        Err(e) => Err(format!("after the compressed stream: {e}")),
    }
}

/// Reads `reader` to its end, at most [`MAX_BODY`] bytes.
async fn take(reader: impl AsyncRead + Unpin, capacity: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::with_capacity(capacity.min(MAX_BODY));
    match reader
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body)
        .await
    {
        Ok(_) if body.len() > MAX_BODY => Err("a body over the size limit".to_string()),
        Ok(_) => Ok(body),
        Err(e) => Err(e.to_string()),
    }
}

/// A decoder's input, handed back at the end to see that nothing follows
/// the compressed stream.
trait Inner {
    type Received: AsyncBufRead + Unpin;
    fn into_received(self) -> Self::Received;
}

macro_rules! inner {
    ($($decoder:ident),*) => {$(
        impl<R: AsyncBufRead + Unpin> Inner for $decoder<R> {
            type Received = R;
            fn into_received(self) -> R {
                self.into_inner()
            }
        }
    )*};
}

inner!(GzipDecoder, BrotliDecoder, ZstdDecoder);

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(reqwest::header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn codings_by_content_encoding() {
        assert_eq!(Coding::of(&headers(&[])).unwrap(), Coding::Identity);
        for (text, coding) in [
            ("gzip", Coding::Gzip),
            ("X-GZIP", Coding::Gzip),
            ("br", Coding::Brotli),
            (" zstd ", Coding::Zstd),
            ("identity", Coding::Identity),
        ] {
            let got = Coding::of(&headers(&[(CONTENT_ENCODING, text)])).unwrap();
            assert_eq!(got, coding, "{text}");
        }
        for text in ["deflate", "gzip, br", "compress"] {
            let err = Coding::of(&headers(&[(CONTENT_ENCODING, text)])).unwrap_err();
            assert!(err.contains(text), "{err}");
        }
    }
}
