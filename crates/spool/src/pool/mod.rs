//! One pre-allocated arena handed out as owned, `Send` slices that give
//! their space back when dropped — lock-free, heap only when the arena is
//! full.
//!
//! A proxy or mining pool with thousands of connections decodes one message
//! at a time per connection: fill the header, learn the length, fill the
//! body, hand the frame to another thread, start the next. A fresh `Vec` per
//! message is an allocator round trip per message under load. A
//! [`BufferPool`] allocates once; the producer appends a message's bytes with
//! [`get_writable`](BufferPool::get_writable) (a bounds check and a pointer
//! bump) and freezes it into a [`Slice`] with
//! [`get_data_owned`](BufferPool::get_data_owned). The slice can go to any
//! thread; dropping it is one atomic swap on its slot's flag.
//!
//! # Layout
//!
//! ```text
//!  arena:  [ live A | released B | live C |  pending msg -> | free ... ]
//!                                          ^msg_start  ^head   ^limit
//!  spans (producer-side, cyclic order after head):  A  B  C
//!  slot flags (shared):  A: LIVE   B: RELEASED   C: LIVE
//! ```
//!
//! Frozen messages are recorded as spans in the order they were placed,
//! which is their address order starting after the write position. When
//! the free gap ahead runs out, the producer reclaims spans at the front of
//! that order whose flag reads `RELEASED`; a span still live there is
//! skipped over (the pending message moves past it and the span goes to the
//! back of the order), so one long-lived frame does not stall the pool. At
//! the arena's end the pending message wraps to the start. Only when no gap
//! anywhere fits does the message spill to the heap — counted in
//! [`PoolStats::fallbacks`] — and the next message tries the arena again.
//!
//! Bounds: the arena (`capacity` bytes), one flag byte per slot and the
//! producer's span queue (16 bytes per slot) are allocated up front; at
//! most `slots` frames (1024 by default) are live at once before freezing
//! falls back to the heap.
//!
//! # Examples
//!
//! ```
//! use spool::pool::BufferPool;
//!
//! let mut pool = BufferPool::new(4096);
//! pool.get_writable(5).copy_from_slice(b"hello");
//! pool.get_writable(6).copy_from_slice(b" world");
//! let frame = pool.get_data_owned();
//! assert_eq!(&frame[..], b"hello world");
//! let handle = std::thread::spawn(move || frame.len()); // Send
//! assert_eq!(handle.join().unwrap(), 11);
//! assert_eq!(pool.stats().fallbacks, 0);
//! ```

mod buffer;
pub(crate) mod loom;
mod shared;
mod slice;

use std::collections::VecDeque;
use std::ptr::NonNull;

pub use buffer::{Buffer, HeapBuffer};
pub use slice::Slice;

use loom::Ordering;
use shared::{Shared, LIVE, RELEASED};

/// How far the write position gets before the pool returns to the arena's
/// start when the space there is free (see `wrap_early`): about an L1 cache.
const EARLY_WRAP: usize = 32 << 10;

/// Default number of slots: frames that can be live at once.
pub const DEFAULT_SLOTS: usize = 1024;

/// A frozen message's place in the arena.
#[derive(Clone, Copy, Debug)]
struct Span {
    slot: u32,
    start: usize,
    end: usize,
}

/// Counters of a pool's use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Arena size in bytes.
    pub capacity: usize,
    /// Bytes of the arena held by live slices right now.
    pub in_use: usize,
    /// The most bytes live slices ever held at once (as seen at freezes).
    pub high_water: usize,
    /// Messages that had to live on the heap because the arena was full.
    pub fallbacks: u64,
    /// Slices currently alive in the arena.
    pub live: usize,
}

/// A pre-allocated arena of message buffers; see the [module
/// documentation](self).
pub struct BufferPool {
    shared: NonNull<Shared>,
    capacity: usize,
    spans: VecDeque<Span>,
    free_slots: Vec<u32>,
    msg_start: usize,
    head: usize,
    /// End of the free gap the pending message is growing into.
    limit: usize,
    /// The pending message, when it had to move to the heap.
    spilled: Option<Vec<u8>>,
    high_water: usize,
    in_spans: usize,
    fallbacks: u64,
}

// SAFETY: the pool is the producer: it owns the pending region and the span
// queue outright and touches the shared slot flags only atomically, so it
// can move to another thread like any owned buffer.
unsafe impl Send for BufferPool {}

impl BufferPool {
    /// A pool over one `capacity`-byte arena with [`DEFAULT_SLOTS`] slots.
    pub fn new(capacity: usize) -> Self {
        Self::with_slots(capacity, DEFAULT_SLOTS)
    }

    /// A pool over one `capacity`-byte arena allowing `slots` live frames.
    ///
    /// # Panics
    ///
    /// If `slots` exceeds `u32::MAX`.
    pub fn with_slots(capacity: usize, slots: usize) -> Self {
        let slot_count = u32::try_from(slots).expect("at most u32::MAX slots");
        let shared =
            NonNull::new(Shared::allocate(capacity, slots)).expect("Box pointers are non-null");
        Self {
            shared,
            capacity,
            spans: VecDeque::with_capacity(slots),
            free_slots: (0..slot_count).rev().collect(),
            msg_start: 0,
            head: 0,
            limit: capacity,
            spilled: None,
            high_water: 0,
            in_spans: 0,
            fallbacks: 0,
        }
    }

    fn shared(&self) -> &Shared {
        // SAFETY: the pool holds a share of the shared memory until its drop.
        unsafe { self.shared.as_ref() }
    }

    fn arena(&self) -> *mut u8 {
        self.shared().arena
    }

    /// Appends `len` writable bytes to the pending message and returns them
    /// (zeroed or holding old data: write them all). The fast path is a
    /// bounds check and a pointer bump; when the gap ahead is used up the
    /// pool reclaims released space, skips live frames, wraps, and only as a
    /// last resort moves the message to the heap.
    pub fn get_writable(&mut self, len: usize) -> &mut [u8] {
        if self.spilled.is_none() && len <= self.limit - self.head {
            let at = self.head;
            self.head += len;
            // SAFETY: `at..at + len` lies in the free gap before `limit`,
            // which no live slice owns, and `&mut self` is the only access.
            return unsafe { std::slice::from_raw_parts_mut(self.arena().add(at), len) };
        }
        self.get_writable_slow(len)
    }

    #[cold]
    fn get_writable_slow(&mut self, len: usize) -> &mut [u8] {
        if self.spilled.is_none() && !self.make_room(len) {
            self.spill();
        }
        let arena = self.arena();
        if let Some(v) = &mut self.spilled {
            let at = v.len();
            v.resize(at + len, 0);
            return &mut v[at..];
        }
        let at = self.head;
        self.head += len;
        // SAFETY: `make_room` left `at..at + len` inside the free gap.
        unsafe { std::slice::from_raw_parts_mut(arena.add(at), len) }
    }

    /// Finds a gap for the pending message plus `len` bytes and moves the
    /// pending bytes there if it is elsewhere. Returns false (changing
    /// nothing but reclaiming) if no gap fits.
    fn make_room(&mut self, len: usize) -> bool {
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
            std::ptr::copy(
                self.arena().add(self.msg_start),
                self.arena().add(to),
                pending,
            )
        };
        self.msg_start = to;
        self.head = to + pending;
    }

    /// Moves the pending message to the heap (a counted fallback).
    fn spill(&mut self) {
        let pending = self.head - self.msg_start;
        // SAFETY: the pending bytes lie in the arena and only the pool
        // touches them.
        let bytes =
            unsafe { std::slice::from_raw_parts(self.arena().add(self.msg_start), pending) };
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
    fn wrap_early(&mut self) {
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
    fn debug_check(&self) {
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

    /// Reclaims released frames at the front of the span order.
    fn reclaim_front(&mut self) {
        while let Some(span) = self.spans.front() {
            if self.shared().slots[span.slot as usize].load(Ordering::Acquire) != RELEASED {
                break;
            }
            let span = self.spans.pop_front().expect("front exists");
            self.in_spans -= span.end - span.start;
            self.free_slots.push(span.slot);
        }
    }

    /// Freezes the pending message into an owned [`Slice`] and starts a new
    /// one. A message that spilled to the heap, or that finds every slot
    /// live, becomes a heap slice (counted as a fallback in the latter
    /// case).
    pub fn get_data_owned(&mut self) -> Slice {
        if let Some(v) = self.spilled.take() {
            self.limit = self.head;
            return Slice::from_heap(v.into_boxed_slice());
        }
        let len = self.head - self.msg_start;
        if len == 0 {
            return Slice::from_heap(Box::default());
        }
        if self.free_slots.is_empty() {
            self.reclaim_front();
        }
        let Some(slot) = self.free_slots.pop() else {
            self.spill();
            return self.get_data_owned();
        };
        self.shared().slots[slot as usize].store(LIVE, Ordering::Relaxed);
        self.spans.push_back(Span {
            slot,
            start: self.msg_start,
            end: self.head,
        });
        self.in_spans += len;
        self.high_water = self.high_water.max(self.in_spans);
        // SAFETY: `msg_start` is inside the arena.
        let ptr = unsafe { NonNull::new_unchecked(self.arena().add(self.msg_start)) };
        self.msg_start = self.head;
        self.reclaim_front();
        self.wrap_early();
        self.debug_check();
        // SAFETY: the slot was free and is now LIVE for this slice alone; the
        // span is in the arena and the pool will not touch it until the
        // slice releases the slot.
        unsafe { Slice::from_arena(self.shared, slot, ptr, len) }
    }

    /// The same as [`get_writable`](Self::get_writable).
    pub fn reserve(&mut self, len: usize) -> &mut [u8] {
        self.get_writable(len)
    }

    /// The same as [`get_data_owned`](Self::get_data_owned).
    pub fn freeze(&mut self) -> Slice {
        self.get_data_owned()
    }

    /// The first `min(len, pending)` bytes of the pending message.
    pub fn get_data_by_ref(&mut self, len: usize) -> &mut [u8] {
        let arena = self.arena();
        if let Some(v) = &mut self.spilled {
            let n = len.min(v.len());
            return &mut v[..n];
        }
        let n = len.min(self.head - self.msg_start);
        // SAFETY: the pending bytes lie in the arena; `&mut self` is unique.
        unsafe { std::slice::from_raw_parts_mut(arena.add(self.msg_start), n) }
    }

    /// Length of the pending (not yet frozen) message.
    pub fn len(&self) -> usize {
        match &self.spilled {
            Some(v) => v.len(),
            None => self.head - self.msg_start,
        }
    }

    /// Whether the pending message is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops the pending message.
    pub fn discard(&mut self) {
        self.spilled = None;
        self.head = self.msg_start;
    }

    /// Current counters. O(live frames).
    pub fn stats(&self) -> PoolStats {
        let shared = self.shared();
        let live: Vec<&Span> = self
            .spans
            .iter()
            .filter(|s| shared.slots[s.slot as usize].load(Ordering::Acquire) != RELEASED)
            .collect();
        PoolStats {
            capacity: self.capacity,
            in_use: live.iter().map(|s| s.end - s.start).sum(),
            high_water: self.high_water,
            fallbacks: self.fallbacks,
            live: live.len(),
        }
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        let live: Vec<usize> = self.spans.iter().map(|s| s.slot as usize).collect();
        // SAFETY: the pool's share is given up here, once; the pool is not
        // used afterwards.
        unsafe { Shared::orphan(self.shared.as_ptr(), live.into_iter()) };
    }
}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferPool")
            .field("stats", &self.stats())
            .finish()
    }
}
