//! BufferPool next to buffer_sv2's pool, a `Vec` per message, `BytesMut`
//! `split().freeze()` and lockfree-object-pool, on:
//!
//! - buffer_sv2's own single-thread loop: capacity 327,680; 1000 rounds of
//!   two messages of `2^14 - rand(0..12000)` bytes written in 10-byte
//!   `reserve(10)` calls, frozen and dropped;
//! - its threaded loop: each frozen slice goes to a new thread that drops it
//!   after 10 µs (as buffer_sv2 measures it);
//! - k frames held live (the last k kept, the oldest dropped), k = 0, 1, 4,
//!   8, 9, 64, for 64-byte and 1 KiB messages;
//! - a pipeline: one long-lived consumer thread behind a bounded channel of
//!   depth 4 or 64 that checks and drops frames.
//!
//! Heap allocations per message are counted and printed before the timings.
//! Run: `cargo bench -p spool-bench --bench pool`

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::mpsc::sync_channel;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use spool::pool::BufferPool;
use spool_bench::alloc_counter::{allocations, CountingAlloc};
use spool_bench::pool_peers::{
    write_in_tens, BytesMutSplit, MessageBuffer, ObjectPool, Sv2Pool, VecPerMessage,
};
use spool_bench::schedules::{random_bytes, Rng};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const CAPACITY: usize = 327_680;

fn lengths() -> Vec<usize> {
    let mut rng = Rng(7);
    (0..2000)
        .map(|_| (1 << 14) - rng.below(12_000) as usize)
        .collect()
}

/// buffer_sv2's `bench_no_thread`; returns the bytes frozen (checked).
fn sv2_loop(buf: &mut impl MessageBuffer, lens: &[usize], data: &[u8]) -> usize {
    let mut total = 0;
    for (i, &len) in lens.iter().enumerate() {
        write_in_tens(buf, len, &data[i / 2..]);
        total += buf.freeze().as_ref().len();
    }
    total
}

/// buffer_sv2's threaded loop: a thread per frozen slice, dropping it later.
fn sv2_threaded(buf: &mut impl MessageBuffer, lens: &[usize], data: &[u8]) -> usize {
    let mut handles = Vec::with_capacity(lens.len());
    for (i, &len) in lens.iter().enumerate() {
        write_in_tens(buf, len, &data[i / 2..]);
        let frame = buf.freeze();
        handles.push(std::thread::spawn(move || {
            std::thread::sleep(Duration::from_micros(10));
            frame.as_ref().len()
        }));
    }
    handles.into_iter().map(|h| h.join().unwrap()).sum()
}

/// Keeps the last `k` frames alive; returns a checksum of first bytes.
fn hold_k(buf: &mut impl MessageBuffer, k: usize, size: usize, n: usize) -> u64 {
    let mut held = VecDeque::with_capacity(k + 1);
    let mut sum = 0u64;
    for i in 0..n {
        buf.writable(size).fill(i as u8);
        let frame = buf.freeze();
        sum += u64::from(frame.as_ref()[0]);
        held.push_back(frame);
        if held.len() > k {
            let old = held.pop_front().unwrap();
            black_box(old.as_ref()[size - 1]);
        }
    }
    sum
}

/// One consumer thread behind a bounded channel; returns bytes consumed.
fn pipeline<B: MessageBuffer>(buf: &mut B, depth: usize, size: usize, n: usize) -> usize {
    let (tx, rx) = sync_channel::<B::Frame>(depth);
    let consumer = std::thread::spawn(move || {
        let mut bytes = 0;
        for frame in rx {
            let f = frame.as_ref();
            assert!(f[0] == f[f.len() - 1]);
            bytes += f.len();
        }
        bytes
    });
    for i in 0..n {
        buf.writable(size).fill(i as u8);
        tx.send(buf.freeze()).unwrap();
    }
    drop(tx);
    consumer.join().unwrap()
}

fn allocs_per_op(ops: usize, f: impl FnOnce()) -> f64 {
    let before = allocations();
    f();
    (allocations() - before) as f64 / ops as f64
}

macro_rules! each_peer {
    ($f:ident) => {
        [
            ("spool", $f(&mut BufferPool::new(CAPACITY))),
            ("buffer_sv2", $f(&mut Sv2Pool::new(CAPACITY))),
            ("vec", $f(&mut VecPerMessage::default())),
            ("bytesmut", $f(&mut BytesMutSplit::default())),
            ("object-pool", $f(&mut ObjectPool::default())),
        ]
    };
}

fn bench(c: &mut Criterion) {
    let data = random_bytes(1 << 16, 3);
    let lens = lengths();
    let want: usize = lens.iter().map(|l| l / 10 * 10).sum();

    // Allocations per message, after a warm-up round on the same buffer.
    macro_rules! alloc_row {
        ($label:expr, $make:expr, $run:expr, $ops:expr) => {{
            let mut b = $make;
            $run(&mut b);
            allocs_per_op($ops, || {
                $run(&mut b);
            })
        }};
    }
    println!("allocations per message (steady state):");
    for k in [0usize, 1, 4, 8, 9, 64] {
        for size in [64usize, 1024] {
            let n = 20_000;
            let run_spool = |b: &mut BufferPool| hold_k(b, k, size, n);
            let run_sv2 = |b: &mut Sv2Pool| hold_k(b, k, size, n);
            let run_vec = |b: &mut VecPerMessage| hold_k(b, k, size, n);
            let run_bm = |b: &mut BytesMutSplit| hold_k(b, k, size, n);
            let run_op = |b: &mut ObjectPool| hold_k(b, k, size, n);
            println!(
                "  hold k={k:>2} size={size:>4}: spool {:.3}  buffer_sv2 {:.3}  vec {:.3}  bytesmut {:.3}  object-pool {:.3}",
                alloc_row!("spool", BufferPool::new(CAPACITY), run_spool, n),
                alloc_row!("sv2", Sv2Pool::new(CAPACITY), run_sv2, n),
                alloc_row!("vec", VecPerMessage::default(), run_vec, n),
                alloc_row!("bytesmut", BytesMutSplit::default(), run_bm, n),
                alloc_row!("object-pool", ObjectPool::default(), run_op, n),
            );
        }
    }
    for depth in [4usize, 64] {
        let n = 20_000;
        let run = |d| move |b: &mut BufferPool| pipeline(b, d, 1024, n);
        let run_sv2 = |b: &mut Sv2Pool| pipeline(b, depth, 1024, n);
        let run_vec = |b: &mut VecPerMessage| pipeline(b, depth, 1024, n);
        println!(
            "  pipeline depth {depth:>2}, 1 KiB: spool {:.3}  buffer_sv2 {:.3}  vec {:.3}  (channel and thread start included once)",
            alloc_row!("spool", BufferPool::new(CAPACITY), run(depth), n),
            alloc_row!("sv2", Sv2Pool::new(CAPACITY), run_sv2, n),
            alloc_row!("vec", VecPerMessage::default(), run_vec, n),
        );
    }
    let mut spool_pool = BufferPool::new(CAPACITY);
    sv2_loop(&mut spool_pool, &lens, &data);
    println!(
        "  buffer_sv2 loop: spool fallbacks {} of {} messages",
        spool_pool.stats().fallbacks,
        lens.len()
    );

    for (name, total) in each_peer!(sv2_loop_checked) {
        assert_eq!(total, want, "{name}: wrong byte count");
    }
    fn sv2_loop_checked(b: &mut impl MessageBuffer) -> usize {
        let data = random_bytes(1 << 16, 3);
        sv2_loop(b, &lengths(), &data)
    }

    let mut group = c.benchmark_group("pool/buffer_sv2-loop");
    group.throughput(Throughput::Elements(lens.len() as u64));
    group.sample_size(20);
    group.bench_function("spool", |b| {
        b.iter(|| sv2_loop(&mut BufferPool::new(CAPACITY), &lens, &data))
    });
    group.bench_function("buffer_sv2", |b| {
        b.iter(|| sv2_loop(&mut Sv2Pool::new(CAPACITY), &lens, &data))
    });
    group.bench_function("vec", |b| {
        b.iter(|| sv2_loop(&mut VecPerMessage::default(), &lens, &data))
    });
    group.bench_function("bytesmut", |b| {
        b.iter(|| sv2_loop(&mut BytesMutSplit::default(), &lens, &data))
    });
    group.bench_function("object-pool", |b| {
        b.iter(|| sv2_loop(&mut ObjectPool::default(), &lens, &data))
    });
    group.finish();

    let mut group = c.benchmark_group("pool/buffer_sv2-threaded");
    group.throughput(Throughput::Elements(lens.len() as u64));
    group.sample_size(10);
    group.bench_function("spool", |b| {
        b.iter(|| sv2_threaded(&mut BufferPool::new(CAPACITY), &lens, &data))
    });
    group.bench_function("buffer_sv2", |b| {
        b.iter(|| sv2_threaded(&mut Sv2Pool::new(CAPACITY), &lens, &data))
    });
    group.bench_function("vec", |b| {
        b.iter(|| sv2_threaded(&mut VecPerMessage::default(), &lens, &data))
    });
    group.finish();

    for size in [64usize, 1024] {
        let mut group = c.benchmark_group(format!("pool/hold-k-{size}B"));
        let n = 10_000;
        group.throughput(Throughput::Elements(n as u64));
        group.sample_size(20);
        for k in [0usize, 1, 4, 8, 9, 64] {
            group.bench_function(BenchmarkId::new("spool", k), |b| {
                let mut p = BufferPool::new(CAPACITY);
                b.iter(|| hold_k(&mut p, k, size, n))
            });
            group.bench_function(BenchmarkId::new("buffer_sv2", k), |b| {
                let mut p = Sv2Pool::new(CAPACITY);
                b.iter(|| hold_k(&mut p, k, size, n))
            });
            group.bench_function(BenchmarkId::new("vec", k), |b| {
                let mut p = VecPerMessage::default();
                b.iter(|| hold_k(&mut p, k, size, n))
            });
            group.bench_function(BenchmarkId::new("bytesmut", k), |b| {
                let mut p = BytesMutSplit::default();
                b.iter(|| hold_k(&mut p, k, size, n))
            });
            group.bench_function(BenchmarkId::new("object-pool", k), |b| {
                let mut p = ObjectPool::default();
                b.iter(|| hold_k(&mut p, k, size, n))
            });
        }
        group.finish();
    }

    let mut group = c.benchmark_group("pool/pipeline-1KiB");
    let n = 20_000;
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(10);
    for depth in [4usize, 64] {
        group.bench_function(BenchmarkId::new("spool", depth), |b| {
            let mut p = BufferPool::new(CAPACITY);
            b.iter(|| assert_eq!(pipeline(&mut p, depth, 1024, n), n * 1024))
        });
        group.bench_function(BenchmarkId::new("buffer_sv2", depth), |b| {
            let mut p = Sv2Pool::new(CAPACITY);
            b.iter(|| assert_eq!(pipeline(&mut p, depth, 1024, n), n * 1024))
        });
        group.bench_function(BenchmarkId::new("vec", depth), |b| {
            let mut p = VecPerMessage::default();
            b.iter(|| assert_eq!(pipeline(&mut p, depth, 1024, n), n * 1024))
        });
        group.bench_function(BenchmarkId::new("bytesmut", depth), |b| {
            let mut p = BytesMutSplit::default();
            b.iter(|| assert_eq!(pipeline(&mut p, depth, 1024, n), n * 1024))
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
