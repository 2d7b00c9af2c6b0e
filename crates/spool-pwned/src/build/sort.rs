//! Sorting records by hash without comparisons where hashes allow it.
//!
//! SHA-1 and NTLM hashes are uniform, so their leading bits are a radix
//! that splits any set of them into nearly equal groups:
//!
//! - [`group_by_bucket`] orders a parsed batch by its records' buckets (a
//!   stable counting sort on the top bits), so the arena takes each
//!   bucket's records as one run instead of one record at a time to a
//!   different place each;
//! - [`UniformSort`] sorts one bucket with one counting pass on the next
//!   `log2(n) + 1` bits and one insertion sort: linear time in
//!   expectation, `O(n log n)` on skewed input (not hashes).
//!
//! Both use the one counting sort below. Records and their order are
//! [`record`](super::hash_count)'s.

use crate::build::hash_count::{digit, sort_key, HashCount, HASH_COUNT_BYTES};

/// Stable counting sort of `records` into `out` by [`digit`], with `at`
/// as the counts' scratch; returns the largest group's size, and leaves
/// where each digit's group starts in `at[..2^bits + 1]` (the last is the
/// end).
fn counting_sort(
    records: &[HashCount],
    out: &mut Vec<HashCount>,
    at: &mut Vec<u32>,
    skip: u32,
    bits: u32,
) -> usize {
    assert!(
        bits <= 32 && skip + bits <= 64 && skip < 64,
        "a digit of {bits} bits after {skip}"
    );
    // One array serves as the counts, the next free place of each group
    // and the returned starts, shifted by one so that no copy is needed:
    // counted at `d + 2`, summed so that `at[d + 1]` is where group `d`
    // starts, advanced through the group while dealing, after which
    // `at[d + 1]` is where it ends, the start of `d + 1`; `at[0]` is 0.
    at.clear();
    at.resize((1 << bits) + 2, 0);
    for r in records {
        at[digit(r, skip, bits) + 2] += 1;
    }
    deal_counted(records, out, at, skip, bits)
}

/// The rest of [`counting_sort`] once `at` holds the counts.
fn deal_counted(
    records: &[HashCount],
    out: &mut Vec<HashCount>,
    at: &mut Vec<u32>,
    skip: u32,
    bits: u32,
) -> usize {
    assert!(
        records.len() < u32::MAX as usize,
        "{} records in one counting sort",
        records.len()
    );
    let mut largest = 0;
    for d in 2..at.len() {
        largest = largest.max(at[d]);
        at[d] += at[d - 1];
    }
    assert_eq!(
        at[at.len() - 1] as usize,
        records.len(),
        "records counted and given"
    );
    // Every slot is written below: only growth needs filling.
    out.truncate(records.len());
    out.resize(records.len(), [0u8; HASH_COUNT_BYTES]);
    for r in records {
        let d = digit(r, skip, bits) + 1;
        out[at[d] as usize] = *r;
        at[d] += 1;
    }
    at.truncate((1 << bits) + 1);
    largest as usize
}

/// Records `start..end` of a batch, all in bucket `bucket`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketRun {
    /// The bucket.
    pub bucket: u32,
    /// First record of the run.
    pub start: u32,
    /// One past its last record.
    pub end: u32,
}

/// Groups a batch of records by their bucket of `bits` bits for
/// [`Buckets::push_runs`]: a batch in hash order already is (its order is
/// kept and `true` returned); any other is counting-sorted by bucket
/// through `scratch`. Returns whether the batch was in hash order, and the
/// runs.
pub fn group_by_bucket(
    records: &mut Vec<HashCount>,
    scratch: &mut Vec<HashCount>,
    bits: u32,
) -> (bool, Vec<BucketRun>) {
    let sorted = records
        .windows(2)
        .all(|w| sort_key(&w[0]) <= sort_key(&w[1]));
    if !sorted {
        // The counting sort's group starts are the runs.
        let mut starts = Vec::new();
        counting_sort(records, scratch, &mut starts, 0, bits);
        std::mem::swap(records, scratch);
        // A plain loop into a vector sized for every bucket: `collect`
        // on a filter grows it step by step.
        let mut runs = Vec::with_capacity(starts.len() - 1);
        for (bucket, w) in starts.windows(2).enumerate() {
            if w[0] < w[1] {
                runs.push(BucketRun {
                    bucket: bucket as u32,
                    start: w[0],
                    end: w[1],
                });
            }
        }
        return (false, runs);
    }
    let mut runs: Vec<BucketRun> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let bucket = digit(r, 0, bits) as u32;
        match runs.last_mut() {
            Some(run) if run.bucket == bucket => run.end = i as u32 + 1,
            _ => runs.push(BucketRun {
                bucket,
                start: i as u32,
                end: i as u32 + 1,
            }),
        }
    }
    (sorted, runs)
}

/// Sorts records whose top `skip_bits` bits are all equal and whose next
/// bits are uniform (hashes): one counting pass on the next `log2(n) + 1`
/// bits leaves groups of under one record on average, already in order
/// but for the few that hold two or more, and one insertion sort over the
/// whole array puts those in order — linear time in expectation, since a
/// record moves only within its group. Skewed input (not hashes) only
/// makes groups larger; if any group holds more than [`SMALL_GROUP`]
/// records, each group is sorted on its own instead, a large one with
/// `sort_unstable`, so the worst case stays `O(n log n)`.
///
/// A caller that has the records one by one before they are in a slice
/// counts them as they come ([`begin`](Self::begin),
/// [`counter`](Self::counter), [`finish`](Self::finish)), saving a pass
/// over them. The counts' array is kept from one sort to the next.
#[derive(Default)]
pub struct UniformSort {
    /// Counts, then group starts; see [`counting_sort`].
    at: Vec<u32>,
    skip: u32,
    bits: u32,
}

impl UniformSort {
    /// Sorts `records` into `out` (emptied first, so that a caller sorting
    /// bucket after bucket reuses one vector).
    #[cfg(test)]
    pub fn sort(&mut self, records: &[HashCount], out: &mut Vec<HashCount>, skip_bits: u32) {
        self.begin(records.len(), skip_bits);
        records.iter().for_each(self.counter());
        self.finish(records, out);
    }

    /// Starts counting about `expected` records whose top `skip_bits` bits
    /// are all equal (any estimate sorts correctly; a close one sorts
    /// fastest).
    pub fn begin(&mut self, expected: usize, skip_bits: u32) {
        assert!(skip_bits < 64, "{skip_bits} bits to skip");
        self.skip = skip_bits;
        self.bits = if expected < 64 {
            0
        } else {
            (expected.ilog2() + 1).min(20).min(64 - skip_bits)
        };
        self.at.clear();
        self.at.resize((1 << self.bits) + 2, 0);
    }

    /// What counts one record, before [`finish`](Self::finish) is given
    /// it: a closure holding the digit's shifts and the counts.
    #[inline(always)]
    pub fn counter(&mut self) -> impl FnMut(&HashCount) + '_ {
        let (skip, bits, at) = (self.skip, self.bits, &mut self.at[..]);
        move |r| at[digit(r, skip, bits) + 2] += 1
    }

    /// Sorts `records` — the ones counted since [`begin`](Self::begin), in
    /// any order — into `out` (emptied first).
    ///
    /// # Panics
    ///
    /// If `records` are not as many as were counted (64 or more of
    /// them).
    pub fn finish(&mut self, records: &[HashCount], out: &mut Vec<HashCount>) {
        if records.len() < 64 {
            out.clear();
            out.extend_from_slice(records);
            out.sort_unstable_by_key(|r| sort_key(r));
            return;
        }
        let largest = deal_counted(records, out, &mut self.at, self.skip, self.bits);
        if largest <= SMALL_GROUP {
            insertion_sort(out);
            return;
        }
        for w in self.at.windows(2) {
            let group = &mut out[w[0] as usize..w[1] as usize];
            match group.len() {
                0 | 1 => {}
                2..=SMALL_GROUP => insertion_sort(group),
                _ => group.sort_unstable_by_key(|r| sort_key(r)),
            }
        }
    }
}

/// The largest group [`UniformSort`] leaves to an insertion sort.
const SMALL_GROUP: usize = 16;

/// Sorts `v` by moving each record back past the larger ones before it:
/// where `v` is nearly sorted, as a counting sort leaves it, most records
/// cost one compare of their leading eight bytes.
fn insertion_sort(v: &mut [HashCount]) {
    let lead = |r: &HashCount| u64::from_be_bytes(r[..8].try_into().expect("8 bytes"));
    // Invariant: `v[..i]` is sorted, and `last` is the lead of `v[i - 1]`,
    // its largest record (a smaller record moving before it keeps it so).
    let Some(first) = v.first() else {
        return;
    };
    let mut last = lead(first);
    for i in 1..v.len() {
        let next = lead(&v[i]);
        if next > last {
            last = next;
            continue;
        }
        let key = sort_key(&v[i]);
        if next == last && key >= sort_key(&v[i - 1]) {
            continue;
        }
        let r = v[i];
        let mut j = i;
        while j > 0 && sort_key(&v[j - 1]) > key {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = r;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::build::hash_count::hash_count;
    use proptest::prelude::*;

    proptest! {
        /// Any records under a common prefix, given whole or counted one
        /// by one with any estimate, sort like `sort_by_key`: uniform
        /// leading bytes, many of them shared (ties past the first eight
        /// bytes in small groups), or few leads (large groups).
        #[test]
        fn sorts_like_a_comparison_sort(
            raw in proptest::collection::vec((0u64..200, any::<[u8; 12]>(), any::<u32>()), 0..400),
            few_leads: bool,
            skip in 0u32..16,
            estimate in 0usize..1000,
        ) {
            let input: Vec<HashCount> = raw
                .iter()
                .map(|(lead, rest, count)| {
                    let lead = if few_leads {
                        (lead % 4) << 40
                    } else {
                        lead.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    };
                    let mut k = [0u8; 20];
                    // The top `skip` bits are zero.
                    k[..8].copy_from_slice(&(lead >> skip).to_be_bytes());
                    k[8..].copy_from_slice(rest);
                    hash_count(&k, *count)
                })
                .collect();
            let mut want = input.clone();
            want.sort_by_key(|r| sort_key(r));
            let keys = |v: &[HashCount]| v.iter().map(|r| sort_key(r)).collect::<Vec<_>>();
            let mut sort = UniformSort::default();
            let mut got = vec![[7u8; HASH_COUNT_BYTES]; 5];
            sort.sort(&input, &mut got, skip);
            prop_assert_eq!(keys(&got), keys(&want));
            sort.begin(estimate, skip);
            input.iter().for_each(sort.counter());
            sort.finish(&input, &mut got);
            prop_assert_eq!(keys(&got), keys(&want));
            got.sort();
            want.sort();
            prop_assert_eq!(got, want, "the same records");
        }
    }

    /// A cheap well-mixed key: two multiplicative hashes.
    pub(crate) fn key_of(i: u64) -> [u8; 20] {
        let mut k = [0u8; 20];
        k[..8].copy_from_slice(&i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes());
        k[8..16].copy_from_slice(
            &(i ^ 0x5555)
                .wrapping_mul(0xD6E8_FEB8_6659_FD93)
                .to_be_bytes(),
        );
        k[16..].copy_from_slice(&(i as u32).to_be_bytes());
        k
    }

    #[test]
    fn sort_uniform_sorts_uniform_and_skewed_records() {
        for n in [0usize, 1, 5, 63, 64, 65, 1000, 5000] {
            // Uniform keys under a fixed 4-bit prefix, with duplicates.
            let uniform: Vec<HashCount> = (0..n as u64)
                .map(|i| {
                    let mut k = key_of(i % (n as u64 / 2 + 1));
                    k[0] = (k[0] & 0x0F) | 0x30;
                    hash_count(&k, i as u32)
                })
                .collect();
            // Skewed: every key shares its first 12 bytes.
            let skewed: Vec<HashCount> = (0..n as u64)
                .map(|i| {
                    let mut k = [7u8; 20];
                    k[12..].copy_from_slice(&key_of(i)[..8]);
                    hash_count(&k, 1)
                })
                .collect();
            for input in [uniform, skewed] {
                let mut got = vec![[9u8; HASH_COUNT_BYTES]; 3];
                UniformSort::default().sort(&input, &mut got, 4);
                let mut want = input.clone();
                want.sort_by_key(|r| sort_key(r));
                let keys = |v: &[HashCount]| v.iter().map(|r| sort_key(r)).collect::<Vec<_>>();
                assert_eq!(keys(&got), keys(&want), "n {n}");
                let (mut g, mut w) = (got, want);
                g.sort();
                w.sort();
                assert_eq!(g, w, "same records, n {n}");
            }
        }
    }

    #[test]
    fn grouping_keeps_sorted_batches_and_groups_the_others() {
        for sorted in [true, false] {
            let mut records: Vec<HashCount> = (0..1000u64)
                .map(|i| hash_count(&key_of(i), i as u32))
                .collect();
            if sorted {
                records.sort_by_key(|r| sort_key(r));
            }
            let before = records.clone();
            let mut scratch = Vec::new();
            let (was_sorted, runs) = group_by_bucket(&mut records, &mut scratch, 4);
            assert_eq!(was_sorted, sorted);
            if sorted {
                assert_eq!(records, before);
            }
            assert!(runs
                .windows(2)
                .all(|w| w[0].bucket < w[1].bucket && w[0].end == w[1].start));
            assert_eq!((runs[0].start, runs.last().unwrap().end), (0, 1000));
            for run in &runs {
                let bucket = run.bucket as usize;
                let all_in = records[run.start as usize..run.end as usize]
                    .iter()
                    .all(|r| digit(r, 0, 4) == bucket);
                assert!(all_in);
            }
            let (mut a, mut b) = (records, before);
            a.sort();
            b.sort();
            assert_eq!(a, b, "same records");
        }
    }
}
