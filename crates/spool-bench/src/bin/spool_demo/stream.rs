//! The demo's ByteStream and Reassembler rows: the benchmark workloads at
//! demo size, spool next to its peers, every output checked.

use spool::stream::ByteStream;
use spool_bench::reassembler_peers::{run, BTreeMapPeer, Peer, S2nPeer, SmoltcpPeer, SpoolPeer};
use spool_bench::schedules::{cs144, random_bytes, realistic, Schedule};
use spool_bench::stream_peers::VecDequePipe;

use super::timing::{best_of, mb_per_s};
use super::{table::Row, Context};

const SYSTEM: &str = "ByteStream + Reassembler";

/// Measures this system and its peers on generated data.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let runs = if ctx.quick { 3 } else { 15 };
    let mut rows = vec![stream_row(runs)?];
    let schedules = [
        (
            "CS144 schedule, no overlap",
            cs144(1_500_000, 32_768, 1500, 1500),
        ),
        (
            "CS144 schedule, 10x overlap",
            cs144(1_500_000, 32_768, 1500, 150),
        ),
        (
            "lossy network, 64 KiB window",
            realistic(4_000_000, 64 * 1024, 1460, 2, 10, 1, 7),
        ),
    ];
    for (case, schedule) in &schedules {
        rows.push(reassembler_row(case, schedule, runs)?);
    }
    Ok(rows)
}

/// 10 MB through a 32 KiB pipe in 1500-byte writes and 128-byte reads.
fn stream_row(runs: usize) -> anyhow::Result<Row> {
    const TOTAL: usize = 10_000_000;
    let data = random_bytes(TOTAL, 99);
    let mut out = Vec::with_capacity(TOTAL);
    let (spool_time, _) = best_of(runs, || {
        out.clear();
        let mut s = ByteStream::new(32_768);
        let mut at = 0;
        while at < TOTAL {
            at += s.writer().push(&data[at..(at + 1500).min(TOTAL)]);
            let r = s.reader();
            while r.bytes_buffered() > 0 {
                let front = r.peek();
                let n = front.len().min(128);
                out.extend_from_slice(&front[..n]);
                r.pop(n);
            }
        }
    });
    anyhow::ensure!(out == data, "ByteStream output differs from its input");
    let (deque_time, _) = best_of(runs, || {
        out.clear();
        let mut p = VecDequePipe::new(32_768);
        let mut at = 0;
        while at < TOTAL {
            at += p.push(&data[at..(at + 1500).min(TOTAL)]);
            while !p.is_empty() {
                let front = p.peek();
                let n = front.len().min(128);
                out.extend_from_slice(&front[..n]);
                p.pop(n);
            }
        }
    });
    anyhow::ensure!(out == data, "VecDeque pipe output differs from its input");
    Ok(Row {
        system: SYSTEM,
        case: "pipe 10 MB, 1500 B in / 128 B out".into(),
        unit: "MB/s",
        higher_is_better: true,
        spool: mb_per_s(TOTAL as u64, spool_time),
        peers: vec![("VecDeque".into(), mb_per_s(TOTAL as u64, deque_time))],
    })
}

fn reassembler_row(case: &str, s: &Schedule, runs: usize) -> anyhow::Result<Row> {
    let cap = s.capacity;
    let unique = s.data.len() as u64;
    let spool = measure("spool", s, runs, || SpoolPeer::new(cap))?;
    let peers = vec![
        (
            "s2n-quic".into(),
            measure("s2n-quic", s, runs, || S2nPeer::new(cap))?,
        ),
        (
            "smoltcp".into(),
            measure("smoltcp", s, runs, || SmoltcpPeer::new(cap))?,
        ),
        (
            "BTreeMap".into(),
            measure("BTreeMap", s, runs, || BTreeMapPeer::new(cap))?,
        ),
    ];
    Ok(Row {
        system: SYSTEM,
        case: format!("{case} (unique MB/s)"),
        unit: "MB/s",
        higher_is_better: true,
        spool: mb_per_s(unique, spool),
        peers: peers
            .into_iter()
            .map(|(n, t)| (n, mb_per_s(unique, t)))
            .collect(),
    })
}

/// Best time of a fresh peer over the whole schedule, after checking its
/// output.
fn measure<P: Peer>(
    name: &str,
    s: &Schedule,
    runs: usize,
    make: impl Fn() -> P,
) -> anyhow::Result<std::time::Duration> {
    let mut out = Vec::with_capacity(s.data.len());
    let (time, _) = best_of(runs, || {
        let mut peer = make();
        run(&mut peer, s, &mut out);
    });
    anyhow::ensure!(
        out == s.data,
        "{name}: reassembled output differs from the stream"
    );
    Ok(time)
}
