//! The demo's Chain rows: one large Banana STRING arriving in 4 KiB chunks,
//! and many small INT tokens, decoded by spool's Chain + BananaDecoder next
//! to a BytesMut accumulator, a VecDeque and the quadratic flat buffer.

use bytes::Bytes;
use spool::codec::banana::{encode, Token};
use spool_bench::chain_peers::{
    chunked, int_tokens, receive, BytesMutReceiver, ChainReceiver, Decoded, FlatReceiver, Receiver,
    VecDequeReceiver,
};

use super::timing::{best_of, mb_per_s};
use super::{table::Row, Context};

const SYSTEM: &str = "Chain";

/// Measures this system and its peers on generated data.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let runs = if ctx.quick { 3 } else { 7 };
    let big = if ctx.quick { 16 << 20 } else { 64 << 20 };
    Ok(vec![
        string_row(1 << 20, runs, true)?,
        string_row(big, runs, false)?,
        int_row(runs)?,
    ])
}

fn measure<R: Receiver + Default>(
    name: &str,
    chunks: &[Bytes],
    want: &[Decoded],
    runs: usize,
) -> anyhow::Result<std::time::Duration> {
    let mut out = Vec::with_capacity(want.len());
    let (time, _) = best_of(runs, || receive(&mut R::default(), chunks, &mut out));
    anyhow::ensure!(out == want, "{name}: decoded tokens differ from those sent");
    Ok(time)
}

fn string_row(size: usize, runs: usize, with_flat: bool) -> anyhow::Result<Row> {
    let mut wire = Vec::with_capacity(size + 16);
    encode(&Token::String(Bytes::from(vec![b'z'; size])), &mut wire);
    let chunks = chunked(&wire, 4096);
    let want = [Decoded::String(size, b'z')];
    let rate = |t| mb_per_s(size as u64, t);
    let spool = measure::<ChainReceiver>("spool", &chunks, &want, runs)?;
    let mut peers = vec![
        (
            "BytesMut".to_string(),
            rate(measure::<BytesMutReceiver>(
                "BytesMut", &chunks, &want, runs,
            )?),
        ),
        (
            "VecDeque".to_string(),
            rate(measure::<VecDequeReceiver>(
                "VecDeque", &chunks, &want, runs,
            )?),
        ),
    ];
    if with_flat {
        peers.push((
            "flat buffer".into(),
            rate(measure::<FlatReceiver>("flat", &chunks, &want, 1)?),
        ));
    }
    Ok(Row {
        system: SYSTEM,
        case: format!("{} MiB STRING in 4 KiB chunks", size >> 20),
        unit: "MB/s",
        higher_is_better: true,
        spool: rate(spool),
        peers,
    })
}

fn int_row(runs: usize) -> anyhow::Result<Row> {
    const COUNT: usize = 400_000;
    let (wire, want) = int_tokens(COUNT, 42);
    let chunks = chunked(&wire, 64 << 10);
    let ns = |t: std::time::Duration| t.as_nanos() as f64 / COUNT as f64;
    Ok(Row {
        system: SYSTEM,
        case: "400k INT tokens in 64 KiB chunks".into(),
        unit: "ns/token",
        higher_is_better: false,
        spool: ns(measure::<ChainReceiver>("spool", &chunks, &want, runs)?),
        peers: vec![
            (
                "BytesMut".into(),
                ns(measure::<BytesMutReceiver>(
                    "BytesMut", &chunks, &want, runs,
                )?),
            ),
            (
                "VecDeque".into(),
                ns(measure::<VecDequeReceiver>(
                    "VecDeque", &chunks, &want, runs,
                )?),
            ),
        ],
    })
}
