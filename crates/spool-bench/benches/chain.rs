//! `BufList` decoding (the bench keeps its first name, `chain`, so results
//! stay comparable): one large STRING token arriving in 4 KiB chunks (sizes
//! 1 KB to 256 MiB, 1 GiB with `SPOOL_BENCH_HUGE=1`), and 400,000 small INT
//! tokens in one buffer or in 64 KiB / 1 MiB chunks. Peers in the same
//! group: a `BytesMut` accumulator (tokio-util's way), a `VecDeque<u8>`,
//! the quadratic flat-buffer receiver (sizes capped at 1 MiB) and a floor
//! that copies the payload once. Every peer's tokens are checked first;
//! allocations per token are printed for the INT case.
//!
//! Run: `cargo bench -p spool-bench --bench chain`

use std::hint::black_box;

use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, Throughput};
use spool::codec::banana::{encode, Token};
use spool_bench::alloc_counter::{allocations, CountingAlloc};
use spool_bench::chain_peers::{
    chunked, int_tokens, receive, BufListReceiver, BytesMutReceiver, Decoded, FlatReceiver,
    Receiver, VecDequeReceiver,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn check<R: Receiver>(name: &str, mut r: R, chunks: &[Bytes], want: &[Decoded]) {
    let mut out = Vec::new();
    receive(&mut r, chunks, &mut out);
    assert!(out == want, "{name}: wrong tokens");
}

fn large_string(c: &mut Criterion) {
    let mut sizes = vec![1_000, 64 << 10, 1 << 20, 16 << 20, 256 << 20];
    if std::env::var_os("SPOOL_BENCH_HUGE").is_some() {
        sizes.push(1 << 30);
    }
    let mut group = c.benchmark_group("chain/large-string-4KiB-chunks");
    group.sample_size(10);
    for size in sizes {
        let mut wire = Vec::with_capacity(size + 16);
        encode(&Token::String(Bytes::from(vec![b'z'; size])), &mut wire);
        let chunks = chunked(&wire, 4096);
        drop(wire);
        let want = [Decoded::String(size, b'z')];
        check("spool", BufListReceiver::default(), &chunks, &want);
        check("bytesmut", BytesMutReceiver::default(), &chunks, &want);
        check("vecdeque", VecDequeReceiver::default(), &chunks, &want);
        group.throughput(Throughput::Bytes(size as u64));
        let mut out = Vec::new();
        group.bench_function(BenchmarkId::new("spool", size), |b| {
            b.iter(|| receive(&mut BufListReceiver::default(), &chunks, &mut out))
        });
        group.bench_function(BenchmarkId::new("bytesmut", size), |b| {
            b.iter(|| receive(&mut BytesMutReceiver::default(), &chunks, &mut out))
        });
        group.bench_function(BenchmarkId::new("vecdeque", size), |b| {
            b.iter(|| receive(&mut VecDequeReceiver::default(), &chunks, &mut out))
        });
        if size <= 1 << 20 {
            check("flat", FlatReceiver::default(), &chunks, &want);
            group.bench_function(BenchmarkId::new("flat", size), |b| {
                b.iter(|| receive(&mut FlatReceiver::default(), &chunks, &mut out))
            });
        }
        group.bench_function(BenchmarkId::new("memcpy-floor", size), |b| {
            b.iter(|| {
                let mut v = Vec::with_capacity(size + 16);
                for ch in &chunks {
                    v.extend_from_slice(ch);
                }
                black_box(v.len())
            })
        });
    }
    group.finish();
}

fn int_token_bench(c: &mut Criterion) {
    const COUNT: usize = 400_000;
    let (wire, want) = int_tokens(COUNT, 42);
    let mut group = c.benchmark_group("chain/400k-int-tokens");
    group.sample_size(10);
    group.throughput(Throughput::Elements(COUNT as u64));
    for (label, size) in [
        ("one-buffer", wire.len()),
        ("64KiB", 64 << 10),
        ("1MiB", 1 << 20),
    ] {
        let chunks = chunked(&wire, size);
        check("spool", BufListReceiver::default(), &chunks, &want);
        check("bytesmut", BytesMutReceiver::default(), &chunks, &want);
        check("vecdeque", VecDequeReceiver::default(), &chunks, &want);
        let mut out = Vec::with_capacity(COUNT);
        let per_token = |f: &mut dyn FnMut(&mut Vec<Decoded>)| {
            let mut out = Vec::with_capacity(COUNT);
            let before = allocations();
            f(&mut out);
            (allocations() - before) as f64 / COUNT as f64
        };
        println!(
            "400k INT tokens, {label}: allocations per token: spool {:.4}, bytesmut {:.4}, vecdeque {:.4}",
            per_token(&mut |o| receive(&mut BufListReceiver::default(), &chunks, o)),
            per_token(&mut |o| receive(&mut BytesMutReceiver::default(), &chunks, o)),
            per_token(&mut |o| receive(&mut VecDequeReceiver::default(), &chunks, o)),
        );
        group.bench_function(BenchmarkId::new("spool", label), |b| {
            b.iter(|| receive(&mut BufListReceiver::default(), &chunks, &mut out))
        });
        group.bench_function(BenchmarkId::new("bytesmut", label), |b| {
            b.iter(|| receive(&mut BytesMutReceiver::default(), &chunks, &mut out))
        });
        group.bench_function(BenchmarkId::new("vecdeque", label), |b| {
            b.iter(|| receive(&mut VecDequeReceiver::default(), &chunks, &mut out))
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    large_string(&mut c);
    int_token_bench(&mut c);
    c.final_summary();
}
