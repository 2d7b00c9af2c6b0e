//! Runs one benchmark workload a fixed number of times, for instruction
//! counts under callgrind (repeatable on a busy machine, unlike timings):
//!
//! ```text
//! cargo build --profile bench -p spool-bench --example profile
//! valgrind --tool=callgrind --toggle-collect='spool_bench::reassembler_peers::run*' \
//!     target/release/examples/profile reassembler spool cs144/no-overlap 3
//! valgrind --tool=callgrind --toggle-collect='spool_bench::stream_peers::pump*' \
//!     target/release/examples/profile stream spool 128 3
//! ```
//!
//! Reassemblers: spool, smoltcp, s2n-quic, btreemap, copy-floor; schedules
//! as in `benches/reassembler.rs`. Pipes: spool, vecdeque, copy-floor, with
//! the read size of `benches/stream.rs`. Every run's output is checked.
//!
//! `profile rounds reassembler SCHEDULE N` and `profile rounds stream READ N`
//! time spool, its fastest peers and the copy floor interleaved (one run of
//! each per round, the order rotating) and print each one's median and
//! minimum: a quick check between criterion runs that drifts less on a
//! shared machine than timing one peer after another.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use spool::stream::ByteStream;
use spool_bench::reassembler_floor::{CopyFloor, FloorPlan};
use spool_bench::reassembler_peers::{run, BTreeMapPeer, Peer, S2nPeer, SmoltcpPeer, SpoolPeer};
use spool_bench::schedules::{bench_schedules, random_bytes, Schedule};
use spool_bench::stream_peers::{pump, CopyPipe, Pipe, VecDequePipe};

const STREAM_TOTAL: usize = 10_000_000;
const STREAM_CAPACITY: usize = 32_768;

/// One run of a reassembler over a schedule, checked; returns its time.
fn reassemble<P: Peer>(s: &Schedule, out: &mut Vec<u8>, mut peer: P) -> Duration {
    let t = Instant::now();
    run(&mut peer, s, out);
    let elapsed = t.elapsed();
    assert!(*out == s.data, "output differs from the stream");
    elapsed
}

/// One run of a pipe over the stream workload, checked; returns its time.
fn pipe<P: Pipe>(data: &[u8], read: usize, out: &mut Vec<u8>, mut pipe: P) -> Duration {
    let t = Instant::now();
    pump(&mut pipe, data, 1500, read, out);
    let elapsed = t.elapsed();
    assert!(out == data, "output differs from the input");
    elapsed
}

/// Runs each of `runs` once per round, rotating the order, and prints the
/// median and minimum of each, and the median (with quartiles) of each
/// one's time over the first's within the same round: a ratio whose two
/// sides ran seconds apart, so load that drifts over minutes cancels.
fn rounds(rounds: usize, runs: &mut [(&str, &mut dyn FnMut() -> Duration)]) {
    let mut times = vec![Vec::new(); runs.len()];
    for round in 0..rounds {
        for k in 0..runs.len() {
            let which = (round + k) % runs.len();
            times[which].push((runs[which].1)());
        }
    }
    let quartiles = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 4], v[v.len() / 2], v[v.len() * 3 / 4])
    };
    for ((name, _), t) in runs.iter().zip(&times) {
        let ratios = t
            .iter()
            .zip(&times[0])
            .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64());
        let (q1, median, q3) = quartiles(ratios.collect());
        let mut sorted = t.clone();
        sorted.sort();
        println!(
            "{name:>10}: median {:?}, min {:?}; per round vs {}: {median:.3} (quartiles {q1:.3}-{q3:.3})",
            sorted[sorted.len() / 2],
            sorted[0],
            runs[0].0
        );
    }
}

fn schedule(name: &str) -> Option<Schedule> {
    bench_schedules()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| s)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let number = |s: Option<&&str>, default| s.map_or(default, |n| n.parse().expect("a number"));
    match args.as_slice() {
        ["reassembler", peer, case, rest @ ..] => {
            let Some(s) = schedule(case) else {
                eprintln!("unknown schedule {case}");
                return ExitCode::FAILURE;
            };
            let (cap, plan) = (s.capacity, FloorPlan::new(&s));
            let mut out = Vec::with_capacity(s.data.len());
            for _ in 0..number(rest.first(), 10) {
                match *peer {
                    "spool" => reassemble(&s, &mut out, SpoolPeer::new(cap)),
                    "smoltcp" => reassemble(&s, &mut out, SmoltcpPeer::new(cap)),
                    "s2n-quic" => reassemble(&s, &mut out, S2nPeer::new(cap)),
                    "btreemap" => reassemble(&s, &mut out, BTreeMapPeer::new(cap)),
                    "copy-floor" => reassemble(&s, &mut out, CopyFloor::new(&plan)),
                    _ => {
                        eprintln!("unknown reassembler {peer}");
                        return ExitCode::FAILURE;
                    }
                };
            }
        }
        ["stream", peer, read, rest @ ..] => {
            let read = read.parse().expect("a read size");
            let data = random_bytes(STREAM_TOTAL, 99);
            let mut out = Vec::with_capacity(STREAM_TOTAL);
            for _ in 0..number(rest.first(), 10) {
                match *peer {
                    "spool" => pipe(&data, read, &mut out, ByteStream::new(STREAM_CAPACITY)),
                    "vecdeque" => pipe(&data, read, &mut out, VecDequePipe::new(STREAM_CAPACITY)),
                    "copy-floor" => pipe(&data, read, &mut out, CopyPipe::new(STREAM_CAPACITY)),
                    _ => {
                        eprintln!("unknown pipe {peer}");
                        return ExitCode::FAILURE;
                    }
                };
            }
        }
        ["rounds", "reassembler", case, rest @ ..] => {
            let Some(s) = schedule(case) else {
                eprintln!("unknown schedule {case}");
                return ExitCode::FAILURE;
            };
            let (cap, plan) = (s.capacity, FloorPlan::new(&s));
            let mut out = Vec::with_capacity(s.data.len());
            let out = std::cell::RefCell::new(&mut out);
            rounds(
                number(rest.first(), 100),
                &mut [
                    ("spool", &mut || {
                        reassemble(&s, &mut out.borrow_mut(), SpoolPeer::new(cap))
                    }),
                    ("smoltcp", &mut || {
                        reassemble(&s, &mut out.borrow_mut(), SmoltcpPeer::new(cap))
                    }),
                    ("copy-floor", &mut || {
                        reassemble(&s, &mut out.borrow_mut(), CopyFloor::new(&plan))
                    }),
                ],
            );
        }
        ["rounds", "stream", read, rest @ ..] => {
            let read = read.parse().expect("a read size");
            let data = random_bytes(STREAM_TOTAL, 99);
            let mut out = Vec::with_capacity(STREAM_TOTAL);
            let out = std::cell::RefCell::new(&mut out);
            rounds(
                number(rest.first(), 100),
                &mut [
                    ("spool", &mut || {
                        pipe(
                            &data,
                            read,
                            &mut out.borrow_mut(),
                            ByteStream::new(STREAM_CAPACITY),
                        )
                    }),
                    ("vecdeque", &mut || {
                        pipe(
                            &data,
                            read,
                            &mut out.borrow_mut(),
                            VecDequePipe::new(STREAM_CAPACITY),
                        )
                    }),
                    ("copy-floor", &mut || {
                        pipe(
                            &data,
                            read,
                            &mut out.borrow_mut(),
                            CopyPipe::new(STREAM_CAPACITY),
                        )
                    }),
                ],
            );
        }
        _ => {
            eprintln!(
                "usage: profile reassembler PEER SCHEDULE [N] | profile stream PIPE READ [N] \
                 | profile rounds reassembler SCHEDULE [N] | profile rounds stream READ [N]"
            );
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
