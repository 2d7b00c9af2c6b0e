//! The demo's BufferPool rows: buffer_sv2's own message loop, frames held
//! live, and a consumer thread behind a channel — spool's pool next to
//! buffer_sv2's pool, a `Vec` per message and `BytesMut`.

use std::collections::VecDeque;
use std::sync::mpsc::sync_channel;

use spool::pool::BufferPool;
use spool_bench::pool_peers::{
    write_in_tens, BytesMutSplit, MessageBuffer, Sv2Pool, VecPerMessage,
};
use spool_bench::schedules::{random_bytes, Rng};

use super::legend::Unit;
use super::timing::{interleave, ns_per};
use super::{table::Row, Context};

const SYSTEM: &str = "BufferPool";
const CAPACITY: usize = 327_680;

/// Measures this system and its peers on generated data.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let runs = ctx.runs;
    let data = random_bytes(1 << 16, 3);
    let mut rng = Rng(7);
    let lens: Vec<usize> = (0..2000)
        .map(|_| (1 << 14) - rng.below(12_000) as usize)
        .collect();
    let want: usize = lens.iter().map(|l| l / 10 * 10).sum();

    let sv2_loop = |buf: &mut dyn FnMut(usize, usize) -> usize| -> usize {
        lens.iter().enumerate().map(|(i, &len)| buf(i, len)).sum()
    };
    let mut rows = Vec::new();
    rows.push(row(
        "buffer_sv2's loop: 2000 msgs, 10 B writes",
        Unit::NsPerMsg,
        lens.len(),
        runs,
        &|b: &mut dyn Peer| {
            let total = sv2_loop(&mut |i, len| b.message_in_tens(len, &data[i / 2..]));
            anyhow::ensure!(total == want, "{}: wrong byte count", b.name());
            Ok(())
        },
    )?);
    rows.push(row(
        "64 frames of 1 KiB held live",
        Unit::NsPerMsg,
        20_000,
        runs,
        &|b| b.hold(64, 1024, 20_000),
    )?);
    rows.push(row(
        "consumer thread, channel depth 64",
        Unit::NsPerMsg,
        20_000,
        runs,
        &|b| b.pipeline(64, 1024, 20_000),
    )?);
    Ok(rows)
}

/// One buffer under test, type-erased so each row can loop over them.
trait Peer {
    fn name(&self) -> &'static str;
    fn message_in_tens(&mut self, len: usize, input: &[u8]) -> usize;
    fn hold(&mut self, k: usize, size: usize, n: usize) -> anyhow::Result<()>;
    fn pipeline(&mut self, depth: usize, size: usize, n: usize) -> anyhow::Result<()>;
}

struct Named<B>(&'static str, B);

impl<B: MessageBuffer> Peer for Named<B> {
    fn name(&self) -> &'static str {
        self.0
    }

    fn message_in_tens(&mut self, len: usize, input: &[u8]) -> usize {
        write_in_tens(&mut self.1, len, input);
        self.1.freeze().as_ref().len()
    }

    fn hold(&mut self, k: usize, size: usize, n: usize) -> anyhow::Result<()> {
        let mut held = VecDeque::with_capacity(k + 1);
        for i in 0..n {
            self.1.writable(size).fill(i as u8);
            held.push_back((i as u8, self.1.freeze()));
            if held.len() > k {
                let (tag, frame) = held.pop_front().expect("non-empty");
                anyhow::ensure!(
                    frame.as_ref().iter().all(|&b| b == tag),
                    "{}: a held frame changed",
                    self.0
                );
            }
        }
        Ok(())
    }

    fn pipeline(&mut self, depth: usize, size: usize, n: usize) -> anyhow::Result<()> {
        let (tx, rx) = sync_channel::<B::Frame>(depth);
        let consumer =
            std::thread::spawn(move || rx.iter().map(|f| f.as_ref().len()).sum::<usize>());
        for i in 0..n {
            self.1.writable(size).fill(i as u8);
            tx.send(self.1.freeze())
                .map_err(|_| anyhow::anyhow!("{}: consumer hung up", self.0))?;
        }
        drop(tx);
        let got = consumer
            .join()
            .map_err(|_| anyhow::anyhow!("consumer panicked"))?;
        anyhow::ensure!(got == n * size, "{}: consumer saw {got} bytes", self.0);
        Ok(())
    }
}

fn row(
    case: &str,
    unit: Unit,
    messages: usize,
    runs: usize,
    work: &dyn Fn(&mut dyn Peer) -> anyhow::Result<()>,
) -> anyhow::Result<Row> {
    // A fresh buffer for every run, made inside the timed part (a pool's
    // set-up is part of what it costs).
    let contestant = |make: fn() -> Box<dyn Peer>| move || work(make().as_mut());
    let [spool, sv2, vec, bytes_mut] = interleave(
        runs,
        [
            &mut contestant(|| Box::new(Named("spool", BufferPool::new(CAPACITY)))),
            &mut contestant(|| Box::new(Named("buffer_sv2", Sv2Pool::new(CAPACITY)))),
            &mut contestant(|| Box::new(Named("Vec", VecPerMessage::default()))),
            &mut contestant(|| Box::new(Named("BytesMut", BytesMutSplit::default()))),
        ],
    )?;
    let per_message = |t| ns_per(messages, t);
    Ok(Row {
        system: SYSTEM,
        case: case.into(),
        unit,
        spool: spool.figure(per_message),
        peers: vec![
            ("buffer_sv2", sv2.figure(per_message)),
            ("Vec", vec.figure(per_message)),
            ("BytesMut", bytes_mut.figure(per_message)),
        ],
    })
}
