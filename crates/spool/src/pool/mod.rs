//! One pre-allocated arena handed out as owned, `Send` slices that give
//! their space back when dropped — lock-free, heap only when the arena is
//! full.
//!
//! A proxy or mining pool with thousands of connections decodes one message
//! at a time per connection: fill the header, learn the length, fill the
//! body, hand the frame to another thread, start the next. A fresh `Vec` per
//! message is an allocator round trip per message under load. A
//! [`BufferPool`] allocates once; the producer appends a message's bytes with
//! [`reserve`](BufferPool::reserve) (a bounds check and a pointer bump) and
//! freezes it into a [`Slice`] with [`freeze`](BufferPool::freeze). The
//! slice can go to any thread; cloning it shares the span and dropping it
//! is one atomic operation on its slot's holder count. The pending message
//! can be read, patched and cut short in place ([`pending`](BufferPool::pending),
//! [`pending_ref`](BufferPool::pending_ref), [`truncate`](BufferPool::truncate)),
//! which is what a decoder that decrypts in place needs. The pool's own API
//! has one name per job (`reserve`, `freeze`, `pending`, `discard`);
//! `buffer_sv2`'s names for the same jobs live in [`compat`], for code
//! ported from that crate (the `buffer_sv2` crate itself, for Stratum V2's
//! `codec_sv2`, is `compat/buffer_sv2` in spool's repository).
//!
//! # Layout
//!
//! ```text
//!  arena:  [ live A | released B | live C |  pending msg -> | free ... ]
//!                                          ^msg_start  ^head   ^limit
//!  spans (producer-side, cyclic order after head):  A  B  C
//!  slot holder counts (shared):  A: 1   B: 0 (released)   C: 2 (cloned)
//! ```
//!
//! Frozen messages are recorded as spans in the order they were placed,
//! which is their address order starting after the write position. When
//! the free gap ahead runs out, the producer reclaims spans at the front of
//! that order whose holder count reads 0; a span still held there is
//! skipped over (the pending message moves past it and the span goes to the
//! back of the order). At the arena's end the pending message wraps to the
//! start. Slots come back in any order too: a freeze that finds none free
//! takes back every released frame wherever it lies (`reclaim.rs`), so one
//! long-lived frame stalls neither the arena nor the slots. Only when no
//! gap anywhere fits, or every slot is held, does the message spill to the
//! heap — counted in [`PoolStats::fallbacks`] — and the next message tries
//! the arena again.
//!
//! Bounds: the arena (`capacity` bytes), one `u32` count per slot and the
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
//! pool.reserve(5).copy_from_slice(b"hello");
//! pool.reserve(6).copy_from_slice(b" world");
//! let frame = pool.freeze();
//! assert_eq!(&frame[..], b"hello world");
//! let handle = std::thread::spawn(move || frame.len()); // Send
//! assert_eq!(handle.join().unwrap(), 11);
//! assert_eq!(pool.stats().fallbacks, 0);
//! ```

mod buffer;
pub mod compat;
mod config;
mod gaps;
pub(crate) mod loom;
mod pending;
mod reclaim;
mod shared;
mod slice;
mod stats;

use alloc::vec::Vec;

use alloc::collections::VecDeque;
use core::ptr::NonNull;

pub use buffer::{Buffer, HeapBuffer};
pub use config::{PoolConfig, DEFAULT_SLOTS};
pub use slice::Slice;
pub use stats::PoolStats;

use shared::Shared;

/// How far the write position gets before the pool returns to the arena's
/// start when the space there is free (see `wrap_early`): about an L1 cache.
const EARLY_WRAP: usize = 32 << 10;

/// A frozen message's place in the arena.
#[derive(Clone, Copy, Debug)]
struct Span {
    slot: u32,
    start: usize,
    end: usize,
}

/// A pre-allocated arena of message buffers; see the [module
/// documentation](self).
///
/// # Examples
///
/// ```
/// let mut pool = spool::pool::BufferPool::new(1024);
/// let frames: Vec<_> = (0..4u8)
///     .map(|i| {
///         pool.reserve(1)[0] = i;
///         pool.freeze()
///     })
///     .collect();
/// assert!(frames.iter().all(|f| f.is_pooled()));
/// assert_eq!(pool.stats().live, 4);
/// ```
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
    /// Freezes that find no free slot before the next full scan of the
    /// spans (see `reclaim.rs`).
    scan_wait: usize,
}

// SAFETY: the pool is the producer: it owns the pending region and the span
// queue outright and touches the shared slot counts only atomically, so it
// can move to another thread like any owned buffer.
unsafe impl Send for BufferPool {}
// SAFETY: through `&BufferPool` the pending bytes and the span queue are
// only read (they change only through `&mut self`) and the slot counts are
// only loaded atomically, so sharing a pool between threads is like
// sharing a `Vec`.
unsafe impl Sync for BufferPool {}

impl BufferPool {
    /// A pool over one `capacity`-byte arena with [`DEFAULT_SLOTS`] slots:
    /// `with_config(PoolConfig::with_capacity(capacity))`.
    ///
    /// # Examples
    ///
    /// ```
    /// let pool = spool::pool::BufferPool::new(327_680);
    /// assert_eq!(pool.stats().capacity, 327_680);
    /// ```
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self::with_config(PoolConfig::with_capacity(capacity))
    }

    /// A pool over one `config.capacity`-byte arena allowing `config.slots`
    /// live frames.
    ///
    /// # Panics
    ///
    /// If `config.slots` exceeds `u32::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::pool::{BufferPool, PoolConfig};
    ///
    /// let mut pool = BufferPool::with_config(PoolConfig { capacity: 1024, slots: 1 });
    /// pool.reserve(1);
    /// let held = pool.freeze();
    /// pool.reserve(1);
    /// let _second = pool.freeze(); // no free slot: a heap slice
    /// assert_eq!(pool.stats().fallbacks, 1);
    /// # drop(held);
    /// ```
    #[must_use]
    pub fn with_config(config: PoolConfig) -> Self {
        let PoolConfig { capacity, slots } = config;
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
            scan_wait: 0,
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
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(16);
    /// pool.reserve(2).copy_from_slice(b"hi");
    /// assert_eq!(pool.len(), 2);
    /// ```
    #[doc(alias = "get_writable")]
    pub fn reserve(&mut self, len: usize) -> &mut [u8] {
        if self.spilled.is_none() && len <= self.limit - self.head {
            let at = self.head;
            self.head += len;
            // SAFETY: `at..at + len` lies in the free gap before `limit`,
            // which no live slice owns, and `&mut self` is the only access.
            return unsafe { core::slice::from_raw_parts_mut(self.arena().add(at), len) };
        }
        self.reserve_slow(len)
    }

    #[cold]
    fn reserve_slow(&mut self, len: usize) -> &mut [u8] {
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
        unsafe { core::slice::from_raw_parts_mut(arena.add(at), len) }
    }

    /// Freezes the pending message into an owned [`Slice`] and starts a new
    /// one. A message that spilled to the heap, or that finds every slot
    /// live, becomes a heap slice (counted as a fallback in the latter
    /// case).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(16);
    /// pool.reserve(2).copy_from_slice(b"hi");
    /// let frame = pool.freeze();
    /// assert_eq!(&frame[..], b"hi");
    /// assert!(pool.is_empty());
    /// ```
    #[must_use = "dropping the frame at once gives its space back unread"]
    #[doc(alias = "get_data_owned")]
    pub fn freeze(&mut self) -> Slice {
        if let Some(v) = self.spilled.take() {
            self.limit = self.head;
            return Slice::from(v);
        }
        let len = self.head - self.msg_start;
        if len == 0 {
            return Slice::from(Vec::new());
        }
        if self.free_slots.is_empty() {
            self.reclaim_front();
        }
        if self.free_slots.is_empty() {
            self.reclaim_released();
        }
        let Some(slot) = self.free_slots.pop() else {
            self.spill();
            return self.freeze();
        };
        self.shared().claim(slot as usize);
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
        // SAFETY: the slot was free and now has this slice as its one
        // holder; the span is in the arena and the pool will not touch it
        // until every holder has released the slot.
        unsafe { Slice::from_arena(self.shared, slot, ptr, len) }
    }

    /// Current counters. O(live frames).
    ///
    /// # Examples
    ///
    /// ```
    /// let pool = spool::pool::BufferPool::new(64);
    /// assert_eq!(pool.stats().in_use, 0);
    /// ```
    #[must_use]
    pub fn stats(&self) -> PoolStats {
        let shared = self.shared();
        let live: Vec<&Span> = self
            .spans
            .iter()
            .filter(|s| !shared.is_released(s.slot as usize))
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

impl core::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BufferPool")
            .field("stats", &self.stats())
            .finish()
    }
}
