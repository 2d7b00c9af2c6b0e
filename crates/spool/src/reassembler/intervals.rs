//! A small sorted set of pending byte ranges, the reassembler's fast path.
//!
//! Real traffic leaves few holes at a time, so the pending bytes form a
//! handful of ranges. Keeping them as sorted `[start, end)` pairs in a fixed
//! inline array makes an insert a binary search, a copy of the gaps it
//! fills, and a merge — independent of the segment's length. When a segment
//! would need more than [`MAX_RANGES`] ranges, the set reports
//! [`Full`] and the reassembler switches to its bitmap, which has no limit.

/// How many disjoint pending ranges the fast path tracks (1 KiB inline).
pub(super) const MAX_RANGES: usize = 64;

/// Inserting would need more than [`MAX_RANGES`] ranges; nothing was
/// changed, and the callback comes back unused.
pub(super) struct Full<F>(pub(super) F);

impl<F> core::fmt::Debug for Full<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Full")
    }
}

/// Disjoint, non-adjacent, sorted ranges of absolute stream indices.
#[derive(Clone, Debug)]
pub(super) struct Intervals {
    ranges: [(u64, u64); MAX_RANGES],
    len: usize,
}

impl Intervals {
    pub(super) fn new() -> Self {
        Self {
            ranges: [(0, 0); MAX_RANGES],
            len: 0,
        }
    }

    /// The ranges, in increasing order.
    pub(super) fn as_slice(&self) -> &[(u64, u64)] {
        &self.ranges[..self.len]
    }

    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds `start..end` (non-empty) and calls `on_new(gap_start, gap_end)`
    /// for each sub-range that was missing, in increasing order. Returns how
    /// many indices were added, or [`Full`] (with no change made and no
    /// callback called) if the result would exceed [`MAX_RANGES`] ranges.
    ///
    /// A segment nearly always touches at most one pending range (it
    /// extends one, or starts a new one); that case is straight-line code
    /// with at most two gaps. Spanning several ranges takes the general
    /// loop.
    #[inline]
    pub(super) fn insert<F: FnMut(u64, u64)>(
        &mut self,
        start: u64,
        end: u64,
        mut on_new: F,
    ) -> Result<u64, Full<F>> {
        debug_assert!(start < end);
        let len = self.len;
        // The first range that touches or follows start..end. Segments
        // mostly land at or past the last range (in-order data after a
        // hole), so look there before searching.
        let i = if len == 0 || self.ranges[len - 1].1 < start {
            len
        } else if len == 1 || self.ranges[len - 2].1 < start {
            len - 1
        } else {
            self.ranges[..len].partition_point(|r| r.1 < start)
        };
        let touched = if i < len && self.ranges[i].0 <= end {
            Some(self.ranges[i])
        } else {
            None
        };
        if touched.is_some() && i + 1 < len && self.ranges[i + 1].0 <= end {
            return Ok(self.insert_spanning(i, start, end, on_new));
        }
        if touched.is_none() && len == MAX_RANGES {
            return Err(Full(on_new));
        }
        // Missing: start..s before the touched range and e..end after it,
        // or all of start..end when none is touched.
        let (s, e) = touched.unwrap_or((end, end));
        if start < s {
            on_new(start, s);
        }
        if e < end {
            on_new(e, end);
        }
        let added = s.saturating_sub(start) + end.saturating_sub(e);
        if touched.is_some() {
            self.ranges[i] = (start.min(s), end.max(e));
        } else {
            if i < len {
                self.ranges.copy_within(i..len, i + 1);
            }
            self.ranges[i] = (start, end);
            self.len = len + 1;
        }
        Ok(added)
    }

    /// [`insert`](Self::insert) of a segment that touches ranges `i..j`
    /// with `j > i + 1`: merges them all into one.
    #[inline(never)]
    fn insert_spanning(
        &mut self,
        i: usize,
        start: u64,
        end: u64,
        mut on_new: impl FnMut(u64, u64),
    ) -> u64 {
        let j = self.ranges[..self.len].partition_point(|r| r.0 <= end);
        let mut added = 0;
        let mut at = start;
        for k in i..=j {
            let gap_end = if k < j { self.ranges[k].0 } else { end };
            if gap_end > at {
                on_new(at, gap_end);
                added += gap_end - at;
            }
            if k < j {
                at = at.max(self.ranges[k].1);
            }
        }
        self.ranges[i] = (start.min(self.ranges[i].0), end.max(self.ranges[j - 1].1));
        self.ranges.copy_within(j..self.len, i + 1);
        self.len -= j - i - 1;
        added
    }

    /// Removes the range that starts exactly at `at`, if any; returns its
    /// length.
    pub(super) fn take_front(&mut self, at: u64) -> u64 {
        match self.as_slice().first() {
            Some(&(s, e)) if s == at => {
                if self.len > 1 {
                    self.ranges.copy_within(1..self.len, 0);
                }
                self.len -= 1;
                e - s
            }
            _ => 0,
        }
    }

    /// Removes every index at or after `end`; returns how many were removed.
    pub(super) fn truncate(&mut self, end: u64) -> u64 {
        let keep = self.as_slice().partition_point(|r| r.0 < end);
        let mut removed: u64 = self.as_slice()[keep..].iter().map(|r| r.1 - r.0).sum();
        self.len = keep;
        if let Some(last) = self.ranges[..keep].last_mut() {
            if last.1 > end {
                removed += last.1 - end;
                last.1 = end;
            }
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(set: &mut Intervals, s: u64, e: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        set.insert(s, e, |a, b| out.push((a, b))).unwrap();
        out
    }

    #[test]
    fn merges_and_reports_gaps() {
        let mut set = Intervals::new();
        assert_eq!(gaps(&mut set, 10, 20), vec![(10, 20)]);
        assert_eq!(gaps(&mut set, 30, 40), vec![(30, 40)]);
        assert_eq!(gaps(&mut set, 5, 45), vec![(5, 10), (20, 30), (40, 45)]);
        assert_eq!(set.as_slice(), &[(5, 45)]);
        assert_eq!(gaps(&mut set, 45, 50), vec![(45, 50)]);
        assert_eq!(set.as_slice(), &[(5, 50)], "adjacent ranges merge");
        assert_eq!(gaps(&mut set, 6, 7), vec![]);
    }

    #[test]
    fn take_front_and_truncate() {
        let mut set = Intervals::new();
        gaps(&mut set, 0, 4);
        gaps(&mut set, 8, 12);
        gaps(&mut set, 20, 30);
        assert_eq!(set.take_front(1), 0);
        assert_eq!(set.take_front(0), 4);
        assert_eq!(set.truncate(10), 2 + 10);
        assert_eq!(set.as_slice(), &[(8, 10)]);
    }

    #[test]
    fn full_changes_nothing() {
        let mut set = Intervals::new();
        for k in 0..MAX_RANGES as u64 {
            gaps(&mut set, 2 * k, 2 * k + 1);
        }
        let before = set.as_slice().to_vec();
        assert!(set
            .insert(1000, 1001, |_, _| panic!("no callback"))
            .is_err());
        assert_eq!(set.as_slice(), &before[..]);
        // Filling a gap still works: it merges two ranges into one.
        assert_eq!(gaps(&mut set, 1, 2), vec![(1, 2)]);
        assert_eq!(set.as_slice().len(), MAX_RANGES - 1);
    }
}
