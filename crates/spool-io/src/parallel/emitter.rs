//! The in-order consumer of
//! [`for_each_index_ordered`](super::for_each_index_ordered): no thread
//! of its own.
//!
//! A consuming thread that waits for each result costs a wake-up per
//! result, and on a 2-core machine a third busy thread besides two
//! workers. Here the worker that parks the next result in order consumes
//! it itself, and whatever was parked after it, while the other workers
//! go on (the combining pattern); results that come early wait in a
//! bounded ring.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// The in-order consumer of the ordered map's results, run by
/// whichever worker parks the next one: results wait in `parked` until
/// their turn, and the worker that finds the next one there takes over
/// consuming (outside the lock, so the others can park meanwhile) until
/// the next is missing.
///
/// Invariants, under the lock: `parked[k]` is item `next + k`'s result if
/// it is done and not yet consumed; at most one worker is consuming
/// (`consuming`), and it looks at `parked[0]` once more under the lock
/// before it lets go, so no parked result is left behind.
pub(super) struct Emitter<R, E, F> {
    state: Mutex<EmitState<R, E>>,
    /// Signalled when `next` moves on or the run stops.
    room: Condvar,
    /// Taken only by the consuming worker, so never waited for.
    consume: Mutex<F>,
    depth: usize,
}

struct EmitState<R, E> {
    next: usize,
    parked: VecDeque<Option<Result<R, E>>>,
    consuming: bool,
    /// Workers waiting for room.
    waiting: usize,
    /// The first error in item order; no result is consumed after it.
    error: Option<E>,
    /// Set on an error or a panic: workers start no more items.
    stopped: bool,
}

impl<R, E, F: FnMut(R) -> Result<(), E>> Emitter<R, E, F> {
    pub(super) fn new(depth: usize, consume: F) -> Self {
        Emitter {
            state: Mutex::new(EmitState {
                next: 0,
                parked: (0..depth).map(|_| None).collect(),
                consuming: false,
                waiting: 0,
                error: None,
                stopped: false,
            }),
            room: Condvar::new(),
            consume: Mutex::new(consume),
            depth,
        }
    }

    fn lock(&self) -> MutexGuard<'_, EmitState<R, E>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until item `i` has a parking slot; false if the run stopped.
    pub(super) fn wait_for_room(&self, i: usize) -> bool {
        let mut st = self.lock();
        while !st.stopped && i >= st.next + self.depth {
            st.waiting += 1;
            st = self.room.wait(st).unwrap_or_else(PoisonError::into_inner);
            st.waiting -= 1;
        }
        !st.stopped
    }

    /// Parks item `i`'s result, then consumes results in order while the
    /// next one is parked, unless another worker is doing so already.
    pub(super) fn park(&self, i: usize, result: Result<R, E>) {
        let mut st = self.lock();
        let slot = i - st.next;
        st.parked[slot] = Some(result);
        if st.consuming || slot != 0 {
            return;
        }
        st.consuming = true;
        while !st.stopped {
            let Some(result) = st.parked.front_mut().and_then(Option::take) else {
                break;
            };
            st.parked.rotate_left(1);
            st.next += 1;
            if st.waiting > 0 {
                self.room.notify_all();
            }
            drop(st);
            let consumed = result.and_then(|r| {
                let mut consume = self.consume.lock().unwrap_or_else(PoisonError::into_inner);
                (*consume)(r)
            });
            st = self.lock();
            if let Err(e) = consumed {
                st.error = Some(e);
                st.stopped = true;
                self.room.notify_all();
            }
        }
        st.consuming = false;
    }

    /// A guard that stops the run if dropped while its thread panics.
    pub(super) fn stop_on_unwind(&self) -> impl Drop + '_ {
        struct Guard<'a, R, E, F: FnMut(R) -> Result<(), E>>(&'a Emitter<R, E, F>);
        impl<R, E, F: FnMut(R) -> Result<(), E>> Drop for Guard<'_, R, E, F> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.lock().stopped = true;
                    self.0.room.notify_all();
                }
            }
        }
        Guard(self)
    }

    pub(super) fn finish(self) -> Result<(), E> {
        let st = self
            .state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        st.error.map_or(Ok(()), Err)
    }
}
