//! The end of a Parquet run: every writer thread's spilled groups on one
//! board, converted by whichever thread is free, heaviest first.
//!
//! A writer thread spills the groups it has no writer for to its own log
//! (see the `spill` module) and turns them into part files once the input
//! ends. Which thread a group belongs to follows from its number, not its
//! size, so one thread can be left with much more spilled text than the
//! other, converting long after the other has ended, one core idle
//! (docs/perf/partition-parquet.md, "Spilled groups shared at the end").
//! On the board, each thread posts its own spilled groups when its
//! input ends, then takes the heaviest group left, whichever thread's log
//! it is in, until none is left. The threads end within about one group's
//! conversion of each other; heaviest first is the longest-processing-time
//! order, which finishes within 4/3 of the best possible schedule.
//!
//! ```text
//!  thread 0: … input ─► post(0's groups) ─► take ─► take ─► … ─► None
//!  thread 1: … input ─────────► post(1's groups) ─► take ─► … ─► None
//!                       board: heaviest first, from both logs
//! ```
//!
//! # Invariants
//!
//! - Every [`Poster`] is made before any posts: a taker that finds the
//!   board empty waits only while some poster has not posted, and the
//!   writer threads are all started, each with its poster, before their
//!   input can end.
//! - A poster dropped without posting (a thread that failed or panicked)
//!   counts as having posted nothing, so no taker waits for it forever.
//! - [`take`](Board::take) gives `None` only once every item taken is
//!   [done](Done): a thread that finds the board empty may then read what
//!   the others' conversions left.
//! - After [`stop`](Board::stop), [`take`](Board::take) gives nothing: a
//!   failed run converts no more groups.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Work posted by several threads and taken by any of them, heaviest
/// first, once every poster has posted; see the module docs.
pub(crate) struct Board<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
}

struct State<T> {
    /// Posted, not yet taken: each poster's items, lightest first (kept
    /// apart, not merged: with many keys a merge would copy every item).
    waiting: Vec<Vec<(u64, T)>>,
    /// Posters that have not posted yet.
    unposted: usize,
    /// Items taken whose [`Done`] is not dropped yet.
    taken: usize,
    stopped: bool,
}

impl<T> Board<T> {
    /// An empty board without posters.
    pub fn new() -> Self {
        Board {
            state: Mutex::new(State {
                waiting: Vec::new(),
                unposted: 0,
                taken: 0,
                stopped: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State<T>> {
        // A thread that panicked holding the lock left the state whole:
        // every change under it is a single push, pop, count or clear (a
        // poster sorts its items before it takes the lock).
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One more thread that will post once; takers wait for it.
    pub fn poster(self: &Arc<Self>) -> Poster<T> {
        self.state().unposted += 1;
        Poster {
            board: Some(self.clone()),
        }
    }

    fn post(&self, mut items: Vec<(u64, T)>) {
        items.sort_unstable_by_key(|&(weight, _)| weight);
        let mut state = self.state();
        if !items.is_empty() {
            state.waiting.push(items);
        }
        state.unposted -= 1;
        drop(state);
        self.changed.notify_all();
    }

    /// The heaviest item waiting, and a [`Done`] to drop when its work is
    /// finished (or has failed, or panicked); once nothing is waiting,
    /// waits for the posters yet to post and the items taken to be done,
    /// and gives `None` when all have posted and every item is done, or
    /// after [`stop`](Self::stop). So when a taker gets `None`, the work
    /// of every item is finished.
    pub fn take(&self) -> Option<(T, Done<'_, T>)> {
        let mut state = self.state();
        loop {
            if state.stopped {
                return None;
            }
            let heaviest = (state.waiting.iter().enumerate())
                .max_by_key(|(_, items)| items.last().map(|&(weight, _)| weight))
                .map(|(i, _)| i);
            if let Some(i) = heaviest {
                let (_, item) = state.waiting[i].pop().expect("lists are not empty");
                if state.waiting[i].is_empty() {
                    state.waiting.swap_remove(i);
                }
                state.taken += 1;
                return Some((item, Done(self)));
            }
            if state.unposted == 0 && state.taken == 0 {
                return None;
            }
            state = (self.changed.wait(state)).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn done(&self) {
        let mut state = self.state();
        state.taken -= 1;
        drop(state);
        self.changed.notify_all();
    }

    /// Takes items and does `work` on each, one at a time, until
    /// [`take`](Self::take) gives `None`; the first error stops every
    /// taker (see [`stop`](Self::stop)) and is returned.
    ///
    /// # Errors
    ///
    /// The first error `work` returns.
    pub fn work_through<E>(&self, mut work: impl FnMut(T) -> Result<(), E>) -> Result<(), E> {
        while let Some((item, done)) = self.take() {
            let result = work(item);
            drop(done);
            if let Err(e) = result {
                self.stop();
                return Err(e);
            }
        }
        Ok(())
    }

    /// Gives nothing more to any taker (what is waiting is dropped).
    pub fn stop(&self) {
        let mut state = self.state();
        state.stopped = true;
        state.waiting.clear();
        drop(state);
        self.changed.notify_all();
    }
}

/// An item [taken](Board::take) whose work is not finished yet; dropping
/// it says it is (by unwinding too, so that a thread that panics holds no
/// other taker up).
pub(crate) struct Done<'a, T>(&'a Board<T>);

impl<T> Drop for Done<'_, T> {
    fn drop(&mut self) {
        self.0.done();
    }
}

/// A thread's right and duty to post once to a [`Board`].
pub(crate) struct Poster<T> {
    /// `None` once posted.
    board: Option<Arc<Board<T>>>,
}

impl<T> Poster<T> {
    /// Puts `items`, each with its weight, on the board.
    pub fn post(mut self, items: Vec<(u64, T)>) {
        if let Some(board) = self.board.take() {
            board.post(items);
        }
    }
}

impl<T> Drop for Poster<T> {
    fn drop(&mut self) {
        if let Some(board) = self.board.take() {
            board.post(Vec::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// Takes an item and reports it done at once.
    fn take_done<T>(board: &Board<T>) -> Option<T> {
        board.take().map(|(item, _done)| item)
    }

    /// One taker gets the heaviest first, whoever posted it.
    #[test]
    fn items_come_heaviest_first_from_every_poster() {
        let board = Arc::new(Board::new());
        let (a, b) = (board.poster(), board.poster());
        a.post(vec![(3, "a3"), (1, "a1")]);
        b.post(vec![(2, "b2"), (5, "b5")]);
        let order: Vec<_> = std::iter::from_fn(|| take_done(&board)).collect();
        assert_eq!(order, ["b5", "a3", "b2", "a1"]);
    }

    /// Working through the board does every item, heaviest first; the
    /// first failure stops it, for every taker, and is returned.
    #[test]
    fn working_through_stops_at_the_first_failure() {
        let board = Arc::new(Board::new());
        board.poster().post(vec![(1, 1), (3, 3), (2, 2)]);
        let mut done = Vec::new();
        let all = board.work_through(|i| {
            done.push(i);
            Ok::<_, ()>(())
        });
        assert_eq!(all, Ok(()));
        assert_eq!(done, [3, 2, 1]);

        let board = Arc::new(Board::new());
        board.poster().post(vec![(1, 1), (3, 3), (2, 2)]);
        let mut tried = Vec::new();
        let failed = board.work_through(|i| {
            tried.push(i);
            if i == 2 {
                Err(i)
            } else {
                Ok(())
            }
        });
        assert_eq!((failed, tried), (Err(2), vec![3, 2]));
        assert!(board.take().is_none(), "a failure stops every taker");
    }

    /// A taker that empties the board waits for a poster still to post,
    /// then takes what it posts.
    #[test]
    fn a_taker_waits_for_the_posters_still_to_post() {
        let board = Arc::new(Board::new());
        let (early, late) = (board.poster(), board.poster());
        early.post(vec![(1, 1)]);
        let taker = {
            let board = board.clone();
            std::thread::spawn(move || std::iter::from_fn(|| take_done(&board)).collect::<Vec<_>>())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!taker.is_finished(), "ended before the last poster posted");
        late.post(vec![(7, 7), (3, 3)]);
        let mut got = taker.join().unwrap();
        got.sort_unstable();
        assert_eq!(got, [1, 3, 7]);
    }

    /// A taker that finds the board empty waits for the items others
    /// have taken to be done: after `None`, all work is finished.
    #[test]
    fn the_board_is_empty_only_once_every_item_is_done() {
        let board = Arc::new(Board::new());
        board.poster().post(vec![(1, ())]);
        let (item, done) = board.take().expect("posted");
        let finished = Arc::new(AtomicUsize::new(0));
        let taker = {
            let (board, finished) = (board.clone(), finished.clone());
            std::thread::spawn(move || {
                let got = take_done(&board);
                (got, finished.load(Ordering::SeqCst))
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !taker.is_finished(),
            "ended while an item was being worked on"
        );
        finished.store(1, Ordering::SeqCst);
        drop((item, done));
        assert_eq!(taker.join().unwrap(), (None, 1));
    }

    /// A thread that panics at work on an item holds no other taker up.
    #[test]
    fn an_item_whose_work_panicked_counts_as_done() {
        let board = Arc::new(Board::new());
        board.poster().post(vec![(1, ())]);
        let worker = {
            let board = board.clone();
            std::thread::spawn(move || {
                let (_item, _done) = board.take().expect("posted");
                panic!("the work failed");
            })
        };
        assert!(worker.join().is_err());
        assert!(board.take().is_none());
    }

    /// A poster dropped unposted (its thread failed) lets the takers end.
    #[test]
    fn a_poster_dropped_unposted_counts_as_posting_nothing() {
        let board = Arc::new(Board::new());
        let (lost, kept) = (board.poster(), board.poster());
        kept.post(vec![(1, ())]);
        assert_eq!(take_done(&board), Some(()));
        let taker = {
            let board = board.clone();
            std::thread::spawn(move || take_done(&board))
        };
        drop(lost);
        assert_eq!(taker.join().unwrap(), None);
    }

    /// After `stop`, a waiting taker wakes and nothing more is given,
    /// not even what is posted later.
    #[test]
    fn stop_ends_every_taker() {
        let board = Arc::new(Board::new());
        let (a, late) = (board.poster(), board.poster());
        a.post(vec![(1, 1), (2, 2)]);
        let taker = {
            let board = board.clone();
            std::thread::spawn(move || std::iter::from_fn(|| take_done(&board)).collect::<Vec<_>>())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!taker.is_finished(), "ended before the last poster posted");
        board.stop();
        assert_eq!(taker.join().unwrap(), [2, 1]);
        late.post(vec![(3, 3)]);
        assert_eq!(take_done(&board), None);
    }

    /// Many threads posting and taking at once: each item is taken once.
    #[test]
    fn every_item_is_taken_exactly_once() {
        let board = Arc::new(Board::new());
        let posters: Vec<_> = (0..4).map(|_| board.poster()).collect();
        let taken = Arc::new(AtomicUsize::new(0));
        let sum = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (posters.into_iter().enumerate())
            .map(|(t, poster)| {
                let (board, taken, sum) = (board.clone(), taken.clone(), sum.clone());
                std::thread::spawn(move || {
                    poster.post((0..100).map(|i| (i as u64 % 7, t * 100 + i)).collect());
                    while let Some(x) = take_done(&board) {
                        taken.fetch_add(1, Ordering::Relaxed);
                        sum.fetch_add(x, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(taken.load(Ordering::Relaxed), 400);
        assert_eq!(sum.load(Ordering::Relaxed), (0..400).sum::<usize>());
    }
}
