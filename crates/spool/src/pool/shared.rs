//! The memory shared by a pool and its slices: the arena, one release flag
//! per slot, and the count that frees both once pool and slices are gone.
//!
//! # Release protocol
//!
//! Each slot's state is one atomic byte:
//!
//! ```text
//!   FREE --freeze (producer)--> LIVE --drop (any thread)--> RELEASED
//!                                 \--pool dropped first---> ORPHANED
//! ```
//!
//! A slice's drop is one `swap(RELEASED)`; the producer reclaims a slot
//! after an `Acquire` load sees `RELEASED`, so every access the slice's
//! owner made to its bytes happens before the producer reuses them. When
//! the pool is dropped first it adds one to `owners` and swaps `ORPHANED`
//! into each live slot (taking the one back if the slice had already gone);
//! a slice that then finds `ORPHANED` subtracts one, and whoever takes
//! `owners` to zero frees the memory. The pool's own share is the initial
//! one, given up last, so the memory cannot go while the pool is still
//! marking slots.

use alloc::boxed::Box;
use alloc::vec;

use super::loom::{AtomicU8, AtomicUsize, Ordering};

pub(super) const FREE: u8 = 0;
pub(super) const LIVE: u8 = 1;
pub(super) const RELEASED: u8 = 2;
pub(super) const ORPHANED: u8 = 3;

pub(super) struct Shared {
    /// Start of the arena (`capacity` bytes, from a leaked `Box<[u8]>`).
    pub(super) arena: *mut u8,
    pub(super) capacity: usize,
    pub(super) slots: Box<[AtomicU8]>,
    /// The pool (1, until it is dropped) plus slices orphaned by its drop.
    owners: AtomicUsize,
}

impl Shared {
    /// Allocates the arena and the slot flags; returns the owning pointer.
    pub(super) fn allocate(capacity: usize, slots: usize) -> *mut Shared {
        let arena = Box::into_raw(vec![0u8; capacity].into_boxed_slice()) as *mut u8;
        let slots = (0..slots).map(|_| AtomicU8::new(FREE)).collect();
        Box::into_raw(Box::new(Shared {
            arena,
            capacity,
            slots,
            owners: AtomicUsize::new(1),
        }))
    }

    /// Marks a slot released (a slice's drop). Frees the shared memory if
    /// the pool is gone and this was the last slice.
    ///
    /// # Safety
    ///
    /// `this` is the pointer from [`allocate`](Self::allocate), not yet freed,
    /// and `slot` is the live slot of the slice being dropped (so the memory
    /// cannot be freed before this call: the slot still counts as an owner
    /// or is still `LIVE`).
    pub(super) unsafe fn release(this: *const Shared, slot: usize) {
        // SAFETY: alive, by the caller's contract.
        let shared = unsafe { &*this };
        if shared.slots[slot].swap(RELEASED, Ordering::AcqRel) == ORPHANED {
            // SAFETY: an orphaned slot holds one share of `owners`.
            unsafe { Self::give_up_share(this) };
        }
    }

    /// Called once by the pool's drop: orphans every live slot among
    /// `live`, then gives up the pool's own share.
    ///
    /// # Safety
    ///
    /// `this` is the pointer from [`allocate`](Self::allocate), not yet freed,
    /// and the pool calling this never touches it again.
    pub(super) unsafe fn orphan(this: *const Shared, live: impl Iterator<Item = usize>) {
        // SAFETY: alive: the pool's share has not been given up yet.
        let shared = unsafe { &*this };
        for slot in live {
            shared.owners.fetch_add(1, Ordering::Relaxed);
            if shared.slots[slot].swap(ORPHANED, Ordering::AcqRel) != LIVE {
                // Already released: that slice will not come back.
                shared.owners.fetch_sub(1, Ordering::Relaxed);
            }
        }
        // SAFETY: the pool's own share, given up exactly once.
        unsafe { Self::give_up_share(this) };
    }

    /// # Safety
    ///
    /// The caller holds one share of `owners` and gives it up.
    unsafe fn give_up_share(this: *const Shared) {
        // SAFETY: the caller's share keeps the memory alive until here.
        if unsafe { &*this }.owners.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: no share is left, so nothing can reach the memory:
            // reclaim the two boxes `allocate` leaked.
            unsafe {
                let shared = Box::from_raw(this as *mut Shared);
                drop(Box::from_raw(core::ptr::slice_from_raw_parts_mut(
                    shared.arena,
                    shared.capacity,
                )));
            }
        }
    }
}
