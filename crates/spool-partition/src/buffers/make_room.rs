//! Making room when the buffers' budget is spent: the largest buffers are
//! sent early and the router waits for their memory to come back (see the
//! bounds in the parent module's docs).

use std::time::Duration;

use spool_io::write::Chunk;

use super::Buffers;
use crate::outputs::Outputs;
use crate::PartitionError;

/// How long the router waits for memory to come back before looking again.
const WAIT: Duration = Duration::from_millis(50);

impl Buffers {
    /// A chunk for at least `len` bytes, making room until there is one.
    pub(super) fn take_chunk(
        &mut self,
        len: usize,
        out: &mut Outputs,
    ) -> Result<Chunk, PartitionError> {
        let capacity = self.pool.capacity_for(len);
        loop {
            if let Some(chunk) = self.pool.try_take_at_least(len) {
                return Ok(chunk);
            }
            self.make_room(capacity, out)?;
        }
    }

    /// Makes sure `bytes` of memory will come back: if what is in flight to
    /// the workers (or free in other size classes) cannot cover it, sends
    /// the largest buffers; then waits a little for memory to return.
    ///
    /// # Errors
    ///
    /// A worker's failure or a cancellation.
    pub(super) fn make_room(
        &mut self,
        bytes: usize,
        out: &mut Outputs,
    ) -> Result<(), PartitionError> {
        // Row groups held by Parquet writers come back only when flushed.
        let writers = self.writers.as_ref().map_or(0, |w| w.charged());
        let coming_back = self
            .pool
            .allocated_bytes()
            .saturating_sub(self.held + self.charged + writers);
        let unallocated = self
            .pool
            .budget()
            .saturating_sub(self.pool.allocated_bytes());
        if coming_back + unallocated < bytes {
            if let (Some(w), true) = (&self.writers, writers > 0) {
                w.press();
            }
            if self.held > 0 || writers == 0 {
                self.flush_largest(out)?;
            }
        }
        out.check()?;
        self.pool.wait_returned(WAIT);
        Ok(())
    }

    /// Sends the quarter (at least one) of the groups' buffers that hold the
    /// most bytes.
    fn flush_largest(&mut self, out: &mut Outputs) -> Result<(), PartitionError> {
        let mut held: Vec<(usize, u32)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.chunk.as_ref().map(|c| (c.len(), i as u32)))
            .collect();
        if held.is_empty() {
            return Err(PartitionError::Io(std::io::Error::other(
                "internal error: buffer budget spent with no buffer to write",
            )));
        }
        let flush = (held.len() / 4).max(1);
        held.select_nth_unstable_by(flush - 1, |a, b| b.0.cmp(&a.0));
        for &(_, i) in &held[..flush] {
            let chunk = self.take_group_chunk(i as usize).expect("held");
            out.send(i, chunk)?;
            self.early_flushes += 1;
        }
        Ok(())
    }
}
