//! Noise frames: the handshake through codec_sv2's `NoiseEncoder` and
//! `NoiseDecoder`, then encrypted frames, all on the buffer under test.
//! The keys and the handshake's randomness come from a seeded RNG and the
//! clock is fixed, so the ciphertext is the same in every build.

use codec_sv2::{
    Decoded, Decrypted, Handshake, InitiatorSent, NoiseDecoder, NoiseEncoder, SerializedFrame,
    TransportDecryptState, TransportEncryptState,
};
use framing_sv2::framing::SerializedFrame as RawFrame;
use noise_sv2::{Initiator, Responder};
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::Digest;

/// A fixed "now" for the certificate, inside its validity.
const NOW: u32 = 1_800_000_000;

/// The two halves a completed handshake leaves for one direction, and the
/// digest of the two handshake messages as they went over the wire.
pub struct Session {
    /// The initiator's encrypting half.
    pub sender: TransportEncryptState,
    /// The responder's decrypting half.
    pub receiver: TransportDecryptState,
    /// Both handshake messages, as encoded.
    pub handshake: Digest,
}

/// Feeds `wire` to the decoder through `writable()` until `step` returns
/// a result; `step` gets the decoder after each read.
fn read_until<T>(
    decoder: &mut NoiseDecoder,
    wire: &[u8],
    at: &mut usize,
    mut step: impl FnMut(&mut NoiseDecoder) -> Option<T>,
) -> T {
    loop {
        if let Some(done) = step(decoder) {
            return done;
        }
        let window = decoder.writable();
        let n = window.len();
        window.copy_from_slice(&wire[*at..*at + n]);
        *at += n;
    }
}

/// Runs the Noise NX handshake between an initiator and a responder whose
/// messages go through `NoiseEncoder::encode_handshake` and
/// `NoiseDecoder::next_handshake_frame`.
pub fn handshake(seed: u64) -> Session {
    let mut rng = StdRng::seed_from_u64(seed);
    let secp = secp256k1::Secp256k1::new();
    let authority = secp256k1::Keypair::new(&secp, &mut rng);
    let initiator = Handshake::initiator(Initiator::new_with_rng(
        Some(authority.x_only_public_key().0),
        &mut rng,
    ));
    let responder = Handshake::responder(Responder::new_with_rng(authority, 3600, &mut rng));
    let mut digest = Digest::default();
    // Each side's encoder and decoder outlive the messages they make:
    // buffer_sv2's pool waits in `Drop` for its slices.
    let (mut initiator_encoder, mut initiator_decoder) = (NoiseEncoder::new(), NoiseDecoder::new());
    let (mut responder_encoder, mut responder_decoder) = (NoiseEncoder::new(), NoiseDecoder::new());

    let (message, initiator) = initiator.step_0().expect("step 0");
    let wire = initiator_encoder.encode_handshake(message);
    digest.add(wire.as_ref());
    let message = read_until(&mut responder_decoder, wire.as_ref(), &mut 0, |d| {
        match d.next_handshake_frame::<Responder>().expect("handshake") {
            Decoded::Frame(message) => Some(message),
            Decoded::Incomplete(_) => None,
        }
    });
    drop(wire);
    let (reply, responder) = responder
        .step_1_with_now_rng(message.payload().try_into().unwrap(), NOW, &mut rng)
        .expect("step 1");

    let wire = responder_encoder.encode_handshake(reply);
    digest.add(wire.as_ref());
    let reply = read_until(&mut initiator_decoder, wire.as_ref(), &mut 0, |d| {
        match d
            .next_handshake_frame::<InitiatorSent>()
            .expect("handshake")
        {
            Decoded::Frame(message) => Some(message),
            Decoded::Incomplete(_) => None,
        }
    });
    drop(wire);
    let initiator = initiator
        .step_2_with_now(reply.payload().try_into().unwrap(), NOW)
        .expect("step 2");
    let (sender, _) = initiator.split();
    let (_, receiver) = responder.split();
    Session {
        sender,
        receiver,
        handshake: digest,
    }
}

/// Encrypts `frames` with `NoiseEncoder::encode_transport` into one byte
/// stream.
pub fn encode(sender: &mut TransportEncryptState, frames: &[Vec<u8>]) -> Vec<u8> {
    let mut encoder = NoiseEncoder::new();
    let mut wire = Vec::new();
    for frame in frames {
        let raw = RawFrame::from_bytes(frame.clone()).expect("a whole frame");
        let sealed = encoder.encode_transport(raw, sender).expect("encrypts");
        wire.extend_from_slice(sealed.as_ref());
    }
    wire
}

/// Decrypts `wire` with `decoder`, reading exactly `writable()` bytes at a
/// time, and hands every frame to `on_frame`; returns the decrypting state.
///
/// # Panics
///
/// If the codec reports an error or the stream ends inside a frame.
pub fn decode(
    decoder: &mut NoiseDecoder,
    mut receiver: TransportDecryptState,
    wire: &[u8],
    mut on_frame: impl FnMut(SerializedFrame),
) -> TransportDecryptState {
    let mut at = 0;
    loop {
        match decoder.next_transport_frame(receiver).expect("decrypts") {
            Decrypted::Frame(frame, state) => {
                on_frame(frame);
                receiver = state;
            }
            Decrypted::Incomplete(_, state) if at == wire.len() => return state,
            Decrypted::Incomplete(_, state) => {
                receiver = state;
                let window = decoder.writable();
                let n = window.len();
                window.copy_from_slice(&wire[at..at + n]);
                at += n;
            }
        }
    }
}
