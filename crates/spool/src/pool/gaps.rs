//! Finding room in the arena for the pending message: reclaiming released
//! frames, looking past live ones, wrapping at the end, returning early to
//! the start, and — only when no gap anywhere fits — spilling to the heap.
//! See the [module documentation](super) for the layout these keep.
//!
//! The invariant every function here keeps (checked by
//! [`debug_check`](BufferPool::debug_check) in debug builds): the spans of
//! live frames are disjoint, in cyclic address order starting at the
//! pending message, and none overlaps the gap `msg_start..limit` the
//! pending message grows into. The fast path of
//! [`reserve`](BufferPool::reserve) relies on it.

use super::{BufferPool, Span, EARLY_WRAP};

impl BufferPool {
    /// Finds a gap for the pending message plus `len` bytes and moves the
    /// pending bytes there if it is elsewhere. Returns false (changing
    /// nothing but reclaiming) if no gap fits.
    pub(super) fn make_room(&mut self, len: usize) -> bool {
        let pending = self.head - self.msg_start;
        let Some(total) = pending.checked_add(len) else {
            return false;
        };
        if total > self.capacity {
            return false;
        }
        // Candidate start of the gap; spans skipped over so far.
        let mut pos = self.msg_start;
        let mut skipped = 0;
        let mut wrapped = false;
        loop {
            self.reclaim_front();
            let bound = match self.spans.front() {
                Some(s) if s.start >= pos => s.start,
                _ => self.capacity,
            };
            if total <= bound - pos {
                if pos != self.msg_start {
                    self.move_pending(pos);
                }
                self.limit = bound;
                self.debug_check();
                return true;
            }
            if bound == self.capacity {
                if wrapped {
                    break;
                }
                wrapped = true;
                pos = 0;
            } else if skipped < self.spans.len() {
                // A live frame in the way: look past it. It goes to the back
                // of the order, which stays "cyclic from the gap".
                let span = self.spans.pop_front().expect("bound came from a span");
                self.spans.push_back(span);
                skipped += 1;
                pos = span.end;
            } else {
                break;
            }
        }
        // No gap. Spans were rotated (and some reclaimed on the way, even
        // rotated ones that came back to the front), so restore the order
        // the fast path relies on: cyclic by address from the pending
        // message. Rare (the message is about to spill), so a sort is fine.
        let (base, cap) = (self.msg_start, self.capacity);
        self.spans
            .make_contiguous()
            .sort_unstable_by_key(|s| (s.start + cap - base) % cap);
        false
    }

    /// Moves the pending bytes to start at `to`.
    fn move_pending(&mut self, to: usize) {
        let pending = self.head - self.msg_start;
        // SAFETY: both ranges lie in the arena; the source is the pending
        // message and the destination starts a free gap (no live slice in
        // it); `ptr::copy` allows overlap.
        unsafe {
            core::ptr::copy(
                self.arena().add(self.msg_start),
                self.arena().add(to),
                pending,
            )
        };
        self.msg_start = to;
        self.head = to + pending;
    }

    /// Moves the pending message to the heap (a counted fallback).
    pub(super) fn spill(&mut self) {
        let pending = self.head - self.msg_start;
        // SAFETY: the pending bytes lie in the arena and only the pool
        // touches them.
        let bytes =
            unsafe { core::slice::from_raw_parts(self.arena().add(self.msg_start), pending) };
        self.spilled = Some(bytes.to_vec());
        self.head = self.msg_start;
        self.limit = self.head;
        self.fallbacks += 1;
    }

    /// Between messages: once the write position is past [`EARLY_WRAP`] and
    /// every live frame lies behind it with at least that much free space
    /// before the oldest, start the next message at the arena's start. A
    /// pool whose frames are released soon after they are made then keeps
    /// reusing the same, cache-warm bytes instead of sweeping the arena.
    pub(super) fn wrap_early(&mut self) {
        if self.head < EARLY_WRAP {
            return;
        }
        let oldest = self.spans.front().map_or(self.head, |s| s.start);
        // Strictly behind: a frame starting exactly at `head` is ahead of it.
        if oldest < self.head && oldest >= EARLY_WRAP {
            self.msg_start = 0;
            self.head = 0;
            self.limit = oldest;
        }
    }

    /// Checks, in debug builds, what the fast path relies on: the spans are
    /// disjoint, in cyclic address order starting at the pending message,
    /// and none overlaps the gap `msg_start..limit`.
    pub(super) fn debug_check(&self) {
        if cfg!(debug_assertions) && self.spilled.is_none() {
            let key = |s: &Span| (s.start + self.capacity - self.msg_start) % self.capacity.max(1);
            let mut prev_end_key = 0;
            for (i, s) in self.spans.iter().enumerate() {
                assert!(s.start < s.end && s.end <= self.capacity, "bad span {s:?}");
                let k = key(s);
                assert!(
                    i == 0 || k >= prev_end_key,
                    "spans out of order at {i}: {:?} (msg_start {}, head {}, limit {})",
                    self.spans,
                    self.msg_start,
                    self.head,
                    self.limit
                );
                prev_end_key = k + (s.end - s.start);
                assert!(
                    s.end <= self.msg_start || s.start >= self.limit,
                    "span {s:?} overlaps the gap {}..{}",
                    self.msg_start,
                    self.limit
                );
            }
        }
    }
}
