//! foolscap's Banana token format, decoded from a [`BufList`].
//!
//! Every token is a header of up to 64 base-128 digits (least significant
//! first, 7 bits per byte, high bit clear), then a type byte with the high
//! bit set, then — for STRING, ERROR, LONGINT and LONGNEG — a body whose
//! length is the header, or for FLOAT an 8-byte body. See [`token`] for the
//! type bytes.
//!
//! The decoder parses the header in place when it lies in the first chunk
//! (the usual case) and otherwise finds the type byte with
//! [`BufList::position`] over at most 65 bytes and gathers the header with
//! [`BufList::peek_into`] into a stack buffer. It never pops a window and
//! pushes the rest back, so a header costs its own length however large the
//! chunk it sits in. A body is cut with [`BufList::split_to_bytes`]: no copy
//! when it lies in one chunk. Until a token is complete nothing is consumed.
//!
//! # Examples
//!
//! ```
//! use spool::buf_list::BufList;
//! use spool::codec::banana::{encode, BananaDecoder, Token};
//! use spool::codec::Decoder;
//!
//! let mut wire = Vec::new();
//! encode(&Token::Open(1), &mut wire);
//! encode(&Token::String("hello".into()), &mut wire);
//! let mut input = BufList::from(wire);
//! let mut decoder = BananaDecoder::new();
//! assert_eq!(decoder.decode(&mut input).unwrap(), Some(Token::Open(1)));
//! assert_eq!(decoder.decode(&mut input).unwrap(), Some(Token::String("hello".into())));
//! assert_eq!(decoder.decode(&mut input).unwrap(), None);
//! ```

mod encode;
pub mod token;

pub use encode::{encode, write_header};
pub use token::Token;

use token::*;

use super::Decoder;
use crate::buf_list::BufList;

/// The most header digits a token may have.
pub const MAX_HEADER_DIGITS: usize = 64;

/// Why a Banana stream was rejected. Every variant names the stream offset
/// of the token's first byte.
///
/// # Examples
///
/// ```
/// use spool::buf_list::BufList;
/// use spool::codec::banana::{BananaDecoder, BananaError};
/// use spool::codec::Decoder;
///
/// let mut input = BufList::from(&b"\x01\xff"[..]);
/// let err = BananaDecoder::new().decode(&mut input).unwrap_err();
/// assert_eq!(err, BananaError::UnknownType { byte: 0xff, offset: 0 });
/// assert_eq!(err.to_string(), "unknown token type byte 0xff at stream offset 0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BananaError {
    /// More than 64 header digits without a type byte.
    #[error("token header at stream offset {offset} is longer than {MAX_HEADER_DIGITS} bytes")]
    HeaderTooLong {
        /// Offset of the token.
        offset: u64,
    },
    /// The header's value does not fit in 64 bits.
    #[error("token header at stream offset {offset} overflows 64 bits")]
    HeaderOverflow {
        /// Offset of the token.
        offset: u64,
    },
    /// A type byte that Banana does not define.
    #[error("unknown token type byte {byte:#04x} at stream offset {offset}")]
    UnknownType {
        /// The byte found.
        byte: u8,
        /// Offset of the token.
        offset: u64,
    },
    /// A body longer than the decoder accepts.
    #[error(
        "{kind} token at stream offset {offset} has a {size}-byte body, over the limit of {limit}"
    )]
    BodyTooLarge {
        /// The token type's name.
        kind: &'static str,
        /// The announced body length.
        size: u64,
        /// The configured limit.
        limit: u64,
        /// Offset of the token.
        offset: u64,
    },
}

/// Decodes Banana tokens; see the [module documentation](self).
///
/// # Examples
///
/// ```
/// use spool::buf_list::BufList;
/// use spool::codec::banana::{BananaDecoder, Token};
/// use spool::codec::Decoder;
///
/// let mut input = BufList::from(&b"\x02\x82hi"[..]);
/// assert_eq!(BananaDecoder::new().decode(&mut input).unwrap(), Some(Token::String("hi".into())));
/// ```
#[derive(Clone, Debug)]
pub struct BananaDecoder {
    max_body: u64,
    offset: u64,
}

impl Default for BananaDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl BananaDecoder {
    /// A decoder accepting bodies up to 64 MiB.
    ///
    /// # Examples
    ///
    /// ```
    /// let decoder = spool::codec::banana::BananaDecoder::new();
    /// assert_eq!(decoder.offset(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_body(64 << 20)
    }

    /// A decoder accepting bodies up to `max_body` bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::buf_list::BufList;
    /// use spool::codec::banana::{BananaDecoder, BananaError};
    /// use spool::codec::Decoder;
    ///
    /// let mut decoder = BananaDecoder::with_max_body(2);
    /// let err = decoder.decode(&mut BufList::from(&b"\x03\x82abc"[..])).unwrap_err();
    /// assert!(matches!(err, BananaError::BodyTooLarge { size: 3, limit: 2, .. }));
    /// ```
    #[must_use]
    pub fn with_max_body(max_body: u64) -> Self {
        Self {
            max_body,
            offset: 0,
        }
    }

    /// Stream offset of the next token (bytes consumed so far).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::buf_list::BufList;
    /// use spool::codec::banana::BananaDecoder;
    /// use spool::codec::Decoder;
    ///
    /// let mut decoder = BananaDecoder::new();
    /// decoder.decode(&mut BufList::from(&b"\x05\x81"[..])).unwrap(); // INT 5
    /// assert_eq!(decoder.offset(), 2);
    /// ```
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn header(&self, digits: &[u8]) -> Result<u64, BananaError> {
        digits.iter().rev().try_fold(0u64, |acc, &d| {
            acc.checked_mul(128)
                .and_then(|v| v.checked_add(u64::from(d)))
                .ok_or(BananaError::HeaderOverflow {
                    offset: self.offset,
                })
        })
    }
}

impl Decoder for BananaDecoder {
    type Item = Token;
    type Error = BananaError;

    fn decode(&mut self, src: &mut BufList) -> Result<Option<Token>, BananaError> {
        let offset = self.offset;
        // Fast path: the whole header lies in the first chunk (the usual
        // case), so it is parsed in place; otherwise it is gathered from the
        // chunks into a small stack buffer.
        let mut head = [0u8; MAX_HEADER_DIGITS + 1];
        let (pos, header, type_byte) = match src.front_chunk().and_then(|first| {
            let window = &first[..first.len().min(MAX_HEADER_DIGITS + 1)];
            let pos = window.iter().position(|&b| b & 0x80 != 0)?;
            Some((pos, self.header(&window[..pos]), window[pos]))
        }) {
            Some((pos, header, type_byte)) => (pos, header?, type_byte),
            None => {
                let Some(pos) = src.position(|b| b & 0x80 != 0, MAX_HEADER_DIGITS + 1) else {
                    return if src.len() > MAX_HEADER_DIGITS {
                        Err(BananaError::HeaderTooLong { offset })
                    } else {
                        Ok(None)
                    };
                };
                src.peek_into(&mut head[..=pos]);
                (pos, self.header(&head[..pos])?, head[pos])
            }
        };
        let body_len = match type_byte {
            STRING | ERROR | LONGINT | LONGNEG => {
                if header > self.max_body {
                    return Err(BananaError::BodyTooLarge {
                        kind: Token::type_name(type_byte),
                        size: header,
                        limit: self.max_body,
                        offset,
                    });
                }
                header as usize
            }
            FLOAT => 8,
            LIST | INT | NEG | VOCAB | OPEN | CLOSE | ABORT | PING | PONG => 0,
            byte => return Err(BananaError::UnknownType { byte, offset }),
        };
        if src.len() - (pos + 1) < body_len {
            return Ok(None);
        }
        src.advance(pos + 1);
        self.offset += (pos + 1 + body_len) as u64;
        let token = match type_byte {
            STRING => Token::String(src.split_to_bytes(body_len)),
            ERROR => Token::Error(src.split_to_bytes(body_len)),
            LONGINT => Token::LongInt(src.split_to_bytes(body_len)),
            LONGNEG => Token::LongNeg(src.split_to_bytes(body_len)),
            FLOAT => {
                let mut raw = [0u8; 8];
                src.peek_into(&mut raw);
                src.advance(8);
                Token::Float(f64::from_be_bytes(raw))
            }
            LIST => Token::List(header),
            INT => Token::Int(header),
            NEG => Token::Neg(header),
            VOCAB => Token::Vocab(header),
            OPEN => Token::Open(header),
            CLOSE => Token::Close(header),
            ABORT => Token::Abort(header),
            PING => Token::Ping(header),
            _ => Token::Pong(header),
        };
        Ok(Some(token))
    }

    fn reset(&mut self) {
        self.offset = 0;
    }
}
