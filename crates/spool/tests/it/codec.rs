//! Frame decoders: length-delimited options and limits, and Banana tokens
//! decoded identically whatever the chunking (1, 3, 7 bytes, random splits),
//! with errors that name what and where.

use bytes::Bytes;
use proptest::prelude::*;
use spool::buf_list::BufList;
use spool::codec::banana::{encode, BananaDecoder, BananaError, Token};
use spool::codec::{Decoder, FrameTooLarge, LengthDelimited};

fn decode_all<D: Decoder>(
    decoder: &mut D,
    wire: &[u8],
    cuts: &[usize],
) -> Result<Vec<D::Item>, D::Error> {
    let mut list = BufList::new();
    let mut out = Vec::new();
    let mut at = 0;
    let mut k = 0;
    while at < wire.len() {
        let step = cuts[k % cuts.len()].max(1);
        k += 1;
        let end = (at + step).min(wire.len());
        list.push_back(Bytes::copy_from_slice(&wire[at..end]));
        at = end;
        while let Some(item) = decoder.decode(&mut list)? {
            out.push(item);
        }
    }
    assert!(list.is_empty(), "{} bytes left undecoded", list.len());
    Ok(out)
}

#[test]
fn length_delimited_widths_and_endianness() {
    for width in 1..=8usize {
        for little in [false, true] {
            let mut wire = Vec::new();
            for body in [&b""[..], b"x", b"hello"] {
                let len = body.len() as u64;
                let mut header = if little {
                    len.to_le_bytes()
                } else {
                    len.to_be_bytes()
                }
                .to_vec();
                if little {
                    header.truncate(width);
                } else {
                    header.drain(..8 - width);
                }
                wire.extend(header);
                wire.extend_from_slice(body);
            }
            let mut d = LengthDelimited::with_header_len(width);
            if little {
                d = d.little_endian();
            }
            for cuts in [&[1usize][..], &[3], &[100]] {
                let frames = decode_all(&mut d, &wire, cuts).unwrap();
                assert_eq!(
                    frames,
                    vec![&b""[..], b"x", b"hello"],
                    "width {width} little {little}"
                );
            }
        }
    }
}

#[test]
fn length_adjustment_counts_the_header() {
    // A 4-byte length that includes itself.
    let wire = b"\x00\x00\x00\x07abc\x00\x00\x00\x04";
    let mut d = LengthDelimited::with_header_len(4).length_adjustment(-4);
    assert_eq!(
        decode_all(&mut d, wire, &[2]).unwrap(),
        vec![&b"abc"[..], b""]
    );
    let mut d = LengthDelimited::with_header_len(1).length_adjustment(-2);
    let err = decode_all(&mut d, b"\x01", &[1]).unwrap_err();
    assert_eq!(
        err,
        FrameTooLarge {
            size: 0,
            limit: 8 << 20,
            offset: 0
        }
    );
}

#[test]
fn oversize_frame_names_size_limit_and_offset() {
    let mut d = LengthDelimited::with_header_len(2).max_frame_length(10);
    let err = decode_all(&mut d, b"\x00\x02ok\x01\x00", &[64]).unwrap_err();
    assert_eq!(
        err,
        FrameTooLarge {
            size: 256,
            limit: 10,
            offset: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "frame of 256 bytes at stream offset 4 exceeds the limit of 10 bytes"
    );
    // After a reset the decoder serves a new connection.
    d.reset();
    assert_eq!(
        decode_all(&mut d, b"\x00\x01!", &[1]).unwrap(),
        vec![&b"!"[..]]
    );
}

#[test]
fn body_in_one_chunk_is_not_copied() {
    let wire = Bytes::from(b"\x05hello\x03abc".to_vec());
    let base = wire.as_ptr();
    let mut list = BufList::from(wire);
    let mut d = LengthDelimited::with_header_len(1);
    let first = d.decode(&mut list).unwrap().unwrap();
    assert_eq!(first.as_ptr(), base.wrapping_add(1));
    let second = d.decode(&mut list).unwrap().unwrap();
    assert_eq!(second.as_ptr(), base.wrapping_add(7));
}

fn token() -> impl Strategy<Value = Token> {
    let bytes = prop::collection::vec(any::<u8>(), 0..300).prop_map(Bytes::from);
    let num = prop_oneof![0u64..200, any::<u64>()];
    prop_oneof![
        num.clone().prop_map(Token::List),
        num.clone().prop_map(Token::Int),
        bytes.clone().prop_map(Token::String),
        num.clone().prop_map(Token::Neg),
        any::<f64>()
            .prop_filter("NaN != NaN", |f| !f.is_nan())
            .prop_map(Token::Float),
        bytes.clone().prop_map(Token::LongInt),
        bytes.clone().prop_map(Token::LongNeg),
        num.clone().prop_map(Token::Vocab),
        num.clone().prop_map(Token::Open),
        num.clone().prop_map(Token::Close),
        num.clone().prop_map(Token::Abort),
        bytes.prop_map(Token::Error),
        num.clone().prop_map(Token::Ping),
        num.prop_map(Token::Pong),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn banana_round_trips_under_every_split(
        tokens in prop::collection::vec(token(), 0..40),
        random_cuts in prop::collection::vec(1usize..50, 1..20),
    ) {
        let mut wire = Vec::new();
        for t in &tokens {
            encode(t, &mut wire);
        }
        for cuts in [&[1usize][..], &[3], &[7], &random_cuts, &[wire.len().max(1)]] {
            let got = decode_all(&mut BananaDecoder::new(), &wire, cuts).unwrap();
            prop_assert_eq!(&got, &tokens);
        }
    }
}

#[test]
fn banana_header_of_64_digits_is_accepted_65_rejected() {
    let mut wire = vec![0u8; 64];
    wire.push(0x81);
    assert_eq!(
        decode_all(&mut BananaDecoder::new(), &wire, &[5]).unwrap(),
        vec![Token::Int(0)]
    );
    let mut wire = b"\x01\x81".to_vec();
    wire.extend([0u8; 65]);
    wire.push(0x81);
    let err = decode_all(&mut BananaDecoder::new(), &wire, &[7]).unwrap_err();
    assert_eq!(err, BananaError::HeaderTooLong { offset: 2 });
    assert!(err.to_string().contains("longer than 64 bytes"));
}

#[test]
fn banana_errors_name_kind_and_offset() {
    let mut wire = Vec::new();
    encode(&Token::Int(5), &mut wire);
    let offset = wire.len() as u64;
    wire.extend(b"\x01\x8b");
    let err = decode_all(&mut BananaDecoder::new(), &wire, &[1]).unwrap_err();
    assert_eq!(err, BananaError::UnknownType { byte: 0x8b, offset });
    assert_eq!(
        err.to_string(),
        "unknown token type byte 0x8b at stream offset 2"
    );

    let mut wire = Vec::new();
    encode(&Token::String(Bytes::from(vec![b'x'; 2000])), &mut wire);
    let err = decode_all(&mut BananaDecoder::with_max_body(1000), &wire, &[64]).unwrap_err();
    assert_eq!(
        err,
        BananaError::BodyTooLarge {
            kind: "STRING",
            size: 2000,
            limit: 1000,
            offset: 0
        }
    );

    // 10 digits of 0x7f: 70 bits, more than a u64 holds.
    let mut wire = vec![0x7f; 10];
    wire.push(0x81);
    let err = decode_all(&mut BananaDecoder::new(), &wire, &[3]).unwrap_err();
    assert_eq!(err, BananaError::HeaderOverflow { offset: 0 });
}

#[test]
fn banana_string_in_one_chunk_is_not_copied() {
    let mut wire = Vec::new();
    encode(&Token::String(Bytes::from(vec![b's'; 5000])), &mut wire);
    let wire = Bytes::from(wire);
    let base = wire.as_ptr();
    let mut list = BufList::from(wire);
    match BananaDecoder::new().decode(&mut list).unwrap() {
        Some(Token::String(body)) => assert_eq!(body.as_ptr(), base.wrapping_add(3)),
        other => panic!("expected a STRING, got {other:?}"),
    }
}

#[cfg(feature = "tokio")]
#[test]
fn tokio_adapter_feeds_framed_read_style_buffers() {
    use bytes::BytesMut;
    use spool::codec::FramedBufList;
    use tokio_util::codec::Decoder as _;

    let mut wire = Vec::new();
    for t in [Token::Open(1), Token::String("abc".into()), Token::Close(1)] {
        encode(&t, &mut wire);
    }
    let mut codec = FramedBufList::new(BananaDecoder::new());
    let mut buf = BytesMut::new();
    let mut got = Vec::new();
    for b in &wire {
        buf.extend_from_slice(&[*b]);
        while let Some(t) = codec.decode(&mut buf).unwrap() {
            got.push(t);
        }
    }
    assert_eq!(
        got,
        vec![Token::Open(1), Token::String("abc".into()), Token::Close(1)]
    );
    buf.extend_from_slice(b"\x05\x82ab");
    assert!(codec.decode(&mut buf).unwrap().is_none());
    let err = codec.decode_eof(&mut buf).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
}

/// A decoder that keeps a consumed header in its own state leaves nothing
/// pending mid-frame: the end of input is still inside a frame (found by
/// the `tokio_adapter` fuzz target).
#[cfg(feature = "tokio")]
#[test]
fn tokio_adapter_eof_after_a_consumed_header_is_an_error() {
    use bytes::BytesMut;
    use spool::codec::{FramedBufList, LengthDelimited};
    use tokio_util::codec::Decoder as _;

    let mut codec = FramedBufList::new(LengthDelimited::with_header_len(1));
    let mut buf = BytesMut::from(&b"\x01a\xc5"[..]); // a frame, then a header of 197
    assert_eq!(codec.decode(&mut buf).unwrap().unwrap(), "a");
    assert!(codec.decode(&mut buf).unwrap().is_none());
    let err = codec.decode_eof(&mut buf).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    // A clean end between frames stays clean.
    let mut codec = FramedBufList::new(LengthDelimited::with_header_len(1));
    let mut buf = BytesMut::from(&b"\x01a"[..]);
    assert_eq!(codec.decode_eof(&mut buf).unwrap().unwrap(), "a");
    assert!(codec.decode_eof(&mut buf).unwrap().is_none());
}
