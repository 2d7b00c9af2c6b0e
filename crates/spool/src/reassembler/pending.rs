//! Which stream indices in the window hold a pending byte: a few ranges on
//! the fast path, one bit per byte of capacity when there are many holes.
//!
//! The set starts in *range mode* ([`Intervals`]): an insert costs a binary
//! search and a merge whatever its length. A segment that would need more
//! than [`MAX_RANGES`](super::intervals::MAX_RANGES) ranges moves the set to
//! *bitmap mode* ([`Bitmap`], allocated up front at capacity / 8 bytes): each
//! insert then costs `O(len / 64)` word operations and no pattern of holes
//! can exhaust it. Once every pending byte has been written out the set
//! returns to range mode. So no segment is ever refused and memory never
//! grows, while ordinary traffic stays on the cheap path.

use super::bitmap::Bitmap;
use super::intervals::{Full, Intervals};

/// Where absolute stream indices live in the ring: `index` is at
/// `(tail + index - pushed) % capacity` for indices in the window.
#[derive(Clone, Copy, Debug)]
pub(super) struct RingMap {
    /// First unassembled index (bytes pushed into the output).
    pub(super) pushed: u64,
    /// Ring position of `pushed`.
    pub(super) tail: usize,
    /// Ring capacity.
    pub(super) capacity: usize,
}

impl RingMap {
    /// Copies the bytes at stream indices `index..index + out.len()` (inside
    /// the window) out of the ring.
    pub(super) fn read(&self, ring: &[u8], index: u64, out: &mut [u8]) {
        let pos = wrap(self.tail + (index - self.pushed) as usize, self.capacity);
        let first = out.len().min(self.capacity - pos);
        out[..first].copy_from_slice(&ring[pos..pos + first]);
        let rest = out.len() - first;
        out[first..].copy_from_slice(&ring[..rest]);
    }

    /// Copies `bytes` (stream indices `index..`, inside the window) to their
    /// ring positions: one `memcpy`, two if they wrap.
    #[inline]
    pub(super) fn write(&self, ring: &mut [u8], index: u64, bytes: &[u8]) {
        let pos = wrap(self.tail + (index - self.pushed) as usize, self.capacity);
        let first = bytes.len().min(self.capacity - pos);
        ring[pos..pos + first].copy_from_slice(&bytes[..first]);
        if first < bytes.len() {
            ring[..bytes.len() - first].copy_from_slice(&bytes[first..]);
        }
    }

    /// Splits the indices `start..end` (inside the window) into at most two
    /// ring ranges, each with the absolute index of its first byte.
    fn ring_ranges(&self, start: u64, end: u64) -> impl Iterator<Item = (usize, usize, u64)> {
        let len = (end - start) as usize;
        let lo = wrap(self.tail + (start - self.pushed) as usize, self.capacity);
        let first = len.min(self.capacity - lo);
        [
            (lo, lo + first, start),
            (0, len - first, start + first as u64),
        ]
        .into_iter()
        .filter(|r| r.0 < r.1)
    }
}

/// `pos % cap` for `pos < 2 * cap`.
#[inline]
pub(super) fn wrap(pos: usize, cap: usize) -> usize {
    if pos >= cap {
        pos - cap
    } else {
        pos
    }
}

/// The pending indices; see the [module documentation](self).
#[derive(Clone, Debug)]
pub(super) struct PendingSet {
    ranges: Intervals,
    bits: Bitmap,
    in_bitmap: bool,
    count: u64,
}

impl PendingSet {
    pub(super) fn new(capacity: usize) -> Self {
        Self {
            ranges: Intervals::new(),
            bits: Bitmap::new(capacity),
            in_bitmap: false,
            count: 0,
        }
    }

    /// Number of pending indices.
    #[inline]
    pub(super) fn count(&self) -> u64 {
        self.count
    }

    /// Whether the set is in bitmap mode.
    #[cfg(test)]
    fn in_bitmap_mode(&self) -> bool {
        self.in_bitmap
    }

    /// Adds `start..end` (non-empty, inside the window) and calls
    /// `on_new(a, b)` for each sub-range `a..b` that was not pending, in
    /// increasing order.
    #[inline]
    pub(super) fn insert(
        &mut self,
        map: &RingMap,
        start: u64,
        end: u64,
        on_new: impl FnMut(u64, u64),
    ) {
        let on_new = if self.in_bitmap {
            on_new
        } else {
            match self.ranges.insert(start, end, on_new) {
                Ok(added) => {
                    self.count += added;
                    return;
                }
                Err(Full(on_new)) => {
                    self.enter_bitmap_mode(map);
                    on_new
                }
            }
        };
        self.insert_bits(map, start, end, on_new);
    }

    /// [`insert`](Self::insert) in bitmap mode, out of line so the range
    /// mode's fast path stays small.
    #[inline(never)]
    fn insert_bits(
        &mut self,
        map: &RingMap,
        start: u64,
        end: u64,
        mut on_new: impl FnMut(u64, u64),
    ) {
        for (lo, hi, abs) in map.ring_ranges(start, end) {
            self.count += self.bits.insert_range(lo, hi, |run, len| {
                let a = abs + (run - lo) as u64;
                on_new(a, a + len as u64);
            }) as u64;
        }
    }

    /// Calls `f(start, end)` for each run of pending indices, in increasing
    /// order (a run that wraps around the ring may come as two).
    /// `window_end` is one past the last index the window holds.
    pub(super) fn for_each_run(&self, map: &RingMap, window_end: u64, mut f: impl FnMut(u64, u64)) {
        if !self.in_bitmap {
            for &(s, e) in self.ranges.as_slice() {
                f(s, e);
            }
            return;
        }
        for (lo, hi, abs) in map.ring_ranges(map.pushed, window_end) {
            self.bits.for_each_run(lo, hi, |a, b| {
                f(abs + (a - lo) as u64, abs + (b - lo) as u64);
            });
        }
    }

    /// Empties the set (back to range mode).
    pub(super) fn clear(&mut self) {
        if self.in_bitmap {
            self.bits.clear();
        }
        self.ranges.clear();
        self.in_bitmap = false;
        self.count = 0;
    }

    /// Removes the run of pending indices that starts at `map.pushed` (at most
    /// `limit` long) and returns its length.
    #[inline]
    pub(super) fn take_front(&mut self, map: &RingMap, limit: u64) -> u64 {
        let taken = if self.in_bitmap {
            let mut taken = 0;
            for (lo, hi, _) in map.ring_ranges(map.pushed, map.pushed + limit) {
                let run = self.bits.take_run(lo, hi);
                taken += run as u64;
                if run < hi - lo {
                    break;
                }
            }
            taken
        } else {
            self.ranges.take_front(map.pushed)
        };
        self.count -= taken;
        self.leave_bitmap_mode_if_empty();
        taken
    }

    /// Removes every pending index in `end..window_end`.
    pub(super) fn truncate(&mut self, map: &RingMap, end: u64, window_end: u64) {
        let removed = if self.in_bitmap {
            map.ring_ranges(end, window_end)
                .map(|(lo, hi, _)| self.bits.remove_range(lo, hi) as u64)
                .sum()
        } else {
            self.ranges.truncate(end)
        };
        self.count -= removed;
        self.leave_bitmap_mode_if_empty();
    }

    #[cold]
    fn enter_bitmap_mode(&mut self, map: &RingMap) {
        for &(s, e) in self.ranges.as_slice() {
            for (lo, hi, _) in map.ring_ranges(s, e) {
                self.bits.insert_range(lo, hi, |_, _| {});
            }
        }
        self.ranges.clear();
        self.in_bitmap = true;
    }

    /// Every set bit is a pending index, so an empty count means a clear
    /// bitmap: range mode can resume.
    fn leave_bitmap_mode_if_empty(&mut self) {
        if self.in_bitmap && self.count == 0 {
            self.in_bitmap = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reassembler::intervals::MAX_RANGES;

    fn map(pushed: u64, capacity: usize) -> RingMap {
        RingMap {
            pushed,
            tail: (pushed % capacity as u64) as usize,
            capacity,
        }
    }

    #[test]
    fn many_holes_switch_to_bitmap_and_back() {
        let cap = 1000;
        let mut set = PendingSet::new(cap);
        let m = map(0, cap);
        // Every other index from 1: more holes than the range mode holds.
        for k in 0..(MAX_RANGES as u64 + 10) {
            set.insert(&m, 2 * k + 1, 2 * k + 2, |_, _| {});
        }
        assert!(set.in_bitmap_mode());
        assert_eq!(set.count(), MAX_RANGES as u64 + 10);
        // Fill every hole but the first: each reports exactly its gap.
        let mut news = Vec::new();
        set.insert(&m, 2, 200, |a, b| news.push((a, b)));
        assert_eq!(news.first(), Some(&(2, 3)));
        assert_eq!(
            set.take_front(&m, cap as u64),
            0,
            "index 0 is still missing"
        );
        set.insert(&m, 0, 1, |_, _| {});
        assert_eq!(set.take_front(&m, cap as u64), 200);
        assert_eq!(set.count(), 0);
        assert!(!set.in_bitmap_mode(), "an empty set returns to range mode");
    }

    #[test]
    fn truncate_in_both_modes() {
        let cap = 300;
        for holes in [3u64, MAX_RANGES as u64 + 5] {
            let mut set = PendingSet::new(cap);
            let m = map(250, cap); // the window wraps around the ring
            for k in 0..holes {
                set.insert(&m, 251 + 3 * k, 253 + 3 * k, |_, _| {});
            }
            let before = set.count();
            set.truncate(&m, 260, 550);
            // Indices 251,252 254,255 257,258 survive below 260.
            assert_eq!(set.count(), 6, "holes {holes}, before {before}");
        }
    }
}
