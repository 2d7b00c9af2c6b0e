//! Decoding 40-digit SHA-1 hashes, as the index build does for every line
//! of the Have I Been Pwned corpus: spool's decoder (one pass that checks
//! and decodes, 16 digits at a time with SSE2) next to `faster-hex` (the
//! crate the build used before; it checks, then decodes) and a plain
//! per-digit decoder. 100,000 hashes, mixed case; every decoder's output is
//! checked against the plain one before timing.
//!
//! Run: `cargo bench -p spool-bench --bench hex_decode`

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use spool_pwned::sample::sample_password;
use spool_pwned::{to_hex, HashKind};

fn plain(hex: &[u8], out: &mut [u8]) -> bool {
    for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        match (
            (pair[0] as char).to_digit(16),
            (pair[1] as char).to_digit(16),
        ) {
            (Some(h), Some(l)) => *byte = (h << 4 | l) as u8,
            _ => return false,
        }
    }
    hex.len() == 2 * out.len()
}

type Decoder = fn(&[u8], &mut [u8]) -> bool;

fn decode_all(hashes: &[[u8; 40]], decode: Decoder) -> Vec<[u8; 20]> {
    hashes
        .iter()
        .map(|h| {
            let mut out = [0u8; 20];
            assert!(decode(h, &mut out));
            out
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let hashes: Vec<[u8; 40]> = (0..100_000u64)
        .map(|i| {
            let hex = to_hex(&HashKind::Sha1.hash_password(&sample_password(1, i)));
            let hex = if i % 2 == 0 { hex.to_lowercase() } else { hex };
            hex.as_bytes().try_into().expect("40 digits")
        })
        .collect();
    let want = decode_all(&hashes, plain);
    let decoders: [(&str, Decoder); 3] = [
        ("spool", |h, o| spool_pwned::text::hex::decode(h, o).is_ok()),
        ("faster-hex", |h, o| faster_hex::hex_decode(h, o).is_ok()),
        ("plain to_digit", plain),
    ];
    let mut group = c.benchmark_group("hex_decode_40_digits");
    group.throughput(Throughput::Elements(hashes.len() as u64));
    for (name, decode) in decoders {
        assert_eq!(decode_all(&hashes, decode), want, "{name} decodes wrongly");
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut acc = 0u8;
                let mut out = [0u8; 20];
                for h in &hashes {
                    decode(black_box(h), &mut out);
                    acc ^= out[7];
                }
                black_box(acc)
            })
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
