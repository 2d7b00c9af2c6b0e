//! Round trips through codec_sv2 3.x's plain decoder, one line each:
//! `case frames=… bytes=… digest=…`, on whichever buffer_sv2 2.x this build
//! runs on (spool's face, or crates.io's 2.0.0 in `real/`) and whichever of
//! its buffers codec_sv2 picks (`with_buffer_pool`: the pool; else the
//! heap). Every decoded frame is checked against the one sent;
//! scripts/test-sv2.sh requires the same lines from all four builds.
//!
//! The cases are the pool's hard ones: every frame dropped at once, the
//! last 16 held, one frame held while 100,000 more pass (buffer_sv2's pool
//! sends them all to the heap past its 8 slots; spool's keeps them in the
//! arena), all 3,000 held, and frames larger than the pool.

use std::collections::VecDeque;

use binary_sv2::{Deserialize, Serialize};
use codec_sv2::{Error, StandardDecoder, StandardSv2Frame};

#[path = "../../src/frames.rs"]
mod frames;

use frames::{large_frames, small_frames, Digest};

/// The message type the decoder is typed with; frames are decoded, not
/// deserialized, so any type does.
#[derive(Debug, Serialize, Deserialize, Clone)]
struct Any {
    nonce: u16,
}

type Frame = StandardSv2Frame<Any>;

/// Feeds `wire` to `decoder` exactly `writable()` bytes at a time and
/// hands every frame to `on_frame`. The caller keeps the decoder until its
/// frames are gone: buffer_sv2's pool spins in `Drop` while any lives.
fn decode(decoder: &mut StandardDecoder<Any>, wire: &[u8], mut on_frame: impl FnMut(Frame)) {
    let mut at = 0;
    loop {
        let window = decoder.writable();
        let n = window.len();
        if at + n > wire.len() {
            assert_eq!(at, wire.len(), "the stream ended inside a frame");
            return;
        }
        window.copy_from_slice(&wire[at..at + n]);
        at += n;
        match decoder.next_frame() {
            Ok(frame) => on_frame(frame),
            Err(Error::MissingBytes(_)) => {}
            Err(e) => panic!("decoding failed: {e:?}"),
        }
    }
}

/// A frame's bytes, header and payload, as the decoder froze them.
fn bytes(frame: Frame) -> Vec<u8> {
    let mut out = vec![0; frame.encoded_length()];
    frame
        .serialize(&mut out)
        .expect("a decoded frame serializes");
    out
}

/// Decodes `sent` keeping the last `keep` frames (and the first one too if
/// `keep_first`), checks every frame and prints the digest.
fn case(name: &str, sent: &[Vec<u8>], keep: usize, keep_first: bool) {
    let wire: Vec<u8> = sent.concat();
    let mut digest = Digest::default();
    let mut first = None;
    let mut held = VecDeque::new();
    let mut i = 0;
    let done = |frame: Frame, digest: &mut Digest, i: usize| {
        let got = bytes(frame);
        assert!(got == sent[i], "frame {i} differs");
        digest.add(&got);
    };
    let mut decoder = StandardDecoder::<Any>::new();
    decode(&mut decoder, &wire, |frame| {
        if keep_first && i == 0 {
            first = Some(frame);
        } else {
            held.push_back((i, frame));
            if held.len() > keep {
                let (j, old) = held.pop_front().expect("more than keep");
                done(old, &mut digest, j);
            }
        }
        i += 1;
    });
    assert_eq!(i, sent.len(), "frame count");
    for (j, frame) in held {
        done(frame, &mut digest, j);
    }
    if let Some(frame) = first {
        done(frame, &mut digest, 0);
    }
    if !keep_first {
        assert_eq!(digest, Digest::of(sent), "frames out of order");
    }
    println!("{name} {digest}");
}

fn main() {
    let small = small_frames(1, 100_000);
    case("small-dropped-at-once", &small, 0, false);
    case("small-16-held", &small, 16, false);
    case("small-one-held", &small, 0, true);
    case("small-all-held", &small[..3000], 3000, false);
    case("large", &large_frames(2), 0, false);
}
