//! Ordered parallel maps: items are processed on worker threads and their
//! results handed back in the items' order.
//!
//! The pwned index build works this way twice: it parses blocks of lines
//! (most of its work, and it parallelises) while the records must reach
//! the sorter or the streaming writer in input order — so that
//! hash-ordered input is recognised as such and the first malformed line
//! reported is the first in the file — and at its end it sorts buckets on
//! every core while they must be written in hash order.
//!
//! [`for_each_ordered`] hands item `i` to worker `i % workers` and takes
//! its result from that worker's channel, so order needs no reorder
//! buffer; at most `2 * workers` items are in flight.
//! [`for_each_index_ordered`], whose items need no producing, has no
//! thread that only waits: the calling thread is a worker, and the worker
//! that finishes the next result in order consumes it (see `emitter.rs`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};

use emitter::Emitter;

mod emitter;

/// Runs `work` on every item of `items` on `workers` threads (each with a
/// scratch value from `scratch`, kept across its items) and calls
/// `consume` with the results in item order. Stops early, without reading
/// further items, when `items` yields an error or `consume` returns one.
///
/// # Errors
///
/// The first error from `items` or `consume`, or an error if a worker
/// panicked.
pub fn for_each_ordered<I, R, S, E>(
    items: impl Iterator<Item = Result<I, E>>,
    workers: usize,
    scratch: impl Fn() -> S + Sync,
    work: impl Fn(I, &mut S) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E>
where
    I: Send,
    R: Send,
    E: From<std::io::Error>,
{
    let workers = workers.max(1);
    let depth = 2 * workers;
    std::thread::scope(|scope| {
        let mut inputs: Vec<SyncSender<I>> = Vec::with_capacity(workers);
        let mut outputs: Vec<Receiver<R>> = Vec::with_capacity(workers);
        for _ in 0..workers {
            let (in_tx, in_rx) = mpsc::sync_channel::<I>(2);
            let (out_tx, out_rx) = mpsc::sync_channel::<R>(2);
            let (scratch, work) = (&scratch, &work);
            scope.spawn(move || {
                let mut s = scratch();
                for item in in_rx {
                    if out_tx.send(work(item, &mut s)).is_err() {
                        return;
                    }
                }
            });
            inputs.push(in_tx);
            outputs.push(out_rx);
        }
        let next_result = |received: usize| -> Result<R, E> {
            outputs[received % workers]
                .recv()
                .map_err(|_| std::io::Error::other("a worker thread stopped").into())
        };
        let (mut sent, mut received) = (0usize, 0usize);
        for item in items {
            if sent - received == depth {
                consume(next_result(received)?)?;
                received += 1;
            }
            if inputs[sent % workers].send(item?).is_err() {
                return Err(std::io::Error::other("a worker thread stopped").into());
            }
            sent += 1;
        }
        drop(inputs);
        while received < sent {
            consume(next_result(received)?)?;
            received += 1;
        }
        Ok(())
        // Returning (also early, on an error) drops the channels, which
        // ends the workers; the scope then joins them.
    })
}

/// Results of [`for_each_index_ordered`] that may wait to be consumed,
/// per worker.
const DEPTH_PER_WORKER: usize = 2;

/// Runs `work` on items `0..items` on `workers` threads and calls
/// `consume` with the results in item order, like [`for_each_ordered`]
/// for items that need no producing: a free worker takes the next item
/// number from a counter, so no item is handed over, and the calling
/// thread is one of the workers.
///
/// There is no consuming thread either: whichever worker parks the next
/// result in order consumes it, and any parked after it, while the others
/// go on working (see `emitter.rs`). A worker sleeps only when its item is
/// `DEPTH_PER_WORKER * workers` ahead of the next to be consumed (the
/// consumer is slower, e.g. waiting for a disk), or for the moment another
/// one holds the lock to park: fewer wake-ups than a consuming thread
/// that waits for each result (docs/perf/pwned-build.md). Stops early
/// when `work` or `consume` returns an error: results before it are
/// consumed, none after it.
///
/// # Errors
///
/// The first error from `work` or `consume`, in item order.
///
/// # Panics
///
/// If `work` or `consume` panicked (the other workers stop first).
pub fn for_each_index_ordered<R, S, E>(
    items: usize,
    workers: usize,
    scratch: impl Fn() -> S + Sync,
    work: impl Fn(usize, &mut S) -> Result<R, E> + Sync,
    consume: impl FnMut(R) -> Result<(), E> + Send,
) -> Result<(), E>
where
    R: Send,
    E: Send,
{
    let workers = workers.clamp(1, items.max(1));
    let emitter = Emitter::new(DEPTH_PER_WORKER * workers, consume);
    let taken = AtomicUsize::new(0);
    let run = || {
        // Stops the others if this worker panics (they would wait for
        // its result forever).
        let _guard = emitter.stop_on_unwind();
        let mut s = scratch();
        loop {
            let i = taken.fetch_add(1, Ordering::Relaxed);
            if i >= items || !emitter.wait_for_room(i) {
                return;
            }
            emitter.park(i, work(i, &mut s));
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..workers {
            scope.spawn(run);
        }
        run();
    });
    emitter.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    /// A consumer that fails on the result 10.
    fn consumer_stopping_at_10<T: PartialEq + From<u8>>(result: T) -> io::Result<()> {
        if result == T::from(10) {
            Err(io::Error::other("consumer stops at 10"))
        } else {
            Ok(())
        }
    }

    #[test]
    fn results_come_back_in_order() {
        for workers in [1, 2, 3, 8] {
            let mut got = Vec::new();
            for_each_ordered::<_, _, _, io::Error>(
                (0..1000u64).map(Ok),
                workers,
                || 0u64,
                |i, calls| {
                    *calls += 1;
                    // Uneven work, so workers finish out of order.
                    std::thread::sleep(std::time::Duration::from_micros(i % 7 * 20));
                    i * 2
                },
                |r| {
                    got.push(r);
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(got, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn indexed_results_come_back_in_order_and_errors_stop_early() {
        for workers in [1, 2, 3, 8] {
            for items in [0, 1, 5, 1000] {
                let mut got = Vec::new();
                for_each_index_ordered::<_, _, io::Error>(
                    items,
                    workers,
                    || 0u64,
                    |i, calls| {
                        *calls += 1;
                        std::thread::sleep(std::time::Duration::from_micros(i as u64 % 7 * 20));
                        Ok(i * 2)
                    },
                    |r| {
                        got.push(r);
                        Ok(())
                    },
                )
                .unwrap();
                assert_eq!(got, (0..items).map(|i| i * 2).collect::<Vec<_>>());
            }
        }
        let mut seen = Vec::new();
        let err = for_each_index_ordered(
            100,
            3,
            || (),
            |i, _| {
                if i == 50 {
                    Err(io::Error::other("item 50"))
                } else {
                    Ok(i)
                }
            },
            |i| {
                seen.push(i);
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "item 50");
        assert_eq!(
            seen,
            (0..50).collect::<Vec<_>>(),
            "results before the error, in order"
        );
        let err = for_each_index_ordered(
            100,
            2,
            || (),
            |i, _| Ok::<_, io::Error>(i),
            consumer_stopping_at_10,
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "consumer stops at 10");
    }

    #[test]
    fn indexed_results_wait_in_a_bounded_ring() {
        use std::sync::atomic::Ordering::SeqCst;
        for workers in [1, 2, 3] {
            // Results made and not yet consumed: at most the ring's
            // `DEPTH_PER_WORKER * workers`, and the one being consumed.
            let (alive, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
            for_each_index_ordered::<_, _, io::Error>(
                300,
                workers,
                || (),
                |i, _| {
                    // Item 0 of each 50 is slow: the others run ahead.
                    let slow = if i % 50 == 0 { 2000 } else { 10 };
                    std::thread::sleep(std::time::Duration::from_micros(slow));
                    most.fetch_max(alive.fetch_add(1, SeqCst) + 1, SeqCst);
                    Ok(i)
                },
                |_| {
                    alive.fetch_sub(1, SeqCst);
                    Ok(())
                },
            )
            .unwrap();
            let most = most.load(SeqCst);
            let bound = DEPTH_PER_WORKER * workers + 1;
            assert!(most <= bound, "{most} results alive with {workers} workers");
            if workers > 1 {
                assert!(most > 2, "the workers ran ahead of the slow items");
            }
        }
    }

    #[test]
    fn a_panicking_worker_stops_the_others() {
        for panics_at in [0, 1, 7] {
            let (done, finished) = mpsc::channel();
            std::thread::spawn(move || {
                let outcome = std::panic::catch_unwind(|| {
                    for_each_index_ordered::<_, _, io::Error>(
                        100,
                        3,
                        || (),
                        |i, _| {
                            assert_ne!(i, panics_at, "work panics");
                            Ok(i)
                        },
                        |_| Ok(()),
                    )
                });
                let _ = done.send(outcome.is_err());
            });
            let panicked = finished
                .recv_timeout(std::time::Duration::from_secs(20))
                .expect("the other workers stopped instead of waiting for the item");
            assert!(panicked, "the panic reaches the caller");
        }
    }

    #[test]
    fn errors_stop_early() {
        let mut seen = 0;
        let err = for_each_ordered(
            (0..100u32).map(|i| {
                if i == 50 {
                    Err(io::Error::other("item 50"))
                } else {
                    Ok(i)
                }
            }),
            2,
            || (),
            |i, _| i,
            |_| {
                seen += 1;
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "item 50");
        assert!(seen <= 50);
        let err = for_each_ordered(
            (0..100u32).map(Ok),
            3,
            || (),
            |i, _| i,
            consumer_stopping_at_10,
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "consumer stops at 10");
    }
}
