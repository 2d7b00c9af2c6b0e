//! One 64 KiB block of the partition benchmark's TSV, compressed as one
//! self-contained gzip member or zstd frame — what `spool partition` does per
//! block. spool's encoder (libdeflate for gzip, zstd's bulk API) next to
//! `flate2` with the `zlib-rs` backend (the fastest `flate2` backend) at the
//! same levels, and `zstd`'s streaming encoder.
//!
//! Run: `cargo bench -p spool-bench --bench block_encode`

use std::hint::black_box;
use std::io::Write;

use criterion::{BenchmarkId, Criterion, Throughput};
use spool_io::write::{BlockEncoder, Compression};

fn block() -> Vec<u8> {
    let mut data = Vec::new();
    spool_bench::tsv_sample::write_sample(&mut data, 64 << 10, 1000, 9).unwrap();
    data.truncate(64 << 10);
    data
}

fn bench(c: &mut Criterion) {
    let data = block();
    let mut group = c.benchmark_group("block_encode_64KiB");
    group.throughput(Throughput::Bytes(data.len() as u64));
    for level in [1u32, 6] {
        let mut spool = BlockEncoder::new(Compression::Gzip(level)).unwrap();
        group.bench_function(BenchmarkId::new("gzip spool (libdeflate)", level), |b| {
            b.iter(|| black_box(spool.encode(black_box(&data)).unwrap().len()))
        });
        group.bench_function(BenchmarkId::new("gzip flate2 zlib-rs", level), |b| {
            b.iter(|| {
                let mut enc = flate2::write::GzEncoder::new(
                    Vec::with_capacity(data.len()),
                    flate2::Compression::new(level),
                );
                enc.write_all(black_box(&data)).unwrap();
                black_box(enc.finish().unwrap().len())
            })
        });
    }
    let mut spool = BlockEncoder::new(Compression::Zstd(3)).unwrap();
    group.bench_function(BenchmarkId::new("zstd spool (bulk)", 3), |b| {
        b.iter(|| black_box(spool.encode(black_box(&data)).unwrap().len()))
    });
    group.bench_function(BenchmarkId::new("zstd stream encoder", 3), |b| {
        b.iter(|| black_box(zstd::encode_all(black_box(&data[..]), 3).unwrap().len()))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
