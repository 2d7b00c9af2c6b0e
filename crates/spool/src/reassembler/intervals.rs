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

/// Inserting would need more than [`MAX_RANGES`] ranges; nothing was changed.
#[derive(Debug)]
pub(super) struct Full;

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
    pub(super) fn insert(
        &mut self,
        start: u64,
        end: u64,
        mut on_new: impl FnMut(u64, u64),
    ) -> Result<u64, Full> {
        debug_assert!(start < end);
        let ranges = &self.ranges[..self.len];
        // Ranges i..j touch or overlap start..end (adjacent ones merge).
        let i = ranges.partition_point(|r| r.1 < start);
        let j = ranges.partition_point(|r| r.0 <= end);
        if i == j && self.len == MAX_RANGES {
            return Err(Full);
        }
        let mut added = 0;
        let mut at = start;
        for &(s, e) in &ranges[i..j] {
            if s > at {
                on_new(at, s);
                added += s - at;
            }
            at = at.max(e);
        }
        if at < end {
            on_new(at, end);
            added += end - at;
        }
        if i == j {
            self.ranges.copy_within(i..self.len, i + 1);
            self.ranges[i] = (start, end);
            self.len += 1;
        } else {
            let merged = (start.min(ranges[i].0), end.max(ranges[j - 1].1));
            self.ranges[i] = merged;
            self.ranges.copy_within(j..self.len, i + 1);
            self.len -= j - i - 1;
        }
        Ok(added)
    }

    /// Removes the range that starts exactly at `at`, if any; returns its
    /// length.
    pub(super) fn take_front(&mut self, at: u64) -> u64 {
        match self.as_slice().first() {
            Some(&(s, e)) if s == at => {
                self.ranges.copy_within(1..self.len, 0);
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
