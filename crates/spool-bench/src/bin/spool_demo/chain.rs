//! The demo's BufList rows: one large Banana STRING arriving in 4 KiB chunks,
//! and many small INT tokens, decoded by spool's BufList + BananaDecoder next
//! to a BytesMut accumulator, a VecDeque and the quadratic flat buffer.

use bytes::Bytes;
use spool::codec::banana::{encode, Token};
use spool_bench::chain_peers::{
    chunked, int_tokens, receive, BufListReceiver, BytesMutReceiver, Decoded, FlatReceiver,
    Receiver, VecDequeReceiver,
};

use super::legend::Unit;
use super::timing::{interleave_all, mb_per_s, ns_per, Samples};
use super::{table::Row, Context};

const SYSTEM: &str = "BufList";

/// Measures this system and its peers on generated data.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let big = if ctx.quick { 16 << 20 } else { 64 << 20 };
    Ok(vec![
        string_row(1 << 20, ctx.runs, true)?,
        string_row(big, ctx.runs, false)?,
        int_row(ctx.runs)?,
    ])
}

/// A contestant that feeds every chunk to a fresh `R` and keeps the tokens.
fn receiving<'a, R: Receiver + Default>(
    chunks: &'a [Bytes],
    out: &'a mut Vec<Decoded>,
) -> impl FnMut() -> anyhow::Result<()> + 'a {
    move || {
        receive(&mut R::default(), chunks, out);
        Ok(())
    }
}

/// spool, BytesMut and VecDeque (and the flat buffer if `with_flat`) on
/// `chunks`, taking turns; each one's tokens checked against `want`.
fn measure(
    chunks: &[Bytes],
    want: &[Decoded],
    runs: usize,
    with_flat: bool,
) -> anyhow::Result<Vec<(&'static str, Samples)>> {
    let mut outs: [Vec<Decoded>; 4] = Default::default();
    let samples = {
        let [o_spool, o_bytes, o_deque, o_flat] = &mut outs;
        let mut spool = receiving::<BufListReceiver>(chunks, o_spool);
        let mut bytes_mut = receiving::<BytesMutReceiver>(chunks, o_bytes);
        let mut deque = receiving::<VecDequeReceiver>(chunks, o_deque);
        let mut flat = receiving::<FlatReceiver>(chunks, o_flat);
        let mut contestants: Vec<&mut dyn FnMut() -> anyhow::Result<()>> =
            vec![&mut spool, &mut bytes_mut, &mut deque];
        if with_flat {
            contestants.push(&mut flat);
        }
        interleave_all(runs, &mut contestants)?
    };
    let names = ["spool", "BytesMut", "VecDeque", "flat buffer"];
    let measured: Vec<(&'static str, Samples)> = names.into_iter().zip(samples).collect();
    for ((name, _), out) in measured.iter().zip(&outs) {
        anyhow::ensure!(out == want, "{name}: decoded tokens differ from those sent");
    }
    Ok(measured)
}

/// The measured contestants as a row: the first is spool.
fn row(
    case: String,
    unit: Unit,
    measured: Vec<(&'static str, Samples)>,
    per_run: impl Fn(std::time::Duration) -> f64,
) -> Row {
    let mut figures = measured.iter().map(|(n, s)| (*n, s.figure(&per_run)));
    let (_, spool) = figures.next().expect("spool is measured first");
    Row {
        system: SYSTEM,
        case,
        unit,
        spool,
        peers: figures.collect(),
    }
}

fn string_row(size: usize, runs: usize, with_flat: bool) -> anyhow::Result<Row> {
    let mut wire = Vec::with_capacity(size + 16);
    encode(&Token::String(Bytes::from(vec![b'z'; size])), &mut wire);
    let chunks = chunked(&wire, 4096);
    let want = [Decoded::String(size, b'z')];
    let measured = measure(&chunks, &want, runs, with_flat)?;
    Ok(row(
        format!("{} MiB STRING in 4 KiB chunks", size >> 20),
        Unit::MbPerS,
        measured,
        |t| mb_per_s(size as u64, t),
    ))
}

fn int_row(runs: usize) -> anyhow::Result<Row> {
    const COUNT: usize = 400_000;
    let (wire, want) = int_tokens(COUNT, 42);
    let chunks = chunked(&wire, 64 << 10);
    let measured = measure(&chunks, &want, runs, false)?;
    Ok(row(
        "400k INT tokens in 64 KiB chunks".into(),
        Unit::NsPerToken,
        measured,
        |t| ns_per(COUNT, t),
    ))
}
