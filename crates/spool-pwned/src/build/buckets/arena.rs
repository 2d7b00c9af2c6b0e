//! The sorting arena's memory: one anonymous map of zeroed pages, handed
//! out block after block.
//!
//! The kernel provides a page only when it is first written, so the
//! arena's resident memory is what the blocks handed out hold, however
//! large `--memory` is. Faulting a page in is also what a build pays for
//! its arena (the kernel zeroes every page), so the map is faulted in a
//! stretch of [`HUGE_PAGE`] at a time just ahead of the blocks in use —
//! one call instead of a page fault per page — asking for huge pages: one
//! fault and one TLB entry for 512 small pages where the kernel has them,
//! the same stretch in small pages where it has not.

use std::io;
use std::ops::{Deref, DerefMut};

/// A small page: what the arena is given back in.
const PAGE: usize = 4 << 10;

/// A transparent huge page (x86-64): the stretch faulted in at a time,
/// so the peak memory is at most this much above what the records take.
const HUGE_PAGE: usize = 2 << 20;

/// The arena's map and how far it is faulted in; see the module docs.
pub(super) struct Arena {
    map: memmap2::MmapMut,
    /// Bytes at the front faulted in so far.
    populated: usize,
}

impl Arena {
    /// `len` bytes of zeroed anonymous memory, reserved but not faulted in.
    ///
    /// # Errors
    ///
    /// If the system will not reserve that much memory (the message says
    /// how much, so a too large `--memory` is easy to spot).
    pub fn new(len: usize) -> io::Result<Self> {
        let map = memmap2::MmapMut::map_anon(len.max(1)).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot reserve {len} bytes of memory for sorting: {e}"),
            )
        })?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(Arena { map, populated: 0 })
    }

    /// Makes sure the bytes up to `end` are faulted in, faulting in the
    /// next stretch if they are not. Hints: where the kernel does not take
    /// them, the pages fault in as they are written.
    #[inline]
    pub fn fault_in(&mut self, end: usize) {
        if end > self.populated {
            self.populate_ahead();
        }
    }

    /// Gives back the pages faulted in ahead past `end`, which no block
    /// handed out reaches: once the input is all in, a stretch faulted in
    /// for blocks that never came would stay resident through the drain,
    /// when the arena is at its fullest (up to a huge page of it).
    pub fn release_ahead(&mut self, end: usize) {
        let start = end.next_multiple_of(PAGE).min(self.populated);
        #[cfg(target_os = "linux")]
        if start < self.populated {
            // SAFETY: `&mut self` holds no borrow of the arena, and no
            // block handed out reaches past `end`, so no byte from `start`
            // on is in use; the pages of this private anonymous map read
            // as zeros again once given back, as they did before.
            #[allow(unsafe_code)]
            let _ = unsafe {
                (self.map).unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    start,
                    self.populated - start,
                )
            };
        }
        self.populated = start;
    }

    #[cold]
    fn populate_ahead(&mut self) {
        let len = HUGE_PAGE.min(self.map.len() - self.populated);
        #[cfg(target_os = "linux")]
        let _ = (self.map).advise_range(memmap2::Advice::PopulateWrite, self.populated, len);
        self.populated += len;
    }
}

impl Deref for Arena {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl DerefMut for Arena {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arena_is_faulted_in_ahead_of_the_blocks_in_use() {
        let mut arena = Arena::new(64 << 20).unwrap();
        let mut ahead = 0;
        // Blocks of 1020 bytes handed out one after another.
        for end in (1020..arena.len()).step_by(1020) {
            arena.fault_in(end);
            assert!(arena.populated >= end && arena.populated <= arena.len());
            ahead = ahead.max(arena.populated - end);
        }
        // Never more than one stretch ahead of the blocks handed out.
        assert!(ahead <= HUGE_PAGE, "{ahead}");
    }

    #[test]
    fn what_was_faulted_in_ahead_is_given_back_and_reads_as_zeros() {
        let mut arena = Arena::new(8 << 20).unwrap();
        arena.fault_in(5000);
        arena[..5000].fill(7);
        arena[8191] = 9;
        arena.release_ahead(5000);
        assert_eq!(arena.populated, 8192);
        arena.release_ahead(1000);
        assert_eq!(arena.populated, 4096, "the page holding the end stays");
        assert!(arena[..1000].iter().all(|&b| b == 7));
        assert!(arena[4096..8192].iter().all(|&b| b == 0), "given back");
        arena.fault_in(6000);
        assert!(arena.populated >= 6000);
    }
}
