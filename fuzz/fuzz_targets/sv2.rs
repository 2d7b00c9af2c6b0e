//! The Stratum V2 decoder on arbitrary wire bytes, fed three ways — pushed
//! in chunks of arbitrary sizes, read from an `io::Read` that returns
//! arbitrary short reads and `Interrupted`, and filled through `writable` —
//! into a pool of arbitrary (tiny included) capacity or onto the heap,
//! against a plain parser of the format as the oracle: the same frames, the
//! same `PayloadTooLarge` at the same place, and every frame kept alive to
//! the end still holding its bytes (the pool must not reuse live memory).
//! After an error the decoder must decode a fresh frame.
#![no_main]

use std::io;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool::codec::sv2::{Frame, PayloadTooLarge, Sv2Decoder, HEADER_LEN, MAX_PAYLOAD};
use spool::pool::{Buffer, BufferPool, HeapBuffer, PoolConfig};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Feed {
    Push,
    Read,
    Writable,
}

#[derive(Arbitrary, Debug)]
struct Input {
    feed: Feed,
    /// `None`: the u24 maximum (push only; the other feeds reserve a whole
    /// announced frame up front, so they get a bounded limit).
    max_payload: Option<u16>,
    /// `None`: a `HeapBuffer`.
    pool: Option<(u16, u8)>,
    chunks: Vec<u8>,
    wire: Vec<u8>,
}

/// What the decoder must produce from `wire`.
#[derive(Debug, PartialEq)]
enum End {
    /// Clean end between frames.
    Clean,
    /// Input ended inside a frame.
    Inside,
    TooLarge(PayloadTooLarge),
}

/// The oracle: whole frames as raw bytes, and how the input ends.
fn parse(wire: &[u8], limit: usize) -> (Vec<&[u8]>, End) {
    let mut frames = Vec::new();
    let mut at = 0;
    loop {
        let rest = &wire[at..];
        if rest.is_empty() {
            return (frames, End::Clean);
        }
        if rest.len() < HEADER_LEN {
            return (frames, End::Inside);
        }
        let size = usize::from(rest[3]) | usize::from(rest[4]) << 8 | usize::from(rest[5]) << 16;
        if size > limit {
            return (frames, End::TooLarge(PayloadTooLarge { size, limit }));
        }
        if rest.len() < HEADER_LEN + size {
            return (frames, End::Inside);
        }
        frames.push(&rest[..HEADER_LEN + size]);
        at += HEADER_LEN + size;
    }
}

/// Chunk sizes from the input, then the rest at once.
struct Sizes<'a> {
    chunks: std::slice::Iter<'a, u8>,
}

impl Sizes<'_> {
    /// The next size; 0 stands for an `Interrupted` read.
    fn next(&mut self) -> usize {
        self.chunks.next().map_or(usize::MAX, |&c| usize::from(c))
    }
}

/// An `io::Read` over `wire` that returns the chunk sizes as short reads.
struct ShortReads<'a> {
    wire: &'a [u8],
    sizes: Sizes<'a>,
}

impl io::Read for ShortReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match self.sizes.next() {
            0 => return Err(io::ErrorKind::Interrupted.into()),
            n => n.min(buf.len()).min(self.wire.len()),
        };
        buf[..n].copy_from_slice(&self.wire[..n]);
        self.wire = &self.wire[n..];
        Ok(n)
    }
}

fn decode<B: Buffer>(input: &Input, buffer: B, limit: usize) {
    let (expected, end) = parse(&input.wire, limit);
    let mut decoder = Sv2Decoder::with_max_payload(buffer, limit);
    let mut frames: Vec<Frame> = Vec::new();
    let mut sizes = Sizes {
        chunks: input.chunks.iter(),
    };
    let got_end = match input.feed {
        Feed::Push => {
            let mut rest = &input.wire[..];
            loop {
                if rest.is_empty() {
                    break if decoder.missing() == HEADER_LEN && decoder.buffer().is_empty() {
                        End::Clean
                    } else {
                        End::Inside
                    };
                }
                let n = sizes.next().clamp(1, rest.len());
                match decoder.push(&rest[..n], &mut frames) {
                    Ok(used) => assert_eq!(used, n),
                    Err(e) => break End::TooLarge(e),
                }
                rest = &rest[n..];
            }
        }
        Feed::Read => {
            let mut reader = ShortReads {
                wire: &input.wire,
                sizes,
            };
            loop {
                match decoder.read_frame(&mut reader) {
                    Ok(Some(frame)) => frames.push(frame),
                    Ok(None) => break End::Clean,
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break End::Inside,
                    Err(e) => {
                        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
                        let inner = e.into_inner().expect("wraps the decoder's error");
                        break End::TooLarge(*inner.downcast().expect("a PayloadTooLarge"));
                    }
                }
            }
        }
        Feed::Writable => {
            let mut rest = &input.wire[..];
            loop {
                if rest.is_empty() && decoder.buffer().is_empty() {
                    break End::Clean;
                }
                let n = decoder.missing();
                if n > rest.len() {
                    break End::Inside;
                }
                decoder.writable().copy_from_slice(&rest[..n]);
                rest = &rest[n..];
                match decoder.next_frame() {
                    Ok(Some(frame)) => frames.push(frame),
                    Ok(None) => {}
                    Err(e) => break End::TooLarge(e),
                }
            }
        }
    };
    assert_eq!(got_end, end);
    assert_eq!(frames.len(), expected.len());
    for (frame, raw) in frames.iter().zip(&expected) {
        assert_eq!(frame.extension_type(), u16::from_le_bytes([raw[0], raw[1]]));
        assert_eq!(frame.msg_type(), raw[2]);
        assert_eq!(frame.payload(), &raw[HEADER_LEN..]);
    }
    // The decoder is usable again after an error or a partial frame.
    decoder.reset();
    // (An empty payload: within every limit, 0 included.)
    let fresh = [1, 0, 7, 0, 0, 0];
    let mut more = Vec::new();
    assert_eq!(decoder.push(&fresh, &mut more), Ok(fresh.len()));
    assert_eq!(more.len(), 1);
    assert_eq!((more[0].msg_type(), more[0].payload()), (7, &[][..]));
    // Frames kept alive across all of the above still hold their bytes.
    for (frame, raw) in frames.into_iter().zip(&expected) {
        assert_eq!(&frame.into_slice()[..], *raw);
    }
}

fuzz_target!(|input: Input| {
    let limit = match (input.max_payload, input.feed) {
        (None, Feed::Push) => MAX_PAYLOAD,
        (limit, _) => usize::from(limit.unwrap_or(u16::MAX)),
    };
    match input.pool {
        Some((capacity, slots)) => {
            let pool = BufferPool::with_config(PoolConfig {
        capacity: usize::from(capacity),
        slots: usize::from(slots).max(1),
    });
            decode(&input, pool, limit);
        }
        None => decode(&input, HeapBuffer::new(), limit),
    }
});
