//! Receivers that decode Banana STRING/INT tokens from chunked input, for
//! comparison with spool's [`BufList`] + [`BananaDecoder`]:
//!
//! - [`BytesMutReceiver`]: every chunk appended to one `BytesMut`, tokens cut
//!   with `split_to` — what `tokio_util::codec` does.
//! - [`VecDequeReceiver`]: a `VecDeque<u8>`, tokens drained out.
//! - [`FlatReceiver`]: the "before" picture: all unhandled input in one flat
//!   buffer, rebuilt by concatenation on every chunk and re-copied after
//!   every token (quadratic; keep its inputs small).
//!
//! Each peer parses the same header format (base-128 digits, type byte with
//! the high bit set) from its own contiguous buffer.

use std::collections::VecDeque;

use bytes::{Bytes, BytesMut};
use spool::buf_list::BufList;
use spool::codec::banana::{BananaDecoder, Token};
use spool::codec::Decoder;

/// A decoded token, reduced to what the benchmarks check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// An INT token's value.
    Int(u64),
    /// A STRING token's length (and first byte, to touch the data).
    String(usize, u8),
}

/// Something that takes chunks and yields tokens.
pub trait Receiver {
    /// Adds one received chunk.
    fn feed(&mut self, chunk: &Bytes);
    /// The next complete token, if any.
    fn next(&mut self) -> Option<Decoded>;
}

/// Parses a header at the front of `buf`: `(header bytes incl. type, value, type)`.
fn parse_header(buf: &[u8]) -> Option<(usize, u64, u8)> {
    let window = &buf[..buf.len().min(65)];
    let pos = window.iter().position(|&b| b & 0x80 != 0)?;
    let value = window[..pos]
        .iter()
        .rev()
        .fold(0u64, |acc, &d| acc << 7 | u64::from(d));
    Some((pos + 1, value, window[pos]))
}

/// Cuts one token off a contiguous buffer view, given how to take `n` bytes.
fn token_from(buf: &[u8]) -> Option<(usize, Decoded)> {
    let (h, value, kind) = parse_header(buf)?;
    match kind {
        0x82 => {
            let len = value as usize;
            (buf.len() >= h + len)
                .then(|| (h + len, Decoded::String(len, *buf.get(h).unwrap_or(&0))))
        }
        _ => Some((h, Decoded::Int(value))),
    }
}

/// spool: chunks pushed into a [`BufList`], tokens cut by [`BananaDecoder`]
/// (with no body limit, so gigabyte strings pass).
pub struct BufListReceiver {
    list: BufList,
    decoder: BananaDecoder,
}

impl Default for BufListReceiver {
    fn default() -> Self {
        Self {
            list: BufList::new(),
            decoder: BananaDecoder::with_max_body(u64::MAX),
        }
    }
}

impl Receiver for BufListReceiver {
    fn feed(&mut self, chunk: &Bytes) {
        self.list.push_back(chunk.clone());
    }

    fn next(&mut self) -> Option<Decoded> {
        match self.decoder.decode(&mut self.list).expect("valid stream")? {
            Token::String(body) => Some(Decoded::String(body.len(), *body.first().unwrap_or(&0))),
            Token::Int(v) => Some(Decoded::Int(v)),
            other => panic!("unexpected token {other:?}"),
        }
    }
}

/// tokio-util style: one growing `BytesMut`, `split_to` per token.
#[derive(Default)]
pub struct BytesMutReceiver(BytesMut);

impl Receiver for BytesMutReceiver {
    fn feed(&mut self, chunk: &Bytes) {
        self.0.extend_from_slice(chunk);
    }

    fn next(&mut self) -> Option<Decoded> {
        let (n, token) = token_from(&self.0)?;
        let frame = self.0.split_to(n).freeze();
        std::hint::black_box(frame);
        Some(token)
    }
}

/// A `VecDeque<u8>` receiver: tokens drained into a `Vec`.
#[derive(Default)]
pub struct VecDequeReceiver(VecDeque<u8>);

impl Receiver for VecDequeReceiver {
    fn feed(&mut self, chunk: &Bytes) {
        self.0.extend(chunk.iter());
    }

    fn next(&mut self) -> Option<Decoded> {
        let head: Vec<u8> = self.0.iter().take(65).copied().collect();
        let (h, value, kind) = parse_header(&head)?;
        let n = if kind == 0x82 { h + value as usize } else { h };
        if self.0.len() < n {
            return None;
        }
        let frame: Vec<u8> = self.0.drain(..n).collect();
        token_from(&frame).map(|(_, t)| t)
    }
}

/// The quadratic "before": one flat buffer rebuilt on every chunk and
/// re-copied after every token.
#[derive(Default)]
pub struct FlatReceiver(Vec<u8>);

impl Receiver for FlatReceiver {
    fn feed(&mut self, chunk: &Bytes) {
        // `buffer = buffer + chunk`: a new buffer every time.
        let mut joined = Vec::with_capacity(self.0.len() + chunk.len());
        joined.extend_from_slice(&self.0);
        joined.extend_from_slice(chunk);
        self.0 = joined;
    }

    fn next(&mut self) -> Option<Decoded> {
        let (n, token) = token_from(&self.0)?;
        // `buffer = buffer[n:]`: the rest is copied again.
        self.0 = self.0[n..].to_vec();
        Some(token)
    }
}

/// Feeds `chunks` one by one, decoding after each; returns the tokens.
pub fn receive<R: Receiver>(r: &mut R, chunks: &[Bytes], out: &mut Vec<Decoded>) {
    out.clear();
    for c in chunks {
        r.feed(c);
        while let Some(t) = r.next() {
            out.push(t);
        }
    }
}

/// `count` Banana INT tokens with values below 2^20 (one- to three-byte
/// headers), deterministically from `seed`: the wire bytes and the tokens
/// a receiver must produce.
pub fn int_tokens(count: usize, seed: u64) -> (Vec<u8>, Vec<Decoded>) {
    let mut rng = crate::schedules::Rng(seed);
    let values: Vec<u64> = (0..count).map(|_| rng.below(1 << 20)).collect();
    let mut wire = Vec::new();
    for &v in &values {
        spool::codec::banana::encode(&Token::Int(v), &mut wire);
    }
    (wire, values.into_iter().map(Decoded::Int).collect())
}

/// Cuts `wire` into chunks of `size` bytes (each its own allocation, as
/// reads from a socket would be).
pub fn chunked(wire: &[u8], size: usize) -> Vec<Bytes> {
    wire.chunks(size.max(1))
        .map(Bytes::copy_from_slice)
        .collect()
}
