//! gzip and zstd input decoding: whatever the bytes — plain, a valid
//! stream, a stream with bytes flipped, cut short or with garbage after
//! it — reading them through `input::decompress` and the `ChunkReader`
//! never panics; an error says where reading stopped (byte offset and
//! line); and an intact stream reads back exactly.
#![no_main]

use std::cell::RefCell;

use flate2::{Compress, Crc, FlushCompress, Status};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_io::input::decompress;
use spool_io::read::{ChunkReader, ReadOptions};

/// Decompressed bytes read before a run stops (a small stream can expand
/// to gigabytes: reading that far tests nothing more). Sixteen times the
/// largest input the fuzzer writes (4 KiB by default), so an intact
/// stream always reads back whole; each buffer filled is a hand-off to
/// the read-ahead thread, so a larger limit only adds context switches.
const READ_LIMIT: usize = 64 << 10;

#[derive(Arbitrary, Debug)]
struct Input {
    /// 0: `data` as is; 1: gzip of `data`; 2: zstd of `data`; 3: two gzip
    /// members; 4: two zstd frames.
    wrap: u8,
    data: Vec<u8>,
    /// Bytes to flip in the wrapped stream: (position, xor).
    flips: Vec<(u16, u8)>,
    /// Cut the wrapped stream to this length (when shorter).
    cut: Option<u16>,
    tail: Vec<u8>,
    buffer_len: u8,
}

thread_local! {
    /// The harness's encoders, reset for every stream: a deflate or zstd
    /// context costs more to set up (hundreds of KiB cleared) than a run,
    /// and only the decoding side is under test.
    static DEFLATE: RefCell<Compress> = RefCell::new(Compress::new(flate2::Compression::fast(), false));
    static ZSTD: RefCell<zstd::bulk::Compressor<'static>> =
        RefCell::new(zstd::bulk::Compressor::new(1).expect("a zstd context"));
}

/// One gzip member (RFC 1952: header, raw deflate, CRC-32, length).
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    DEFLATE.with_borrow_mut(|deflate| {
        deflate.reset();
        let mut rest = data;
        loop {
            out.reserve(rest.len() + 64);
            let before = deflate.total_in();
            let status = deflate
                .compress_vec(rest, &mut out, FlushCompress::Finish)
                .expect("deflate");
            rest = &rest[(deflate.total_in() - before) as usize..];
            if status == Status::StreamEnd {
                break;
            }
        }
    });
    let mut crc = Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn zstd1(data: &[u8]) -> Vec<u8> {
    ZSTD.with_borrow_mut(|z| z.compress(data).expect("zstd"))
}

fuzz_target!(|input: Input| {
    let half = input.data.len() / 2;
    let mut stream = match input.wrap % 5 {
        0 => input.data.clone(),
        1 => gzip(&input.data),
        2 => zstd1(&input.data),
        3 => [gzip(&input.data[..half]), gzip(&input.data[half..])].concat(),
        _ => [zstd1(&input.data[..half]), zstd1(&input.data[half..])].concat(),
    };
    let mut intact = input.wrap % 5 != 0;
    for &(at, xor) in &input.flips {
        let at = usize::from(at);
        if at < stream.len() && xor != 0 {
            stream[at] ^= xor;
            intact = false;
        }
    }
    if let Some(cut) = input.cut.map(usize::from).filter(|&c| c < stream.len()) {
        stream.truncate(cut);
        intact = false;
    }
    if !input.tail.is_empty() {
        stream.extend_from_slice(&input.tail);
        intact = false;
    }

    let raw: Box<dyn std::io::Read + Send> = Box::new(std::io::Cursor::new(stream));
    let reader = match decompress(raw) {
        Ok((reader, _)) => reader,
        Err(e) => {
            assert!(!intact, "an intact stream failed to open: {e}");
            return;
        }
    };
    let options = ReadOptions {
        buffers: 2,
        buffer_len: 256 + usize::from(input.buffer_len) * 16,
        delimiter: b'\n',
        max_record_len: READ_LIMIT,
        ..ReadOptions::default()
    };
    let mut chunks = ChunkReader::new(reader, options);
    let mut got = Vec::new();
    loop {
        match chunks.next_block() {
            Ok(Some(block)) => {
                got.extend_from_slice(&block);
                if got.len() > READ_LIMIT {
                    return;
                }
            }
            Ok(None) => break,
            Err(e) => {
                assert!(
                    !intact || e.kind() == std::io::ErrorKind::InvalidData,
                    "{e}"
                );
                let msg = e.to_string();
                assert!(msg.contains("byte offset"), "error not located: {msg}");
                return;
            }
        }
    }
    if intact {
        assert_eq!(got, input.data);
    }
});
