//! `FramedBufList` (spool's decoders as a `tokio_util` codec) reading from an
//! in-memory duplex pipe: a writer task sends length-delimited frames in
//! writes of arbitrary sizes through a pipe of arbitrary (tiny included)
//! buffer size, so `FramedRead` sees arbitrary read boundaries; what comes
//! out must be exactly the frames that went in, in order, then a clean end
//! — or, when the input ends inside a frame, `UnexpectedEof` after the
//! whole frames, and `InvalidData` at a frame over the decoder's limit.
#![no_main]

use std::cell::RefCell;
use std::io;

use arbitrary::Arbitrary;
use futures_util::StreamExt;
use libfuzzer_sys::fuzz_target;
use spool::codec::{FramedBufList, LengthDelimited};
use tokio::io::AsyncWriteExt;
use tokio_util::codec::FramedRead;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Length header width, 1..=4 bytes.
    header: u8,
    little_endian: bool,
    /// Largest body the decoder accepts.
    max_frame: u16,
    /// The pipe's buffer size (1..=256 bytes).
    pipe: u8,
    writes: Vec<u8>,
    frames: Vec<Vec<u8>>,
    /// Bytes sent after the frames (a cut-off frame, unless empty).
    tail: Vec<u8>,
}

thread_local! {
    /// One runtime for every run: building one costs more than a run.
    static RUNTIME: RefCell<tokio::runtime::Runtime> = RefCell::new(
        tokio::runtime::Builder::new_current_thread().build().expect("a runtime"),
    );
}

/// `value` as a `width`-byte length header.
fn header(value: usize, width: usize, little_endian: bool) -> Vec<u8> {
    let be = (value as u64).to_be_bytes();
    let mut h = be[8 - width..].to_vec();
    if little_endian {
        h.reverse();
    }
    h
}

fuzz_target!(|input: Input| {
    let width = usize::from(input.header % 4) + 1;
    let fits = (1usize << (8 * width.min(3))) - 1;
    let max_frame = usize::from(input.max_frame);
    // The wire: whole frames (bodies cut to what the header can say), then
    // the tail. Expected: the frames up to the first one over the limit.
    let mut wire = Vec::new();
    let mut expected = Vec::new();
    let mut too_large = false;
    for body in &input.frames {
        let body = &body[..body.len().min(fits)];
        wire.extend(header(body.len(), width, input.little_endian));
        wire.extend_from_slice(body);
        if !too_large && body.len() > max_frame {
            too_large = true;
        }
        if !too_large {
            expected.push(body.to_vec());
        }
    }
    wire.extend_from_slice(&input.tail);
    // What follows the whole frames: nothing, a cut-off frame, or more
    // whole frames (the tail may itself parse as frames).
    let mut rest = &input.tail[..];
    let mut tail_frames = Vec::new();
    let mut tail_end_clean = true;
    while !too_large && !rest.is_empty() {
        if rest.len() < width {
            tail_end_clean = false;
            break;
        }
        let mut h = rest[..width].to_vec();
        if !input.little_endian {
            h.reverse();
        }
        let len = h.iter().rev().fold(0usize, |v, &b| v << 8 | usize::from(b));
        if len > max_frame {
            too_large = true;
            break;
        }
        if rest.len() < width + len {
            tail_end_clean = false;
            break;
        }
        tail_frames.push(rest[width..width + len].to_vec());
        rest = &rest[width + len..];
    }
    expected.extend(tail_frames);

    let pipe = usize::from(input.pipe).max(1);
    let (got, end) = RUNTIME.with(|rt| {
        rt.borrow().block_on(async {
            let (mut tx, rx) = tokio::io::duplex(pipe);
            let writes = input.writes.clone();
            let wire = wire.clone();
            let sender = async move {
                let mut at = 0;
                let mut sizes = writes.iter();
                while at < wire.len() {
                    let n = sizes.next().map_or(wire.len(), |&s| usize::from(s).max(1));
                    let n = n.min(wire.len() - at);
                    // The reader may stop early (an error): then the pipe
                    // is closed and the write fails, which is fine.
                    if tx.write_all(&wire[at..at + n]).await.is_err() {
                        return;
                    }
                    at += n;
                }
                let _ = tx.shutdown().await;
            };
            let decoder =
                LengthDelimited::with_header_len(width).max_frame_length(max_frame as u64);
            let decoder = if input.little_endian {
                decoder.little_endian()
            } else {
                decoder
            };
            let receiver = async move {
                let mut framed = FramedRead::new(rx, FramedBufList::new(decoder));
                let mut got = Vec::new();
                let end = loop {
                    match framed.next().await {
                        Some(Ok(frame)) => got.push(frame.to_vec()),
                        Some(Err(e)) => break Some(e.kind()),
                        None => break None,
                    }
                };
                (got, end)
            };
            tokio::join!(sender, receiver).1
        })
    });
    assert_eq!(got, expected);
    let expected_end = if too_large {
        Some(io::ErrorKind::InvalidData)
    } else if tail_end_clean {
        None
    } else {
        Some(io::ErrorKind::UnexpectedEof)
    };
    assert_eq!(end, expected_end);
});
