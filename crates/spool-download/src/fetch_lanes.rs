//! The fetching, spread over the cores: one lane per core, each a thread
//! with a one-thread tokio runtime and an HTTP client (so connections) of
//! its own, fetching every `lanes`-th block of [`BLOCK`] prefixes; the
//! caller's thread takes the blocks in turn and appends them to the
//! journal.
//!
//! ```text
//!  prefixes:  block 0   block 1   block 2   block 3  …
//!  lane 0:    ████████            ████████
//!  lane 1:              ████████            ████████
//!                 │         │         │         │   one hand-over per block
//!                 ▼         ▼         ▼         ▼
//!  caller:    journal ◄─ blocks in prefix order
//! ```
//!
//! Why lanes and not a multi-thread runtime: the runtime's workers woke
//! each other for every request and cost more CPU time than the second
//! core gave (docs/perf/pwned-download.md); lanes share nothing while they
//! fetch, and hand over one block of ranges at a time. The journal's
//! appends and syncs run on the caller's thread, so a sync does not stop
//! the requests.
//!
//! # Bounds
//!
//! A lane has at most `concurrency / lanes` ranges in flight, and at most
//! [`REACH`](crate::reorder::REACH) times that in flight or waiting for
//! an earlier one of its own (`reorder.rs`), and besides them at most
//! three blocks: the one it is filling, one in the channel to the caller,
//! and one the caller is appending.
//!
//! # Stopping
//!
//! When the caller stops taking blocks (a failure, or the end), its
//! receivers are dropped: each lane sees its channel closed, drops its
//! runtime (which ends its tasks, retries and pauses included) and ends.

use std::io;
use std::ops::Range;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use reqwest::Client;
use tokio::sync::mpsc;

use crate::client::{self, Protocol};
use crate::fetch::{fetch_range, Shared};
use crate::journal::{Frame, RangeJournal};
use crate::options::DownloadProgress;
use crate::reorder::Reorder;
use crate::{DownloadError, Parts};

/// Prefixes in a block, the unit handed from a lane to the journal.
pub const BLOCK: u32 = 128;

/// What a lane sends: a whole block of ranges, in prefix order, or why
/// it stopped.
type Handed = Result<Vec<Frame>, DownloadError>;

/// Fetches `prefixes` into `journal`, in prefix order, on `opts.lanes`
/// lanes; returns the state the lanes shared and the protocol spoken.
pub(crate) fn fetch_all(
    parts: Parts,
    prefixes: Range<u32>,
    journal: &mut RangeJournal,
) -> Result<(Shared, Protocol), DownloadError> {
    let protocol = probe(&parts, prefixes.start)?;
    let lanes = parts.opts.lanes.clamp(1, 64);
    let window = (parts.opts.concurrency / lanes).max(1);
    let clients = (0..lanes)
        .map(|_| client::build(&parts.opts, protocol))
        .collect::<Result<Vec<Client>, String>>()
        .map_err(DownloadError::Connect)?;
    let shared = Arc::new(Shared {
        opts: parts.opts,
        shape: parts.shape,
        previous: parts.previous,
        progress: parts.progress,
        failures: AtomicU64::new(0),
    });
    let blocks: Vec<Range<u32>> = prefixes
        .clone()
        .step_by(BLOCK as usize)
        .map(|first| first..(first + BLOCK).min(prefixes.end))
        .collect();
    let written = std::thread::scope(|scope| {
        let mut receivers = Vec::with_capacity(lanes);
        for (lane, client) in clients.into_iter().enumerate() {
            let (tx, rx) = mpsc::channel(1);
            receivers.push(rx);
            let mine: Vec<Range<u32>> = blocks.iter().skip(lane).step_by(lanes).cloned().collect();
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("spool-fetch-{lane}"))
                .spawn_scoped(scope, move || run_lane(shared, client, mine, window, tx))
                .map_err(|e| io::Error::other(format!("starting a fetching thread: {e}")))?;
        }
        // Returning drops the receivers, which ends the lanes.
        take_blocks(&mut receivers, blocks.len(), journal, &shared.progress)
    });
    written?;
    let shared = Arc::into_inner(shared).expect("every lane has ended");
    Ok((shared, protocol))
}

/// Which protocol the server speaks (see `client.rs`), asked on a runtime
/// and client of its own: a connection belongs to the runtime it was made
/// on, so the lanes make theirs.
fn probe(parts: &Parts, prefix: u32) -> Result<Protocol, DownloadError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime
        .block_on(client::probe(&parts.opts, prefix))
        .map_err(DownloadError::Connect)
}

/// The caller's side: `blocks` blocks, taken from the lanes in turn.
fn take_blocks(
    receivers: &mut [mpsc::Receiver<Handed>],
    blocks: usize,
    journal: &mut RangeJournal,
    progress: &DownloadProgress,
) -> Result<(), DownloadError> {
    let lanes = receivers.len();
    for block in 0..blocks {
        let frames = receivers[block % lanes]
            .blocking_recv()
            .ok_or_else(|| io::Error::other("a fetching thread ended early"))??;
        for frame in &frames {
            journal.append(frame)?;
            DownloadProgress::add(&progress.hashes, u64::from(frame.hashes));
        }
        DownloadProgress::add(&progress.ranges, frames.len() as u64);
    }
    Ok(())
}

/// One lane: its blocks' prefixes fetched, `window` at a time, and put
/// back in order (`reorder.rs`), each block sent whole, until done, failed or no
/// longer wanted.
fn run_lane(
    shared: Arc<Shared>,
    client: Client,
    blocks: Vec<Range<u32>>,
    window: usize,
    tx: mpsc::Sender<Handed>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let _ = tx.blocking_send(Err(e.into()));
            return;
        }
    };
    let lengths: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
    let fetch = async {
        let mut ranges = Reorder::new(blocks.into_iter().flatten(), window);
        for len in lengths {
            let mut frames = Vec::with_capacity(len);
            while frames.len() < len {
                let launch =
                    |prefix| tokio::spawn(fetch_range(shared.clone(), client.clone(), prefix));
                match ranges.next(launch).await {
                    Ok(frame) => frames.push(frame),
                    Err(e) => {
                        let _ = tx.send(Err(e)).await;
                        return;
                    }
                }
            }
            if tx.send(Ok(frames)).await.is_err() {
                return;
            }
        }
    };
    runtime.block_on(async {
        tokio::select! {
            () = fetch => {}
            () = tx.closed() => {}
        }
    });
    // Dropping the runtime ends the tasks still running, so that the
    // state the lanes share has one owner again.
    drop(runtime);
}
