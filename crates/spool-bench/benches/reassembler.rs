//! Reassembler throughput, spool next to s2n-quic-core, smoltcp, a textbook
//! BTreeMap reassembler, the copy floor (each unique byte copied in once and
//! out once, nothing else: see `spool_bench::reassembler_floor`) and a
//! drop-everything harness floor, on the CS144 speed schedule and on a
//! realistic lossy network. Every peer's output is checked against the
//! stream before it is timed, and heap allocations per insert are counted
//! and printed first.
//!
//! Run: `cargo bench -p spool-bench --bench reassembler`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use spool_bench::alloc_counter::{allocations, CountingAlloc};
use spool_bench::reassembler_floor::{CopyFloor, FloorPlan};
use spool_bench::reassembler_peers::{
    run, BTreeMapPeer, DropAll, Peer, S2nPeer, SmoltcpPeer, SpoolPeer,
};
use spool_bench::schedules::{bench_schedules, Schedule};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

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
    for (name, s) in bench_schedules() {
        let plan = FloorPlan::new(&s);
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
        check_and_count("copy-floor", || CopyFloor::new(&plan), &s);
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
        peer!("copy-floor", CopyFloor::new(&plan));
        peer!("drop-all", DropAll);
        group.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
