//! Frame decoders: bytes in, whole frames out, no I/O.
//!
//! Most decoders here work on top of a [`BufList`]: feed chunks in, get
//! frames out.
//! A [`Decoder`] looks at the front of a list and either cuts one complete
//! frame off it or answers `Ok(None)` (more input needed) without consuming
//! anything it would have to put back. Frame bodies are cut with
//! [`BufList::split_to_bytes`], so a body that lies inside one received chunk is
//! returned without copying, and one that spans chunks is copied exactly
//! once. Decoding an S-byte message that arrives in C-byte chunks is
//! therefore O(S), not O(S²/C).
//!
//! - [`LengthDelimited`]: a fixed-width length header (1–8 bytes, either
//!   endianness, with an adjustment and a size limit), then the body.
//! - [`banana::BananaDecoder`]: foolscap's Banana token format.
//! - With the `tokio` feature, [`FramedBufList`] adapts any decoder to
//!   `tokio_util::codec::Decoder` for use with `FramedRead`.
//!
//! # Examples
//!
//! ```
//! use bytes::Bytes;
//! use spool::buf_list::BufList;
//! use spool::codec::{Decoder, LengthDelimited};
//!
//! let mut decoder = LengthDelimited::with_header_len(2); // big-endian
//! let mut input = BufList::new();
//! input.push_back(Bytes::from_static(b"\x00\x05hel"));
//! assert_eq!(decoder.decode(&mut input).unwrap(), None); // body incomplete
//! input.push_back(Bytes::from_static(b"lo\x00\x01!"));
//! assert_eq!(decoder.decode(&mut input).unwrap().unwrap(), "hello");
//! assert_eq!(decoder.decode(&mut input).unwrap().unwrap(), "!");
//! assert_eq!(decoder.decode(&mut input).unwrap(), None);
//! ```

use crate::buf_list::BufList;

pub mod banana;
mod length_delimited;
#[cfg(feature = "tokio")]
mod tokio_adapter;

pub use length_delimited::{FrameTooLarge, LengthDelimited};
#[cfg(feature = "tokio")]
pub use tokio_adapter::FramedBufList;

/// Cuts complete frames off the front of a [`BufList`].
///
/// Contract for implementers: `decode` returns `Ok(Some(frame))` after
/// removing exactly that frame's bytes from `src`; `Ok(None)` when `src`
/// does not yet hold a complete frame, in which case it may have consumed
/// bytes only if it keeps what it learned from them in its own state (a
/// parsed header, say) so nothing is read twice; `Err` when the input can
/// never become valid. After an error the decoder's state is unspecified
/// until [`reset`](Decoder::reset).
///
/// # Examples
///
/// A decoder of one-byte frames:
///
/// ```
/// use spool::buf_list::BufList;
/// use spool::codec::Decoder;
///
/// struct Bytewise;
/// impl Decoder for Bytewise {
///     type Item = u8;
///     type Error = core::convert::Infallible;
///     fn decode(&mut self, src: &mut BufList) -> Result<Option<u8>, Self::Error> {
///         Ok((!src.is_empty()).then(|| src.split_to_bytes(1)[0]))
///     }
///     fn reset(&mut self) {}
/// }
/// let mut input = BufList::from(&b"hi"[..]);
/// assert_eq!(Bytewise.decode(&mut input), Ok(Some(b'h')));
/// ```
pub trait Decoder {
    /// A decoded frame.
    type Item;
    /// Why input was rejected.
    type Error;

    /// Cuts the next frame off `src`, if one is complete.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::buf_list::BufList;
    /// use spool::codec::{Decoder, LengthDelimited};
    ///
    /// let mut decoder = LengthDelimited::with_header_len(1);
    /// let mut input = BufList::from(&b"\x02a"[..]);
    /// assert_eq!(decoder.decode(&mut input).unwrap(), None); // "a" of 2 bytes
    /// input.push_back(&b"b"[..]);
    /// assert_eq!(decoder.decode(&mut input).unwrap().unwrap(), "ab");
    /// ```
    ///
    /// # Errors
    ///
    /// When the input violates the format; the error says what and where.
    fn decode(&mut self, src: &mut BufList) -> Result<Option<Self::Item>, Self::Error>;

    /// Forgets any partial frame, ready for a new stream.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::buf_list::BufList;
    /// use spool::codec::{Decoder, LengthDelimited};
    ///
    /// let mut decoder = LengthDelimited::with_header_len(1);
    /// decoder.decode(&mut BufList::from(&b"\x05ab"[..])).unwrap(); // header taken
    /// decoder.reset(); // a new connection
    /// assert_eq!(decoder.decode(&mut BufList::from(&b"\x01z"[..])).unwrap().unwrap(), "z");
    /// ```
    fn reset(&mut self);
}
