//! Length-delimited frames: a fixed-width length header, then the body.

use bytes::Bytes;

use super::Decoder;
use crate::buf_list::BufList;

/// A length-delimited frame's header announced a body over the decoder's
/// limit (or one not representable).
///
/// # Examples
///
/// ```
/// use spool::buf_list::BufList;
/// use spool::codec::{Decoder, FrameTooLarge, LengthDelimited};
///
/// let mut decoder = LengthDelimited::with_header_len(1).max_frame_length(10);
/// let err = decoder.decode(&mut BufList::from(&b"\xff"[..])).unwrap_err();
/// assert_eq!(err, FrameTooLarge { size: 255, limit: 10, offset: 0 });
/// assert_eq!(err.to_string(), "frame of 255 bytes at stream offset 0 exceeds the limit of 10 bytes");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("frame of {size} bytes at stream offset {offset} exceeds the limit of {limit} bytes")]
pub struct FrameTooLarge {
    /// The body length the header announced (after adjustment), saturated to
    /// `u64::MAX`; a header whose adjusted length is negative reports 0.
    pub size: u64,
    /// The configured maximum.
    pub limit: u64,
    /// Stream offset of the frame's header.
    pub offset: u64,
}

/// Decodes frames made of a `header_len`-byte unsigned length (big-endian
/// unless set otherwise) followed by that many body bytes, plus an optional
/// signed adjustment (for formats whose length counts the header, say).
///
/// The header is read with [`BufList::peek_into`] and consumed only when it is
/// complete; the body is cut with [`BufList::split_to_bytes`] (zero-copy inside one
/// chunk).
///
/// # Examples
///
/// ```
/// use spool::buf_list::BufList;
/// use spool::codec::{Decoder, LengthDelimited};
///
/// // A 4-byte little-endian length that counts itself.
/// let mut decoder = LengthDelimited::with_header_len(4)
///     .little_endian()
///     .length_adjustment(-4);
/// let mut input = BufList::from(&b"\x06\0\0\0hi"[..]);
/// assert_eq!(decoder.decode(&mut input).unwrap().unwrap(), "hi");
/// ```
#[derive(Clone, Debug)]
pub struct LengthDelimited {
    header_len: usize,
    little_endian: bool,
    adjustment: i64,
    max_frame: u64,
    /// Body length of the frame whose header was consumed, if any.
    body_len: Option<usize>,
    /// Bytes consumed so far, for error offsets.
    offset: u64,
}

impl LengthDelimited {
    /// Big-endian headers of `header_len` bytes, no adjustment, frames up to
    /// 8 MiB. (Named for its argument, so the number cannot be read as a
    /// frame size.)
    ///
    /// # Panics
    ///
    /// If `header_len` is not in `1..=8`.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::buf_list::BufList;
    /// use spool::codec::{Decoder, LengthDelimited};
    ///
    /// let mut decoder = LengthDelimited::with_header_len(2);
    /// let mut input = BufList::from(&b"\0\x03abc"[..]);
    /// assert_eq!(decoder.decode(&mut input).unwrap().unwrap(), "abc");
    /// ```
    #[must_use]
    pub fn with_header_len(header_len: usize) -> Self {
        assert!(
            (1..=8).contains(&header_len),
            "header length must be 1..=8 bytes, not {header_len}"
        );
        Self {
            header_len,
            little_endian: false,
            adjustment: 0,
            max_frame: 8 << 20,
            body_len: None,
            offset: 0,
        }
    }

    /// Reads the header as little-endian.
    #[must_use]
    pub fn little_endian(mut self) -> Self {
        self.little_endian = true;
        self
    }

    /// Adds `adjustment` to every header value to get the body length (e.g.
    /// `-4` when a 4-byte length counts itself).
    #[must_use]
    pub fn length_adjustment(mut self, adjustment: i64) -> Self {
        self.adjustment = adjustment;
        self
    }

    /// Rejects bodies longer than `max` bytes.
    #[must_use]
    pub fn max_frame_length(mut self, max: u64) -> Self {
        self.max_frame = max;
        self
    }

    fn parse_header(&self, src: &BufList) -> Option<Result<usize, FrameTooLarge>> {
        let mut header = [0u8; 8];
        if src.peek_into(&mut header[..self.header_len]) < self.header_len {
            return None;
        }
        let raw = header[..self.header_len]
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &b)| {
                if self.little_endian {
                    acc | u64::from(b) << (8 * i)
                } else {
                    acc << 8 | u64::from(b)
                }
            });
        let adjusted = i128::from(raw) + i128::from(self.adjustment);
        let size = u64::try_from(adjusted.max(0)).unwrap_or(u64::MAX);
        let fits = adjusted >= 0 && size <= self.max_frame && usize::try_from(size).is_ok();
        Some(if fits {
            Ok(size as usize)
        } else {
            Err(FrameTooLarge {
                size,
                limit: self.max_frame,
                offset: self.offset,
            })
        })
    }
}

impl Decoder for LengthDelimited {
    type Item = Bytes;
    type Error = FrameTooLarge;

    fn decode(&mut self, src: &mut BufList) -> Result<Option<Bytes>, FrameTooLarge> {
        let body_len = match self.body_len {
            Some(n) => n,
            None => match self.parse_header(src) {
                None => return Ok(None),
                Some(Err(e)) => return Err(e),
                Some(Ok(n)) => {
                    src.advance(self.header_len);
                    self.offset += self.header_len as u64;
                    self.body_len = Some(n);
                    n
                }
            },
        };
        if src.len() < body_len {
            return Ok(None);
        }
        self.body_len = None;
        self.offset += body_len as u64;
        Ok(Some(src.split_to_bytes(body_len)))
    }

    fn reset(&mut self) {
        self.body_len = None;
        self.offset = 0;
    }
}
