//! The demo's ByteStream and Reassembler rows: the benchmark workloads at
//! demo size, spool next to its peers and to the copy floor (the least
//! work any copying design can do, see `spool_bench::reassembler_floor`
//! and `spool_bench::stream_peers::CopyPipe`), every output checked.

use spool::stream::ByteStream;
use spool_bench::reassembler_floor::{CopyFloor, FloorPlan};
use spool_bench::reassembler_peers::{run, BTreeMapPeer, Peer, S2nPeer, SmoltcpPeer, SpoolPeer};
use spool_bench::schedules::{cs144, random_bytes, realistic, Schedule};
use spool_bench::stream_peers::{pump, CopyPipe, Pipe, VecDequePipe};

use super::legend::Unit;
use super::timing::{interleave, mb_per_s};
use super::{table::Row, Context};

const SYSTEM: &str = "ByteStream + Reassembler";

/// Measures this system and its peers on generated data.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let mut rows = vec![stream_row(ctx.runs)?];
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
        rows.push(reassembler_row(case, schedule, ctx.runs)?);
    }
    Ok(rows)
}

/// 10 MB through a 32 KiB pipe in 1500-byte writes and 128-byte reads.
fn stream_row(runs: usize) -> anyhow::Result<Row> {
    const TOTAL: usize = 10_000_000;
    const CAPACITY: usize = 32_768;
    let data = random_bytes(TOTAL, 99);
    let mut outs: [Vec<u8>; 3] = std::array::from_fn(|_| Vec::with_capacity(TOTAL));
    let [spool_out, deque_out, floor_out] = &mut outs;
    fn piping<'a, P: Pipe>(
        make: impl Fn() -> P + 'a,
        data: &'a [u8],
        out: &'a mut Vec<u8>,
    ) -> impl FnMut() -> anyhow::Result<()> + 'a {
        move || {
            pump(&mut make(), data, 1500, 128, out);
            Ok(())
        }
    }
    let [spool, deque, floor] = interleave(
        runs,
        [
            &mut piping(|| ByteStream::new(CAPACITY), &data, spool_out),
            &mut piping(|| VecDequePipe::new(CAPACITY), &data, deque_out),
            &mut piping(|| CopyPipe::new(CAPACITY), &data, floor_out),
        ],
    )?;
    for (name, out) in ["ByteStream", "VecDeque", "copy floor"].iter().zip(&outs) {
        anyhow::ensure!(*out == data, "{name}: pipe output differs from its input");
    }
    let rate = |t| mb_per_s(TOTAL as u64, t);
    Ok(Row {
        system: SYSTEM,
        case: "pipe 10 MB, 1500 B in / 128 B out".into(),
        unit: Unit::MbPerS,
        spool: spool.figure(rate),
        peers: vec![
            ("VecDeque", deque.figure(rate)),
            ("copy floor", floor.figure(rate)),
        ],
    })
}

/// A contestant that reassembles the whole schedule with a fresh peer.
fn reassembling<'a, P: Peer>(
    make: impl Fn() -> P + 'a,
    s: &'a Schedule,
    out: &'a mut Vec<u8>,
) -> impl FnMut() -> anyhow::Result<()> + 'a {
    move || {
        run(&mut make(), s, out);
        Ok(())
    }
}

fn reassembler_row(case: &str, s: &Schedule, runs: usize) -> anyhow::Result<Row> {
    let cap = s.capacity;
    // The floor's bookkeeping is done here, before timing.
    let plan = FloorPlan::new(s);
    let mut outs: [Vec<u8>; 5] = std::array::from_fn(|_| Vec::with_capacity(s.data.len()));
    let [o_spool, o_s2n, o_smol, o_btree, o_floor] = &mut outs;
    let [spool, s2n, smoltcp, btree, floor] = interleave(
        runs,
        [
            &mut reassembling(|| SpoolPeer::new(cap), s, o_spool),
            &mut reassembling(|| S2nPeer::new(cap), s, o_s2n),
            &mut reassembling(|| SmoltcpPeer::new(cap), s, o_smol),
            &mut reassembling(|| BTreeMapPeer::new(cap), s, o_btree),
            &mut reassembling(|| CopyFloor::new(&plan), s, o_floor),
        ],
    )?;
    let names = ["spool", "s2n-quic", "smoltcp", "BTreeMap", "copy floor"];
    for (name, out) in names.iter().zip(&outs) {
        anyhow::ensure!(
            *out == s.data,
            "{name}: reassembled output differs from the stream"
        );
    }
    let rate = |t| mb_per_s(s.data.len() as u64, t);
    Ok(Row {
        system: SYSTEM,
        case: case.into(),
        unit: Unit::UniqueMbPerS,
        spool: spool.figure(rate),
        peers: vec![
            ("s2n-quic", s2n.figure(rate)),
            ("smoltcp", smoltcp.figure(rate)),
            ("BTreeMap", btree.figure(rate)),
            ("copy floor", floor.figure(rate)),
        ],
    })
}
