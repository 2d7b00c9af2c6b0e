//! Memory the Parquet writers hold, charged to the router's chunk budget.
//!
//! The router's buffers and the writer threads' in-progress row groups
//! draw from one [`ChunkPool`] budget. Writers charge what their
//! `ArrowWriter`s hold and release it as row groups are flushed; the
//! router reads [`charged`](WriterMemory::charged) to know that this
//! memory will not come back by itself, and raises the
//! [`pressure`](WriterMemory::press) epoch so that every writer thread
//! flushes its largest row groups.
//!
//! Open writers are admitted, not just charged: a writer holds a dictionary
//! table per column, the address space its string columns reserve for
//! value lengths, and other state whether its row group is large or
//! small, so a thread opens one for a new group only while every admitted
//! writer's typical footprint stays within [`WRITERS_SHARE`] of the budget
//! (see [`try_admit`](WriterMemory::try_admit)); the other groups spill
//! (see the `spill` module).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use spool_io::write::ChunkPool;

/// The share of the budget open writers' typical footprints may take:
/// a half, leaving the other half to the router's buffers and to row
/// groups growing past the typical size.
pub(crate) const WRITERS_SHARE: (usize, usize) = (1, 2);

/// Writer-held bytes under the run's budget; see the module docs.
pub(crate) struct WriterMemory {
    pool: ChunkPool,
    charged: AtomicUsize,
    /// Typical footprints of the writers open now.
    admitted: AtomicUsize,
    pressure: AtomicU64,
}

impl WriterMemory {
    /// Charges to `pool`'s budget.
    pub fn new(pool: ChunkPool) -> Self {
        WriterMemory {
            pool,
            charged: AtomicUsize::new(0),
            admitted: AtomicUsize::new(0),
            pressure: AtomicU64::new(0),
        }
    }

    /// Charges `len` bytes if the budget has room.
    pub fn try_charge(&self, len: usize) -> bool {
        if self.pool.try_charge(len) {
            self.charged.fetch_add(len, Ordering::Relaxed);
            true
        } else {
            false
        }
    }

    /// Admits one more open writer of typical footprint `footprint` if the
    /// writers' share of the budget has room for it.
    pub fn try_admit(&self, footprint: usize) -> bool {
        let (num, den) = WRITERS_SHARE;
        let share = self.pool.budget() / den * num;
        self.admitted
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |now| {
                (now + footprint <= share).then_some(now + footprint)
            })
            .is_ok()
    }

    /// A writer admitted with `footprint` was closed.
    pub fn dismiss(&self, footprint: usize) {
        self.admitted.fetch_sub(footprint, Ordering::Relaxed);
    }

    /// Gives back `len` bytes charged before.
    pub fn release(&self, len: usize) {
        if len > 0 {
            self.charged.fetch_sub(len, Ordering::Relaxed);
            self.pool.release_charge(len);
        }
    }

    /// Bytes charged now.
    pub fn charged(&self) -> usize {
        self.charged.load(Ordering::Relaxed)
    }

    /// Asks every writer thread to flush its largest row groups.
    pub fn press(&self) {
        self.pressure.fetch_add(1, Ordering::Relaxed);
    }

    /// The pressure epoch: it changes each time the router presses.
    pub fn pressure(&self) -> u64 {
        self.pressure.load(Ordering::Relaxed)
    }
}
