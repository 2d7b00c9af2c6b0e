//! spool's decoders as `tokio_util::codec::Decoder`s, for `FramedRead`.

use std::io;

use bytes::BytesMut;

use super::Decoder;
use crate::buf_list::BufList;

/// Adapts a [`Decoder`] to `tokio_util::codec::Decoder`.
///
/// Each call moves the bytes `FramedRead` read into a [`BufList`] without
/// copying (`BytesMut::split().freeze()`), then lets the inner decoder cut
/// frames from the list, so bodies that span many reads are assembled
/// once, not re-copied on every read. Decoder errors become
/// `io::ErrorKind::InvalidData` errors wrapping the original.
///
/// # Examples
///
/// ```
/// use bytes::BytesMut;
/// use spool::codec::{FramedBufList, LengthDelimited};
/// use tokio_util::codec::Decoder as _;
///
/// let mut codec = FramedBufList::new(LengthDelimited::with_header_len(1));
/// let mut buf = BytesMut::from(&b"\x03ab"[..]);
/// assert!(codec.decode(&mut buf).unwrap().is_none());
/// buf.extend_from_slice(b"c");
/// assert_eq!(codec.decode(&mut buf).unwrap().unwrap(), "abc");
/// ```
#[derive(Debug)]
pub struct FramedBufList<D> {
    decoder: D,
    pending: BufList,
    /// The decoder consumed bytes of a frame it has not returned yet (a
    /// header it keeps in its own state, as the [`Decoder`] contract
    /// allows), so an end of input now is inside a frame even when
    /// `pending` is empty.
    partial: bool,
}

impl<D> FramedBufList<D> {
    /// Wraps `decoder`.
    pub fn new(decoder: D) -> Self {
        Self {
            decoder,
            pending: BufList::new(),
            partial: false,
        }
    }

    /// The wrapped decoder.
    pub fn decoder(&self) -> &D {
        &self.decoder
    }
}

impl<D> tokio_util::codec::Decoder for FramedBufList<D>
where
    D: Decoder,
    D::Error: std::error::Error + Send + Sync + 'static,
{
    type Item = D::Item;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> io::Result<Option<D::Item>> {
        if !src.is_empty() {
            self.pending.push_back(src.split().freeze());
        }
        let before = self.pending.len();
        let frame = self
            .decoder
            .decode(&mut self.pending)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        // A frame takes exactly its own bytes; without one, any bytes taken
        // belong to the frame still coming.
        self.partial = frame.is_none() && (self.partial || self.pending.len() < before);
        Ok(frame)
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> io::Result<Option<D::Item>> {
        match self.decode(src)? {
            Some(frame) => Ok(Some(frame)),
            None if self.pending.is_empty() && !self.partial => Ok(None),
            None => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "stream ended inside a frame ({} bytes unread)",
                    self.pending.len()
                ),
            )),
        }
    }
}
