//! Banana tokens and their type bytes.

use bytes::Bytes;

/// Type byte of a LIST token (header: element count).
pub const LIST: u8 = 0x80;
/// Type byte of an INT token (header: the non-negative value).
pub const INT: u8 = 0x81;
/// Type byte of a STRING token (header: body length).
pub const STRING: u8 = 0x82;
/// Type byte of a NEG token (header: the magnitude of a negative value).
pub const NEG: u8 = 0x83;
/// Type byte of a FLOAT token (an 8-byte big-endian IEEE 754 body).
pub const FLOAT: u8 = 0x84;
/// Type byte of a LONGINT token (header: length of a big-endian magnitude).
pub const LONGINT: u8 = 0x85;
/// Type byte of a LONGNEG token (header: length of a big-endian magnitude).
pub const LONGNEG: u8 = 0x86;
/// Type byte of a VOCAB token (header: vocabulary index).
pub const VOCAB: u8 = 0x87;
/// Type byte of an OPEN token (header: open id).
pub const OPEN: u8 = 0x88;
/// Type byte of a CLOSE token (header: open id).
pub const CLOSE: u8 = 0x89;
/// Type byte of an ABORT token (header: open id).
pub const ABORT: u8 = 0x8A;
/// Type byte of an ERROR token (header: message length).
pub const ERROR: u8 = 0x8D;
/// Type byte of a PING token.
pub const PING: u8 = 0x8E;
/// Type byte of a PONG token.
pub const PONG: u8 = 0x8F;

/// One decoded Banana token. Bodies are [`Bytes`] cut from the input list:
/// shared, not copied, when they arrived inside one chunk.
///
/// # Examples
///
/// ```
/// use spool::codec::banana::{encode, Token};
/// let mut wire = Vec::new();
/// encode(&Token::List(2), &mut wire);
/// assert_eq!(wire, [0x02, 0x80]); // header 2, then the LIST type byte
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// Start of a list of this many elements.
    List(u64),
    /// A non-negative integer.
    Int(u64),
    /// A byte string.
    String(Bytes),
    /// A negative integer, given by its magnitude.
    Neg(u64),
    /// A float.
    Float(f64),
    /// A large non-negative integer: big-endian magnitude bytes.
    LongInt(Bytes),
    /// A large negative integer: big-endian magnitude bytes.
    LongNeg(Bytes),
    /// A vocabulary reference.
    Vocab(u64),
    /// Opens a sequence with this id.
    Open(u64),
    /// Closes the sequence with this id.
    Close(u64),
    /// Aborts the sequence with this id.
    Abort(u64),
    /// An error message from the peer.
    Error(Bytes),
    /// Keep-alive request.
    Ping(u64),
    /// Keep-alive answer.
    Pong(u64),
}

impl Token {
    /// The token's type byte.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::banana::token::{Token, INT};
    /// assert_eq!(Token::Int(5).type_byte(), INT);
    /// ```
    #[must_use]
    pub fn type_byte(&self) -> u8 {
        match self {
            Token::List(_) => LIST,
            Token::Int(_) => INT,
            Token::String(_) => STRING,
            Token::Neg(_) => NEG,
            Token::Float(_) => FLOAT,
            Token::LongInt(_) => LONGINT,
            Token::LongNeg(_) => LONGNEG,
            Token::Vocab(_) => VOCAB,
            Token::Open(_) => OPEN,
            Token::Close(_) => CLOSE,
            Token::Abort(_) => ABORT,
            Token::Error(_) => ERROR,
            Token::Ping(_) => PING,
            Token::Pong(_) => PONG,
        }
    }

    /// A short name for messages: "STRING", "INT", ...
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::codec::banana::token::{Token, STRING};
    /// assert_eq!(Token::type_name(STRING), "STRING");
    /// assert_eq!(Token::type_name(0x7F), "unknown");
    /// ```
    #[must_use]
    pub fn type_name(type_byte: u8) -> &'static str {
        match type_byte {
            LIST => "LIST",
            INT => "INT",
            STRING => "STRING",
            NEG => "NEG",
            FLOAT => "FLOAT",
            LONGINT => "LONGINT",
            LONGNEG => "LONGNEG",
            VOCAB => "VOCAB",
            OPEN => "OPEN",
            CLOSE => "CLOSE",
            ABORT => "ABORT",
            ERROR => "ERROR",
            PING => "PING",
            PONG => "PONG",
            _ => "unknown",
        }
    }
}
