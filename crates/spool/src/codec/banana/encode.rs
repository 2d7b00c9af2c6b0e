//! The Banana encoder (for tests, benchmarks and peers that send).

use alloc::vec::Vec;

use super::token::*;

/// Appends `value` as base-128 digits, least significant first, high bit
/// clear (foolscap's `int2b128`). Zero is one `0x00` digit.
pub fn write_header(mut value: u64, out: &mut Vec<u8>) {
    loop {
        out.push((value & 0x7F) as u8);
        value >>= 7;
        if value == 0 {
            break;
        }
    }
}

/// Appends the encoding of `token`.
///
/// # Examples
///
/// ```
/// use spool::codec::banana::{encode, Token};
/// let mut wire = Vec::new();
/// encode(&Token::String("hi".into()), &mut wire);
/// assert_eq!(wire, b"\x02\x82hi");
/// encode(&Token::Int(300), &mut wire);
/// assert_eq!(&wire[4..], b"\x2c\x02\x81");
/// ```
pub fn encode(token: &Token, out: &mut Vec<u8>) {
    let body: &[u8] = match token {
        Token::String(b) | Token::LongInt(b) | Token::LongNeg(b) | Token::Error(b) => {
            write_header(b.len() as u64, out);
            b
        }
        Token::Float(f) => {
            out.push(token.type_byte());
            out.extend_from_slice(&f.to_be_bytes());
            return;
        }
        Token::List(v)
        | Token::Int(v)
        | Token::Neg(v)
        | Token::Vocab(v)
        | Token::Open(v)
        | Token::Close(v)
        | Token::Abort(v)
        | Token::Ping(v)
        | Token::Pong(v) => {
            write_header(*v, out);
            &[]
        }
    };
    out.push(token.type_byte());
    out.extend_from_slice(body);
}
