//! The bytes of batches on their way from one thread to another, kept
//! within a limit. The router takes a [`Charge`] for each sorted batch
//! before it sends the batch's slices, every job holds the charge, and the
//! last job to drop it (its slice written) gives the bytes back: so the
//! writers' queues hold at most the limit, however many jobs they hold —
//! the typed run's share of `--memory` for rows between the router and the
//! writers. A file's decoding thread takes one for each batch it decodes
//! ahead of the router, given back when the router takes the batch; its
//! limit is raised when the file becomes the one the router reads.
//!
//! # Invariants
//!
//! * `held` is the sum of the live charges' bytes.
//! * A charge is granted when it fits under the limit, or when nothing is
//!   held (one batch larger than the limit still goes, alone).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use arrow_array::RecordBatch;

use crate::PartitionError;

/// How often a waiting router looks whether the run failed.
const CHECK: Duration = Duration::from_millis(20);

/// Bytes in flight and their limit; see the module docs.
pub(crate) struct InFlight {
    limit: AtomicUsize,
    held: Mutex<usize>,
    freed: Condvar,
}

/// Bytes of one batch in flight, given back when the last holder drops it.
pub(crate) struct Charge {
    gate: Arc<InFlight>,
    bytes: usize,
}

/// One group's rows on their way to its writer thread: a slice of a
/// sorted batch, holding the batch's charge until it is written.
pub(crate) struct Rows {
    pub batch: RecordBatch,
    pub _charge: Arc<Charge>,
}

impl InFlight {
    /// A gate letting `limit` bytes through at once.
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(InFlight {
            limit: AtomicUsize::new(limit),
            held: Mutex::new(0),
            freed: Condvar::new(),
        })
    }

    /// Lets `limit` bytes through from now on, waking the waiting.
    pub fn set_limit(&self, limit: usize) {
        let _held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        self.limit.store(limit, Ordering::Relaxed);
        self.freed.notify_all();
    }

    /// Bytes held now.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        *self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `bytes` fit, then holds them; `check` is called while
    /// waiting, and its error (a failed writer, a cancelled run) ends the
    /// wait.
    ///
    /// # Errors
    ///
    /// Whatever `check` returns.
    pub fn charge(
        self: &Arc<Self>,
        bytes: usize,
        check: impl Fn() -> Result<(), PartitionError>,
    ) -> Result<Arc<Charge>, PartitionError> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        while *held > 0 && *held + bytes > self.limit.load(Ordering::Relaxed) {
            check()?;
            held = (self.freed.wait_timeout(held, CHECK))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *held += bytes;
        Ok(Arc::new(Charge {
            gate: self.clone(),
            bytes,
        }))
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        let mut held = (self.gate.held.lock()).unwrap_or_else(PoisonError::into_inner);
        *held -= self.bytes;
        self.gate.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_charge_waits_until_earlier_ones_are_given_back() {
        let gate = InFlight::new(100);
        let first = gate.charge(60, || Ok(())).unwrap();
        let copy = first.clone();
        assert_eq!(gate.held(), 60);
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || gate.charge(60, || Ok(())).map(|_| ()))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "60 + 60 > 100");
        drop(first);
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "a job still holds the batch");
        drop(copy);
        waiter.join().unwrap().unwrap();
        assert_eq!(gate.held(), 0);
    }

    #[test]
    fn a_raised_limit_lets_the_waiting_through() {
        let gate = InFlight::new(100);
        let _first = gate.charge(60, || Ok(())).unwrap();
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || gate.charge(60, || Ok(())).map(|_| ()))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "60 + 60 > 100");
        gate.set_limit(120);
        waiter.join().unwrap().unwrap();
        assert_eq!(gate.held(), 60, "the waiter's charge was dropped");
    }

    #[test]
    fn a_batch_over_the_limit_goes_alone_and_a_failure_ends_the_wait() {
        let gate = InFlight::new(10);
        let big = gate.charge(50, || Ok(())).unwrap();
        let e = gate.charge(1, || Err(PartitionError::Interrupted));
        assert!(matches!(e, Err(PartitionError::Interrupted)));
        drop(big);
        assert_eq!(gate.held(), 0);
    }
}
