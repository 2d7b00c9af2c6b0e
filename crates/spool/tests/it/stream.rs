//! ByteStream behaviour: capacity, wrap-around, close/finish, errors, and the
//! `io` and `bytes` trait impls.

use std::io::{Read, Write};

use bytes::Buf;
use spool::stream::ByteStream;

fn drain(stream: &mut ByteStream) -> Vec<u8> {
    let mut out = Vec::new();
    while stream.reader().bytes_buffered() > 0 {
        let chunk = stream.reader().peek().to_vec();
        assert!(!chunk.is_empty(), "peek is empty while bytes are buffered");
        stream.reader().pop(chunk.len());
        out.extend(chunk);
    }
    out
}

#[test]
fn construction() {
    let mut s = ByteStream::new(15);
    assert_eq!(s.writer().available_capacity(), 15);
    assert_eq!(s.writer().bytes_pushed(), 0);
    assert_eq!(s.reader().bytes_popped(), 0);
    assert!(!s.writer().is_closed());
    assert!(!s.reader().is_finished());
    assert!(!s.has_error());
    assert_eq!(s.reader().peek(), b"");
}

#[test]
fn push_close_finish() {
    let mut s = ByteStream::new(15);
    assert_eq!(s.writer().push(b"cat"), 3);
    s.writer().close();
    assert!(s.writer().is_closed());
    assert!(!s.reader().is_finished());
    assert_eq!(s.reader().bytes_buffered(), 3);
    assert_eq!(drain(&mut s), b"cat");
    assert!(s.reader().is_finished());
    assert_eq!(
        s.writer().push(b"more"),
        0,
        "a closed stream accepts nothing"
    );
    assert_eq!(s.writer().bytes_pushed(), 3);
}

#[test]
fn capacity_is_enforced_and_freed_by_pops() {
    let mut s = ByteStream::new(2);
    assert_eq!(s.writer().push(b"cat"), 2);
    assert_eq!(s.writer().available_capacity(), 0);
    assert_eq!(s.reader().peek(), b"ca");
    assert_eq!(s.writer().push(b"t"), 0);
    assert_eq!(s.reader().pop(1), 1);
    assert_eq!(s.writer().available_capacity(), 1);
    assert_eq!(s.writer().push(b"tac"), 1);
    assert_eq!(drain(&mut s), b"at");
    assert_eq!(s.writer().bytes_pushed(), 3);
    assert_eq!(s.reader().bytes_popped(), 3);
}

#[test]
fn wraps_around_without_moving_data() {
    let mut s = ByteStream::new(5);
    let mut expected = Vec::new();
    let mut got = Vec::new();
    for i in 0..100u8 {
        let chunk: Vec<u8> = (0..(i % 4 + 1))
            .map(|k| i.wrapping_mul(7).wrapping_add(k))
            .collect();
        let n = s.writer().push(&chunk);
        expected.extend_from_slice(&chunk[..n]);
        let (a, b) = s.reader_ref().as_slices();
        assert_eq!(a.len() + b.len(), s.reader_ref().bytes_buffered() as usize);
        let take = (i % 3) as usize;
        let front: Vec<u8> = a.iter().chain(b).take(take).copied().collect();
        assert_eq!(s.reader().pop(take), front.len());
        got.extend(front);
    }
    got.extend(drain(&mut s));
    assert_eq!(got, expected);
}

#[test]
fn zero_capacity_stream() {
    let mut s = ByteStream::new(0);
    assert_eq!(s.writer().push(b"x"), 0);
    assert_eq!(s.reader().peek(), b"");
    let (a, b) = s.writer().spare_mut();
    assert!(a.is_empty() && b.is_empty());
    s.writer().close();
    assert!(s.reader().is_finished());
}

#[test]
fn spare_mut_gives_both_segments() {
    let mut s = ByteStream::new(6);
    s.writer().push(b"abcd");
    s.reader().pop(3);
    let (first, second) = s.writer().spare_mut();
    assert_eq!((first.len(), second.len()), (2, 3));
    first.copy_from_slice(b"ef");
    second[..2].copy_from_slice(b"gh");
    s.writer().commit(4);
    assert_eq!(drain(&mut s), b"defgh");
}

#[test]
fn an_empty_stream_starts_again_at_the_front() {
    let mut s = ByteStream::new(4);
    s.writer().push(b"abc");
    s.reader().pop(3);
    // Without the rewind "defg" would wrap after "d".
    assert_eq!(s.writer().push(b"defg"), 4);
    assert_eq!(s.reader().peek(), b"defg");
    s.reader().pop(4);
    let (first, second) = s.writer().spare_mut();
    assert_eq!((first.len(), second.len()), (4, 0), "spare_mut rewinds too");
    // Not empty: nothing moves, the bytes wrap.
    s.writer().push(b"hij");
    s.reader().pop(2);
    s.writer().push(b"kl");
    assert_eq!(s.reader_ref().as_slices(), (&b"jk"[..], &b"l"[..]));
    assert_eq!(s.reader().bytes_popped(), 9);
}

#[test]
#[should_panic(expected = "exceeds the available capacity")]
fn commit_past_capacity_panics() {
    let mut s = ByteStream::new(4);
    s.writer().commit(5);
}

#[test]
fn error_flag_is_shared_by_both_halves() {
    let mut s = ByteStream::new(4);
    s.writer().set_error();
    assert!(s.reader().has_error());
    assert!(s.writer().has_error());
}

#[test]
fn clone_is_a_deep_copy() {
    let mut a = ByteStream::new(8);
    a.writer().push(b"abc");
    let mut b = a.clone();
    a.reader().pop(3);
    b.writer().push(b"d");
    assert_eq!(drain(&mut b), b"abcd");
    assert_eq!(a.reader().bytes_buffered(), 0);
}

#[test]
fn io_read_and_write() {
    let mut s = ByteStream::new(8);
    assert_eq!(s.writer().write(b"0123456789").unwrap(), 8);
    let mut buf = [0; 3];
    assert_eq!(s.reader().read(&mut buf).unwrap(), 3);
    assert_eq!(&buf, b"012");
    s.writer().write_all(b"89a").unwrap();
    let mut rest = [0; 16];
    let n = s.reader().read(&mut rest).unwrap();
    assert_eq!(&rest[..n], b"3456789a");
    let err = s.reader().read(&mut rest).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    s.writer().close();
    assert_eq!(s.reader().read(&mut rest).unwrap(), 0);
    assert_eq!(
        s.writer().write(b"x").unwrap_err().kind(),
        std::io::ErrorKind::BrokenPipe
    );
}

#[test]
fn bytes_buf_over_both_slices() {
    let mut s = ByteStream::new(4);
    s.writer().push(b"abc");
    s.reader().pop(2);
    s.writer().push(b"def");
    let reader = s.reader();
    assert_eq!(reader.remaining(), 4);
    let mut iov = [std::io::IoSlice::new(&[]); 4];
    assert_eq!(reader.chunks_vectored(&mut iov), 2);
    assert_eq!(&*iov[0], b"cd");
    assert_eq!(&*iov[1], b"ef");
    assert_eq!(reader.copy_to_bytes(4), &b"cdef"[..]);
    assert_eq!(reader.remaining(), 0);
}
