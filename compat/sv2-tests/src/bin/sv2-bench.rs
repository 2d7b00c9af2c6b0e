//! Decoding speed of codec_sv2 on this build's buffer: 1,000,000 frames of
//! 41 bytes on average (a 6-byte header and a 0–70-byte payload), plain and
//! Noise, each frame dropped at once or the last 16 kept alive (a role
//! holding a queue of shares), and plain with the first frame kept alive
//! while all the others drop at once (a pool that reclaims its slots only
//! in order sends every frame after that one to the heap). Prints one line per case with nanoseconds
//! per frame, after checking that every frame and every byte came out and
//! that the last frame is the one sent.
//!
//! `sv2-bench [FRAMES]`. scripts/bench-sv2.sh builds it on every buffer,
//! runs the builds alternately under `benchlock` and takes medians.
//! `SV2_BENCH_CASE=TEXT` runs only the cases whose name contains TEXT
//! (to count one case's instructions under callgrind, say).

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Instant;

use codec_sv2::{Decoder, NoiseDecoder, SerializedFrame};
use sv2_tests::{buffer_name, noise, plain, small_frames};

/// Where decoded frames go: counted, the last one copied, and either
/// dropped at once or kept in a queue of `keep`; with `keep_first`, the
/// first frame is kept until the end (a long-lived frame in front of all
/// the short-lived ones).
struct Sink {
    keep: usize,
    keep_first: bool,
    first: Option<SerializedFrame>,
    held: VecDeque<SerializedFrame>,
    frames: u64,
    bytes: u64,
    want_frames: u64,
    last: Vec<u8>,
}

impl Sink {
    fn take(&mut self, frame: SerializedFrame) {
        self.frames += 1;
        self.bytes += frame.as_bytes().len() as u64;
        if self.frames == self.want_frames {
            self.last = frame.as_bytes().to_vec();
        }
        if self.keep_first && self.first.is_none() {
            self.first = Some(frame);
        } else if self.keep > 0 {
            self.held.push_back(frame);
            if self.held.len() > self.keep {
                black_box(self.held.pop_front());
            }
        } else {
            black_box(frame);
        }
    }
}

/// Times `decode` (which hands every frame to the sink), checks that all
/// of `sent` came out, and prints nanoseconds per frame. The sink, and the
/// frames it holds, are dropped before this returns.
fn timed(
    case: &str,
    (keep, keep_first): (usize, bool),
    sent: &[Vec<u8>],
    decode: impl FnOnce(&mut Sink),
) {
    if std::env::var("SV2_BENCH_CASE").is_ok_and(|only| !case.contains(&only)) {
        return;
    }
    let mut sink = Sink {
        keep,
        keep_first,
        first: None,
        held: VecDeque::with_capacity(keep + 1),
        frames: 0,
        bytes: 0,
        want_frames: sent.len() as u64,
        last: Vec::new(),
    };
    let start = Instant::now();
    decode(&mut sink);
    let elapsed = start.elapsed();
    let (frames, bytes) = (sink.frames, sink.bytes);
    let want: u64 = sent.iter().map(|f| f.len() as u64).sum();
    assert_eq!(frames, sent.len() as u64, "{case}: frames");
    assert_eq!(bytes, want, "{case}: bytes");
    assert!(sink.last == *sent.last().unwrap(), "{case}: last frame");
    println!(
        "{} | {case} | {:.1} ns/frame | frames={frames} bytes={bytes}",
        buffer_name(),
        elapsed.as_nanos() as f64 / frames as f64
    );
}

fn main() {
    let count = std::env::args()
        .nth(1)
        .map_or(1_000_000, |n| n.parse().expect("FRAMES is a number"));
    let sent = small_frames(42, count);
    let wire = plain::encode(&sent);
    let mut session = noise::handshake(43);
    let sealed = noise::encode(&mut session.sender, &sent);
    let mut receiver = Some(session.receiver);
    for (held, keep) in [
        ("dropped at once", (0, false)),
        ("16 kept alive", (16, false)),
        ("first kept alive", (0, true)),
    ] {
        // The decoder outlives the frames the sink holds: buffer_sv2's
        // pool would spin in `Drop` otherwise.
        let mut decoder = Decoder::new();
        timed(&format!("plain, {held}"), keep, &sent, |sink| {
            plain::decode(&mut decoder, &wire, |f| sink.take(f))
        });
    }
    // A Noise session's decrypting state goes one way: decrypt the stream
    // once per case from a fresh handshake with the same seed.
    for keep in [0, 16] {
        let held = if keep == 0 {
            "dropped at once"
        } else {
            "16 kept alive"
        };
        let state = receiver
            .take()
            .unwrap_or_else(|| noise::handshake(43).receiver);
        let mut decoder = NoiseDecoder::new();
        timed(&format!("noise, {held}"), (keep, false), &sent, |sink| {
            noise::decode(&mut decoder, state, &sealed, |f| sink.take(f));
        });
    }
}
