//! The block encoder against the standard decoders: whatever the writes,
//! chunk size and codec, the blocks a `BlockEncoder` produces — once per
//! write, and once per chunk of a power-of-two size, as the partition
//! engine's writers cut them — decode with `zstd`'s and `flate2`'s stream
//! readers (which read concatenated frames/members) to exactly the bytes
//! written.
#![no_main]

use std::io::Read;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_io::write::{BlockEncoder, Compression};

#[derive(Arbitrary, Debug)]
struct Input {
    codec: u8,
    level: u8,
    /// Chunk length as a power of two, 2^6 … 2^13.
    chunk_log: u8,
    writes: Vec<Vec<u8>>,
}

fn decode(compression: Compression, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if bytes.is_empty() {
        return out; // no frames: nothing was written
    }
    match compression {
        Compression::None => out.extend_from_slice(bytes),
        Compression::Zstd(_) => {
            zstd::stream::read::Decoder::new(bytes)
                .expect("decoder")
                .read_to_end(&mut out)
                .expect("zstd output decodes");
        }
        Compression::Gzip(_) => {
            flate2::read::MultiGzDecoder::new(bytes)
                .read_to_end(&mut out)
                .expect("gzip output decodes");
        }
    }
    out
}

fuzz_target!(|input: Input| {
    // Low levels only: the levels change the encoder's effort, not the
    // framing this target checks, and keep each run fast.
    let compression = match input.codec % 3 {
        0 => Compression::None,
        1 => Compression::Zstd(i32::from(input.level % 3) + 1),
        _ => Compression::Gzip(u32::from(input.level % 6) + 1),
    };
    let written: Vec<u8> = input.writes.concat();

    let chunk_len = 1usize << (6 + input.chunk_log % 8);
    let mut encoder = BlockEncoder::new(compression).expect("encoder");
    let mut file = Vec::new();
    for piece in written.chunks(chunk_len) {
        file.extend_from_slice(encoder.encode(piece).expect("encode"));
    }
    assert_eq!(decode(compression, &file), written, "BlockEncoder by chunk");

    let mut encoder = BlockEncoder::new(compression).expect("encoder");
    let mut file = Vec::new();
    for w in &input.writes {
        file.extend_from_slice(encoder.encode(w).expect("encode"));
    }
    assert_eq!(decode(compression, &file), written, "BlockEncoder");
});
