//! Which ring positions hold a pending (received, not yet written) byte.
//!
//! One bit per byte of the stream's capacity, so the set costs 1/8 of the
//! buffer and never grows: any pattern of holes fits, and no insert is ever
//! refused for having too many of them. Every operation walks 64 positions
//! per step, so an insert of `n` bytes costs `O(n / 64)` word operations
//! plus the copy of the bytes that were actually missing.

use alloc::boxed::Box;
use alloc::vec;

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
    ///
    /// Words wholly missing or wholly present inside the range take a fast
    /// path with no bit counting; only words that mix both are walked run by
    /// run.
    pub(super) fn insert_range(
        &mut self,
        start: usize,
        end: usize,
        mut on_new: impl FnMut(usize, usize),
    ) -> usize {
        const NONE: usize = usize::MAX;
        if start >= end {
            return 0;
        }
        let first = start / 64;
        let last = (end - 1) / 64;
        let words = &mut self.words[first..=last];
        let mut added = 0;
        // Start of the missing run being collected, carried across words.
        let mut run = NONE;
        for (k, word) in words.iter_mut().enumerate() {
            let base = (first + k) * 64;
            let lo = if k == 0 { start - base } else { 0 };
            let hi = (end - base).min(64);
            let mask = range_mask(lo, hi);
            let missing = mask & !*word;
            *word |= mask;
            if missing == mask {
                if run == NONE {
                    run = base + lo;
                }
                added += hi - lo;
            } else if missing == 0 {
                if run != NONE {
                    on_new(run, base + lo - run);
                    run = NONE;
                }
            } else {
                let mut bit = lo;
                while bit < hi {
                    let rest = missing >> bit;
                    if rest & 1 == 1 {
                        let ones = (rest.trailing_ones() as usize).min(hi - bit);
                        if run == NONE {
                            run = base + bit;
                        }
                        added += ones;
                        bit += ones;
                    } else {
                        if run != NONE {
                            on_new(run, base + bit - run);
                            run = NONE;
                        }
                        bit += (rest.trailing_zeros() as usize).min(hi - bit);
                    }
                }
            }
        }
        if run != NONE {
            on_new(run, end - run);
        }
        added
    }

    /// Removes the run of present positions that starts at `start`, looking
    /// no further than `end`, and returns its length. Full words are taken
    /// whole.
    pub(super) fn take_run(&mut self, start: usize, end: usize) -> usize {
        let mut pos = start;
        while pos < end {
            let w = pos / 64;
            let bit = pos % 64;
            let word = self.words[w];
            if bit == 0 && end - pos >= 64 && word == u64::MAX {
                self.words[w] = 0;
                pos += 64;
                continue;
            }
            let ones = ((word >> bit).trailing_ones() as usize)
                .min(64 - bit)
                .min(end - pos);
            if ones == 0 {
                break;
            }
            self.words[w] = word & !range_mask(bit, bit + ones);
            pos += ones;
            if bit + ones < 64 {
                break;
            }
        }
        pos - start
    }

    /// Calls `f(run_start, run_end)` for each maximal run of present
    /// positions inside `start..end`, in increasing order.
    pub(super) fn for_each_run(&self, start: usize, end: usize, mut f: impl FnMut(usize, usize)) {
        let mut pos = start;
        while pos < end {
            let bits = self.words[pos / 64] >> (pos % 64);
            if bits == 0 {
                pos = (pos / 64 + 1) * 64;
                continue;
            }
            pos += bits.trailing_zeros() as usize;
            let run = pos;
            while pos < end {
                let ones = (self.words[pos / 64] >> (pos % 64)).trailing_ones() as usize;
                let ones = ones.min(64 - pos % 64);
                pos += ones;
                if ones == 0 || !pos.is_multiple_of(64) {
                    break;
                }
            }
            if run < end {
                f(run, pos.min(end));
            }
        }
    }

    /// Removes every position.
    pub(super) fn clear(&mut self) {
        self.words.fill(0);
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
        f(w, range_mask(lo, hi));
        pos = w * 64 + hi;
    }
}

/// The bits `lo..hi` of a word, for `lo < hi <= 64`.
#[inline]
fn range_mask(lo: usize, hi: usize) -> u64 {
    (u64::MAX >> (64 - (hi - lo))) << lo
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
        assert_eq!(set.take_run(150, 200), 0);
        assert_eq!(set.take_run(5, 100), 95);
        assert_eq!(set.take_run(0, 200), 5);
        assert_eq!(set.take_run(100, 200), 50);
        assert_eq!(set.remove_range(0, 200), 0);
    }

    #[test]
    fn runs_cross_word_edges_and_remove_counts() {
        let mut set = Bitmap::new(130);
        set.insert_range(60, 70, |_, _| {});
        set.insert_range(127, 130, |_, _| {});
        assert_eq!(set.remove_range(0, 128), 11);
        assert_eq!(set.take_run(127, 130), 0);
        assert_eq!(set.take_run(128, 130), 2);
        set.insert_range(60, 70, |_, _| {});
        assert_eq!(set.take_run(60, 130), 10);
        let mut runs = Vec::new();
        set.insert_range(0, 130, |s, l| runs.push((s, l)));
        assert_eq!(runs, vec![(0, 130)]);
    }

    #[test]
    fn runs_are_listed_across_words_and_clipped() {
        let mut set = Bitmap::new(300);
        for (s, e) in [(3, 5), (60, 130), (192, 256), (290, 300)] {
            set.insert_range(s, e, |_, _| {});
        }
        let mut runs = Vec::new();
        set.for_each_run(0, 300, |s, e| runs.push((s, e)));
        assert_eq!(runs, vec![(3, 5), (60, 130), (192, 256), (290, 300)]);
        runs.clear();
        set.for_each_run(4, 295, |s, e| runs.push((s, e)));
        assert_eq!(runs, vec![(4, 5), (60, 130), (192, 256), (290, 295)]);
        set.clear();
        set.for_each_run(0, 300, |_, _| panic!("cleared"));
    }

    #[test]
    fn whole_words() {
        let mut set = Bitmap::new(256);
        assert_eq!(set.insert_range(0, 256, |_, _| {}), 256);
        assert_eq!(set.remove_range(64, 192), 128);
        assert_eq!(set.take_run(0, 256), 64);
        assert_eq!(set.take_run(192, 256), 64);
        assert_eq!(set.remove_range(0, 256), 0);
    }
}
