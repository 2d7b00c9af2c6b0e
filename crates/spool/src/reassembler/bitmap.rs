//! Which ring positions hold a pending (received, not yet written) byte.
//!
//! One bit per byte of the stream's capacity, so the set costs 1/8 of the
//! buffer and never grows: any pattern of holes fits, and no insert is ever
//! refused for having too many of them. Every operation walks 64 positions
//! per step, so an insert of `n` bytes costs `O(n / 64)` word operations
//! plus the copy of the bytes that were actually missing.

/// A fixed-size set of positions `0..len`.
#[derive(Clone, Debug)]
pub(super) struct Bitmap {
    words: Box<[u64]>,
}

impl Bitmap {
    /// An empty set over positions `0..len`.
    pub(super) fn new(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(64)].into_boxed_slice(),
        }
    }

    /// Adds every position in `start..end` and calls `on_new(run_start,
    /// run_len)` once for each maximal run of positions that were missing, in
    /// increasing order. Returns the number of positions added.
    pub(super) fn insert_range(
        &mut self,
        start: usize,
        end: usize,
        mut on_new: impl FnMut(usize, usize),
    ) -> usize {
        let mut added = 0;
        // The run being collected, carried across word boundaries.
        let mut run: Option<(usize, usize)> = None;
        for_each_word(start, end, |w, mask| {
            let word = &mut self.words[w];
            let mut missing = mask & !*word;
            *word |= mask;
            added += missing.count_ones() as usize;
            while missing != 0 {
                let lo = missing.trailing_zeros() as usize;
                let ones = (missing >> lo).trailing_ones() as usize;
                let pos = w * 64 + lo;
                run = match run {
                    Some((s, l)) if s + l == pos => Some((s, l + ones)),
                    Some((s, l)) => {
                        on_new(s, l);
                        Some((pos, ones))
                    }
                    None => Some((pos, ones)),
                };
                missing = if lo + ones >= 64 {
                    0
                } else {
                    missing & (!0u64 << (lo + ones))
                };
            }
        });
        if let Some((s, l)) = run {
            on_new(s, l);
        }
        added
    }

    /// Length of the run of present positions that starts at `start`,
    /// looking no further than `end`.
    pub(super) fn run_from(&self, start: usize, end: usize) -> usize {
        let mut run = 0;
        let mut pos = start;
        while pos < end {
            let w = pos / 64;
            let bit = pos % 64;
            let ones = (self.words[w] >> bit).trailing_ones() as usize;
            let ones = ones.min(64 - bit).min(end - pos);
            run += ones;
            pos += ones;
            if ones < 64 - bit {
                break;
            }
        }
        run
    }

    /// Removes every position in `start..end`; returns how many were present.
    pub(super) fn remove_range(&mut self, start: usize, end: usize) -> usize {
        let mut removed = 0;
        for_each_word(start, end, |w, mask| {
            removed += (self.words[w] & mask).count_ones() as usize;
            self.words[w] &= !mask;
        });
        removed
    }
}

/// Calls `f(word_index, mask)` for each word overlapping `start..end`, with
/// the mask of the word's bits inside the range.
#[inline]
fn for_each_word(start: usize, end: usize, mut f: impl FnMut(usize, u64)) {
    let mut pos = start;
    while pos < end {
        let w = pos / 64;
        let lo = pos % 64;
        let hi = (end - w * 64).min(64);
        let mask = if hi - lo == 64 {
            !0
        } else {
            ((1u64 << (hi - lo)) - 1) << lo
        };
        f(w, mask);
        pos = w * 64 + hi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_reports_only_missing_runs() {
        let mut set = Bitmap::new(200);
        assert_eq!(set.insert_range(10, 20, |_, _| {}), 10);
        let mut runs = Vec::new();
        assert_eq!(set.insert_range(0, 150, |s, l| runs.push((s, l))), 140);
        assert_eq!(runs, vec![(0, 10), (20, 130)]);
        assert_eq!(set.run_from(0, 200), 150);
        assert_eq!(set.run_from(5, 100), 95);
        assert_eq!(set.run_from(150, 200), 0);
    }

    #[test]
    fn runs_cross_word_edges_and_remove_counts() {
        let mut set = Bitmap::new(130);
        set.insert_range(60, 70, |_, _| {});
        set.insert_range(127, 130, |_, _| {});
        assert_eq!(set.run_from(60, 130), 10);
        assert_eq!(set.run_from(127, 130), 3);
        assert_eq!(set.remove_range(0, 128), 11);
        assert_eq!(set.run_from(127, 130), 0);
        assert_eq!(set.run_from(128, 130), 2);
        let mut runs = Vec::new();
        set.insert_range(0, 130, |s, l| runs.push((s, l)));
        assert_eq!(runs, vec![(0, 128)]);
    }

    #[test]
    fn whole_words() {
        let mut set = Bitmap::new(256);
        assert_eq!(set.insert_range(0, 256, |_, _| {}), 256);
        assert_eq!(set.run_from(0, 256), 256);
        assert_eq!(set.remove_range(64, 192), 128);
        assert_eq!(set.run_from(0, 256), 64);
    }
}
