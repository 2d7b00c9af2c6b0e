//! Memory the Parquet writers hold, charged to the router's chunk budget.
//!
//! The router's buffers and the writer threads' in-progress row groups
//! draw from one [`ChunkPool`] budget. Writers charge what their
//! `ArrowWriter`s hold and release it as row groups are flushed; the
//! router reads [`charged`](WriterMemory::charged) to know that this
//! memory will not come back by itself, and raises the
//! [`pressure`](WriterMemory::press) epoch so that every writer thread
//! flushes its largest row groups.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::write::ChunkPool;

/// Writer-held bytes under the run's budget; see the module docs.
pub(crate) struct WriterMemory {
    pool: ChunkPool,
    charged: AtomicUsize,
    pressure: AtomicU64,
}

impl WriterMemory {
    /// Charges to `pool`'s budget.
    pub fn new(pool: ChunkPool) -> Self {
        WriterMemory {
            pool,
            charged: AtomicUsize::new(0),
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
