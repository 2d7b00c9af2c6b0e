//! Plain (unencrypted) frames through codec_sv2's `Encoder` and `Decoder`.

use codec_sv2::{Decoded, Decoder, Encoder, SerializedFrame};
use framing_sv2::framing::SerializedFrame as RawFrame;

/// Encodes `frames` with codec_sv2's `Encoder` (its output is the buffer's
/// slice type) into one byte stream.
pub fn encode(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut encoder = Encoder::new();
    let mut wire = Vec::new();
    for frame in frames {
        let raw = RawFrame::from_bytes(frame.clone()).expect("a whole frame");
        let encoded = encoder.encode(raw).expect("encodes");
        wire.extend_from_slice(encoded.as_ref());
    }
    wire
}

/// Feeds `wire` to `decoder` the way a reader does (exactly `writable()`
/// bytes at a time) and hands every frame to `on_frame`.
///
/// # Panics
///
/// If the codec reports an error or the stream ends inside a frame.
pub fn decode(decoder: &mut Decoder, wire: &[u8], mut on_frame: impl FnMut(SerializedFrame)) {
    let mut at = 0;
    loop {
        match decoder.next_frame().expect("decodes") {
            Decoded::Frame(frame) => on_frame(frame),
            Decoded::Incomplete(_) if at == wire.len() => return,
            Decoded::Incomplete(_) => {
                let window = decoder.writable();
                let n = window.len();
                window.copy_from_slice(&wire[at..at + n]);
                at += n;
            }
        }
    }
}
