//! The sorting arena's memory: one anonymous map of zeroed pages, handed
//! out block after block.
//!
//! The kernel provides a page only when it is first written, so the
//! arena's resident memory is what the blocks handed out hold, however
//! large `--memory` is. Faulting a page in is also what a build pays for
//! its arena (the kernel zeroes every page), so the map is faulted in a
//! stretch at a time just ahead of the blocks in use — one call instead
//! of a page fault per page — in huge pages while they come quickly (see
//! [`SLOW_HUGE_PAGE`]).

use std::io;
use std::ops::{Deref, DerefMut};

/// Bytes of the arena faulted in at a time in small pages, ahead of the
/// blocks handed out: the peak memory is at most this much above what the
/// records take.
const POPULATE_AHEAD: usize = 512 << 10;

/// A small page: what the arena is given back in.
const PAGE: usize = 4 << 10;

/// A transparent huge page (x86-64, and the arena's stretches while it is
/// backed by them).
const HUGE_PAGE: usize = 2 << 20;

/// How long faulting in one huge page may take before the rest of the
/// arena goes to small pages.
///
/// A huge page is the cheaper page where the memory is the machine's own:
/// one fault and one TLB entry for 512 small pages. On a VM whose free
/// memory the host takes back (free page reporting: Firecracker, QEMU's
/// balloon), a huge page from such memory costs the host's faults on all
/// of it, several times what small pages cost; the first slow one ends
/// the huge pages (docs/perf/pwned-build-history.md has the faults timed,
/// docs/perf/pwned-build.md what the timing buys).
const SLOW_HUGE_PAGE: std::time::Duration = std::time::Duration::from_millis(3);

/// The arena's map and how far it is faulted in; see the module docs.
pub(super) struct Arena {
    map: memmap2::MmapMut,
    /// Bytes at the front faulted in so far.
    populated: usize,
    /// Whether the next stretch is faulted in as a huge page.
    huge: bool,
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
        Ok(Arena {
            map,
            populated: 0,
            huge: true,
        })
    }

    /// Makes sure the bytes up to `end` are faulted in, faulting in the
    /// next stretch if they are not: a huge page while they come quickly,
    /// else [`POPULATE_AHEAD`] bytes of small pages. Hints: where the kernel
    /// does not take them, the pages fault in as they are written.
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
        let step = if self.huge { HUGE_PAGE } else { POPULATE_AHEAD };
        let len = step.min(self.map.len() - self.populated);
        #[cfg(target_os = "linux")]
        {
            use memmap2::Advice;
            let started = std::time::Instant::now();
            let _ = (self.map).advise_range(Advice::PopulateWrite, self.populated, len);
            if self.huge && started.elapsed() > SLOW_HUGE_PAGE {
                // The rest of the arena in small pages.
                self.huge = false;
                let rest = self.populated + len;
                let _ = (self.map).advise_range(Advice::NoHugePage, rest, self.map.len() - rest);
            }
        }
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
        for huge in [true, false] {
            let mut arena = Arena::new(64 << 20).unwrap();
            arena.huge = huge;
            let mut ahead = 0;
            // Blocks of 1020 bytes handed out one after another.
            for end in (1020..arena.len()).step_by(1020) {
                arena.fault_in(end);
                assert!(arena.populated >= end && arena.populated <= arena.len());
                ahead = ahead.max(arena.populated - end);
            }
            // Never more than one step ahead of the blocks handed out
            // (a huge page's, unless they were slow and were given up).
            let step = if huge { HUGE_PAGE } else { POPULATE_AHEAD };
            assert!(ahead <= step, "{ahead}");
        }
    }

    #[test]
    fn what_was_faulted_in_ahead_is_given_back_and_reads_as_zeros() {
        let mut arena = Arena::new(8 << 20).unwrap();
        arena.huge = false;
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
