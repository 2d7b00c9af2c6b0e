//! Runs one benchmark workload a fixed number of times, for instruction
//! counts under callgrind (repeatable on a busy machine, unlike timings):
//!
//! ```text
//! cargo build --profile bench -p spool-bench --example profile
//! valgrind --tool=callgrind --toggle-collect='spool_bench::*::run*' \
//!     --toggle-collect='spool_bench::*::pump*' \
//!     target/release/examples/profile reassembler spool cs144/no-overlap 20
//! valgrind --tool=callgrind --toggle-collect='spool_bench::*::pump*' \
//!     target/release/examples/profile stream spool 128 20
//! ```
//!
//! Reassemblers: spool, smoltcp, s2n-quic, btreemap, copy-floor; schedules
//! as in `benches/reassembler.rs`. Pipes: spool, vecdeque, copy-floor, with
//! the read size of `benches/stream.rs`. Every run's output is checked.
//!
//! `profile rounds SCHEDULE [ROUNDS]` times spool, smoltcp and the copy floor
//! interleaved (one run of each per round) and prints each one's median and
//! minimum: a quick check between criterion runs that drifts less on a
//! shared machine than timing one peer after another.

use std::process::ExitCode;

use spool::stream::ByteStream;
use spool_bench::reassembler_floor::{CopyFloor, FloorPlan};
use spool_bench::reassembler_peers::{run, BTreeMapPeer, Peer, S2nPeer, SmoltcpPeer, SpoolPeer};
use spool_bench::schedules::{bench_schedules, random_bytes, Schedule};
use spool_bench::stream_peers::{pump, CopyPipe, Pipe, VecDequePipe};

fn reassemble<P: Peer>(s: &Schedule, iters: usize, make: impl Fn() -> P) {
    let mut out = Vec::with_capacity(s.data.len());
    for _ in 0..iters {
        run(&mut make(), s, &mut out);
        assert!(out == s.data, "output differs from the stream");
    }
}

fn pipe<P: Pipe>(read: usize, iters: usize, make: impl Fn() -> P) {
    let data = random_bytes(10_000_000, 99);
    let mut out = Vec::with_capacity(data.len());
    for _ in 0..iters {
        pump(&mut make(), &data, 1500, read, &mut out);
        assert!(out == data, "output differs from the input");
    }
}

/// Times one run of `peer`, output checked.
fn once<P: Peer>(s: &Schedule, out: &mut Vec<u8>, mut peer: P) -> std::time::Duration {
    let t = std::time::Instant::now();
    run(&mut peer, s, out);
    let elapsed = t.elapsed();
    assert!(*out == s.data, "output differs from the stream");
    elapsed
}

fn rounds(s: &Schedule, rounds: usize) {
    let cap = s.capacity;
    let plan = FloorPlan::new(s);
    let mut out = Vec::with_capacity(s.data.len());
    let mut times = [const { Vec::new() }; 3];
    for round in 0..rounds {
        // Rotate who goes first, so no peer always follows the same one.
        for k in 0..3 {
            let peer = (round + k) % 3;
            times[peer].push(match peer {
                0 => once(s, &mut out, SpoolPeer::new(cap)),
                1 => once(s, &mut out, SmoltcpPeer::new(cap)),
                _ => once(s, &mut out, CopyFloor::new(&plan)),
            });
        }
    }
    for (name, t) in ["spool", "smoltcp", "copy-floor"].iter().zip(&mut times) {
        t.sort();
        println!("{name:>10}: median {:?}, min {:?}", t[t.len() / 2], t[0]);
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, peer, case, rest @ ..] = args.as_slice() else {
        eprintln!("usage: profile reassembler|stream PEER SCHEDULE|READ [ITERATIONS]");
        return ExitCode::FAILURE;
    };
    let iters = rest
        .first()
        .map_or(10, |n| n.parse().expect("a number of iterations"));
    if kind == "rounds" {
        let Some((_, s)) = bench_schedules().into_iter().find(|(n, _)| n == peer) else {
            eprintln!("unknown schedule {peer}");
            return ExitCode::FAILURE;
        };
        rounds(&s, case.parse().expect("a number of rounds"));
        return ExitCode::SUCCESS;
    }
    match kind.as_str() {
        "reassembler" => {
            let Some((_, s)) = bench_schedules().into_iter().find(|(n, _)| n == case) else {
                eprintln!("unknown schedule {case}");
                return ExitCode::FAILURE;
            };
            let cap = s.capacity;
            let plan = FloorPlan::new(&s);
            match peer.as_str() {
                "spool" => reassemble(&s, iters, || SpoolPeer::new(cap)),
                "smoltcp" => reassemble(&s, iters, || SmoltcpPeer::new(cap)),
                "s2n-quic" => reassemble(&s, iters, || S2nPeer::new(cap)),
                "btreemap" => reassemble(&s, iters, || BTreeMapPeer::new(cap)),
                "copy-floor" => reassemble(&s, iters, || CopyFloor::new(&plan)),
                _ => {
                    eprintln!("unknown reassembler {peer}");
                    return ExitCode::FAILURE;
                }
            }
        }
        "stream" => {
            let read = case.parse().expect("a read size");
            match peer.as_str() {
                "spool" => pipe(read, iters, || ByteStream::new(32_768)),
                "vecdeque" => pipe(read, iters, || VecDequePipe::new(32_768)),
                "copy-floor" => pipe(read, iters, || CopyPipe::new(32_768)),
                _ => {
                    eprintln!("unknown pipe {peer}");
                    return ExitCode::FAILURE;
                }
            }
        }
        _ => {
            eprintln!("unknown workload {kind}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
