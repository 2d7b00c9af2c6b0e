//! A lane's ranges fetched out of order and handed out in prefix order,
//! without letting one slow range hold the others back.
//!
//! At most `window` ranges are in flight. A range that completes before
//! an earlier one waits here; a range being retried (its pause can be
//! seconds) does not stop new requests: the lane keeps asking for later
//! ranges until the oldest unfinished one is [`REACH`] windows behind the
//! newest asked for. A few slow ranges so cost their own time, not the
//! whole lane's; only a range slower than the lane's next `REACH` windows
//! stalls it, and the memory held stays bounded.
//!
//! # Bounds
//!
//! At most `window` ranges in flight and at most `REACH × window` ranges
//! asked for and not yet handed out (in flight or waiting).

use std::collections::BTreeMap;
use std::future::Future;
use std::io;

use futures_util::stream::FuturesUnordered;
use futures_util::StreamExt as _;
use tokio::task::JoinHandle;

use crate::journal::Frame;
use crate::DownloadError;

/// How many windows of ranges may be asked for past the oldest one not
/// handed out yet.
pub const REACH: usize = 8;

type Fetched = Result<Frame, DownloadError>;

/// The ranges of `P`'s prefixes, in order.
pub(crate) struct Reorder<P> {
    prefixes: P,
    window: usize,
    /// Sequence number of the next prefix to ask for, and of the next to
    /// hand out.
    asked: usize,
    handed: usize,
    running: FuturesUnordered<Numbered>,
    waiting: BTreeMap<usize, Fetched>,
}

/// A fetch task and its sequence number.
struct Numbered {
    seq: usize,
    task: JoinHandle<Fetched>,
}

impl Future for Numbered {
    type Output = (usize, Fetched);

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let seq = self.seq;
        std::pin::Pin::new(&mut self.task).poll(cx).map(|joined| {
            let fetched = joined
                .map_err(|e| io::Error::other(format!("a fetch task failed: {e}")).into())
                .and_then(|r| r);
            (seq, fetched)
        })
    }
}

impl<P: Iterator<Item = u32>> Reorder<P> {
    /// Ranges of `prefixes`, at most `window` (at least 1) in flight.
    pub fn new(prefixes: P, window: usize) -> Reorder<P> {
        Reorder {
            prefixes,
            window: window.max(1),
            asked: 0,
            handed: 0,
            running: FuturesUnordered::new(),
            waiting: BTreeMap::new(),
        }
    }

    /// The next range in prefix order, starting fetches with `launch` as
    /// the bounds allow.
    ///
    /// # Panics
    ///
    /// If called after every prefix's range was handed out.
    pub async fn next(&mut self, mut launch: impl FnMut(u32) -> JoinHandle<Fetched>) -> Fetched {
        loop {
            while self.running.len() < self.window && self.asked < self.handed + REACH * self.window
            {
                let Some(prefix) = self.prefixes.next() else {
                    break;
                };
                let seq = self.asked;
                self.asked += 1;
                self.running.push(Numbered {
                    seq,
                    task: launch(prefix),
                });
            }
            if let Some(fetched) = self.waiting.remove(&self.handed) {
                self.handed += 1;
                return fetched;
            }
            let (seq, fetched) = self.running.next().await.expect("a range per prefix");
            self.waiting.insert(seq, fetched);
        }
    }
}
