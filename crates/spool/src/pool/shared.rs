//! The memory shared by a pool and its slices: the arena, one holder count
//! per slot, and the count that frees both once pool and slices are gone.
//!
//! # Release protocol
//!
//! Each slot's state is one atomic `u32`: the number of [`Slice`] handles
//! holding the slot's span (clones share it), plus an `ORPHANED` bit the
//! pool sets if it is dropped first.
//!
//! ```text
//!   0 (free) --freeze (producer)--> 1 --clone--> 2 ... --drops--> 0 (released)
//!                                   \--pool dropped first--> n | ORPHANED
//! ```
//!
//! A clone adds one (`Relaxed`, as `Arc` does: the cloner already holds a
//! share, so the slot cannot be released under it). A drop subtracts one
//! (`AcqRel`); the producer reclaims a slot after an `Acquire` load reads
//! 0, and since every drop is a read-modify-write on the same word, that
//! load synchronises with all of them: every access any holder made to the
//! bytes happens before the producer reuses them. A handle asking to write
//! ([`is_unique`](Shared::is_unique)) reads the count with `Acquire`; 1 means
//! no other handle exists or can appear (a clone needs a handle), and the
//! reads of holders already gone happen before the write.
//!
//! When the pool is dropped first it adds one to `owners` and sets
//! `ORPHANED` on each live slot (taking the one back if the count was
//! already 0); the drop that takes an orphaned slot's count to 0 subtracts
//! one, and whoever takes `owners` to zero frees the memory. The pool's own
//! share is the initial one, given up last, so the memory cannot go while
//! the pool is still marking slots.
//!
//! [`Slice`]: super::Slice

use alloc::boxed::Box;
use alloc::vec;

use super::loom::{AtomicU32, AtomicUsize, Ordering};

/// Set on a live slot's word when the pool is dropped before its holders.
const ORPHANED: u32 = 1 << 31;
/// The holder count: the word without [`ORPHANED`].
const HOLDERS: u32 = ORPHANED - 1;
/// Clones refused past this many holders of one slot, with room to spare
/// below [`ORPHANED`] for clones racing on other threads.
const MAX_HOLDERS: u32 = 1 << 30;

pub(super) struct Shared {
    /// Start of the arena (`capacity` bytes, from a leaked `Box<[u8]>`).
    pub(super) arena: *mut u8,
    pub(super) capacity: usize,
    slots: Box<[AtomicU32]>,
    /// The pool (1, until it is dropped) plus slices orphaned by its drop.
    owners: AtomicUsize,
}

impl Shared {
    /// Allocates the arena and the slot words; returns the owning pointer.
    pub(super) fn allocate(capacity: usize, slots: usize) -> *mut Shared {
        let arena = Box::into_raw(vec![0u8; capacity].into_boxed_slice()) as *mut u8;
        let slots = (0..slots).map(|_| AtomicU32::new(0)).collect();
        Box::into_raw(Box::new(Shared {
            arena,
            capacity,
            slots,
            owners: AtomicUsize::new(1),
        }))
    }

    /// Gives a free slot its first holder (the producer, at a freeze).
    pub(super) fn claim(&self, slot: usize) {
        self.slots[slot].store(1, Ordering::Relaxed);
    }

    /// Whether every holder of a claimed slot has let go (the producer may
    /// then reuse its span). Only meaningful while the pool is alive.
    pub(super) fn is_released(&self, slot: usize) -> bool {
        self.slots[slot].load(Ordering::Acquire) == 0
    }

    /// Whether the caller's handle is the slot's only holder.
    pub(super) fn is_unique(&self, slot: usize) -> bool {
        self.slots[slot].load(Ordering::Acquire) & HOLDERS == 1
    }

    /// Adds a holder to a slot (a slice's clone).
    ///
    /// # Panics
    ///
    /// Past [`MAX_HOLDERS`] holders of one slot.
    ///
    /// # Safety
    ///
    /// `this` is the pointer from [`allocate`](Self::allocate), not yet
    /// freed, and the caller holds `slot` (so it cannot be released or the
    /// memory freed during this call).
    pub(super) unsafe fn share(this: *const Shared, slot: usize) {
        // SAFETY: alive, by the caller's contract.
        let shared = unsafe { &*this };
        let before = shared.slots[slot].fetch_add(1, Ordering::Relaxed);
        if before & HOLDERS >= MAX_HOLDERS {
            shared.slots[slot].fetch_sub(1, Ordering::Relaxed);
            panic!("more than {MAX_HOLDERS} clones of one pool slice");
        }
    }

    /// Removes a holder from a slot (a slice's drop). Frees the shared
    /// memory if the pool is gone and this was the last holder of the last
    /// orphaned slot.
    ///
    /// # Safety
    ///
    /// `this` is the pointer from [`allocate`](Self::allocate), not yet
    /// freed, and the caller is a holder of `slot` giving up its hold (so
    /// the memory cannot be freed before this call: the slot still counts
    /// as an owner or its holders still keep the pool from reusing it).
    pub(super) unsafe fn release(this: *const Shared, slot: usize) {
        // SAFETY: alive, by the caller's contract.
        let shared = unsafe { &*this };
        if shared.slots[slot].fetch_sub(1, Ordering::AcqRel) == ORPHANED | 1 {
            // SAFETY: an orphaned slot holds one share of `owners`, given
            // up by its last holder.
            unsafe { Self::give_up_share(this) };
        }
    }

    /// Called once by the pool's drop: orphans every held slot among
    /// `claimed`, then gives up the pool's own share.
    ///
    /// # Safety
    ///
    /// `this` is the pointer from [`allocate`](Self::allocate), not yet freed,
    /// and the pool calling this never touches it again.
    pub(super) unsafe fn orphan(this: *const Shared, claimed: impl Iterator<Item = usize>) {
        // SAFETY: alive: the pool's share has not been given up yet.
        let shared = unsafe { &*this };
        for slot in claimed {
            shared.owners.fetch_add(1, Ordering::Relaxed);
            if shared.slots[slot].fetch_or(ORPHANED, Ordering::AcqRel) & HOLDERS == 0 {
                // Already released: no holder will come back for it.
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
