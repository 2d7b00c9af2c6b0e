//! Sorting records by hash without comparisons where hashes allow it.
//!
//! SHA-1 and NTLM hashes are uniform, so their leading bits are a radix
//! that splits any set of them into nearly equal groups:
//!
//! - [`group_by_bucket`] orders a parsed batch by its records' buckets (a
//!   stable counting sort on the top bits), so the arena takes each
//!   bucket's records as one run instead of one record at a time to a
//!   different place each;
//! - [`sort_uniform`] sorts one bucket with one counting pass on the next
//!   `log2(n)` bits and an insertion sort of each small group: linear time
//!   in expectation, `O(n log n)` on skewed input (not hashes).
//!
//! Both use the one counting sort below. Records and their order are
//! [`record`](crate::record)'s.

use crate::record::{digit, sort_key, Record, RECORD_BYTES};

/// Stable counting sort of `records` into `out` by [`digit`]; returns where
/// each digit's group starts (`2^bits + 1` entries, the last is the end).
fn counting_sort(records: &[Record], out: &mut Vec<Record>, skip: u32, bits: u32) -> Vec<usize> {
    if bits == 0 {
        // One group: the records as they are.
        out.clear();
        out.extend_from_slice(records);
        return vec![0, records.len()];
    }
    assert!(
        bits <= 32 && skip + bits <= 64,
        "a digit of {bits} bits after {skip}"
    );
    // `digit` with its shifts fixed for the whole pass.
    let digit = |r: &Record| {
        let top = u64::from_be_bytes(r[..8].try_into().expect("8 bytes"));
        ((top << skip) >> (64 - bits)) as usize
    };
    // One array serves as the counts, the next free place of each group
    // and the returned starts, shifted by one so that no copy is needed:
    // counted at `d + 2`, summed so that `at[d + 1]` is where group `d`
    // starts, advanced through the group while dealing, after which
    // `at[d + 1]` is where it ends, the start of `d + 1`; `at[0]` is 0.
    let groups = 1 << bits;
    let mut at = vec![0usize; groups + 2];
    for r in records {
        at[digit(r) + 2] += 1;
    }
    for d in 2..at.len() {
        at[d] += at[d - 1];
    }
    // Every slot is written below: only growth needs filling.
    out.truncate(records.len());
    out.resize(records.len(), [0u8; RECORD_BYTES]);
    for r in records {
        let d = digit(r) + 1;
        out[at[d]] = *r;
        at[d] += 1;
    }
    at.truncate(groups + 1);
    at
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
    records: &mut Vec<Record>,
    scratch: &mut Vec<Record>,
    bits: u32,
) -> (bool, Vec<BucketRun>) {
    let sorted = records
        .windows(2)
        .all(|w| sort_key(&w[0]) <= sort_key(&w[1]));
    if !sorted {
        // The counting sort's group starts are the runs.
        let starts = counting_sort(records, scratch, 0, bits);
        std::mem::swap(records, scratch);
        // A plain loop into a vector sized for every bucket: `collect`
        // on a filter grows it step by step.
        let mut runs = Vec::with_capacity(starts.len() - 1);
        for (bucket, w) in starts.windows(2).enumerate() {
            if w[0] < w[1] {
                runs.push(BucketRun {
                    bucket: bucket as u32,
                    start: w[0] as u32,
                    end: w[1] as u32,
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
/// bits are uniform (hashes): one counting pass on the next `log2(n)` bits
/// places each record in a group of about one, and each group is then
/// sorted on its own — linear time in expectation. Skewed input (not
/// hashes) only makes groups larger; a large group is sorted with
/// `sort_unstable`, so the worst case stays `O(n log n)`.
///
/// The sorted records go into `out` (emptied first), so that a caller
/// sorting bucket after bucket reuses one vector.
pub fn sort_uniform(records: &[Record], out: &mut Vec<Record>, skip_bits: u32) {
    let n = records.len();
    if n < 64 {
        out.clear();
        out.extend_from_slice(records);
        out.sort_unstable_by_key(|r| sort_key(r));
        return;
    }
    let starts = counting_sort(records, out, skip_bits, n.ilog2().min(20));
    for w in starts.windows(2) {
        let group = &mut out[w[0]..w[1]];
        match group.len() {
            0 | 1 => {}
            2..=16 => insertion_sort(group),
            _ => group.sort_unstable_by_key(|r| sort_key(r)),
        }
    }
}

fn insertion_sort(v: &mut [Record]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && sort_key(&v[j - 1]) > sort_key(&v[j]) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::record;

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
            let uniform: Vec<Record> = (0..n as u64)
                .map(|i| {
                    let mut k = key_of(i % (n as u64 / 2 + 1));
                    k[0] = (k[0] & 0x0F) | 0x30;
                    record(&k, i as u32)
                })
                .collect();
            // Skewed: every key shares its first 12 bytes.
            let skewed: Vec<Record> = (0..n as u64)
                .map(|i| {
                    let mut k = [7u8; 20];
                    k[12..].copy_from_slice(&key_of(i)[..8]);
                    record(&k, 1)
                })
                .collect();
            for input in [uniform, skewed] {
                let mut got = vec![[9u8; RECORD_BYTES]; 3];
                sort_uniform(&input, &mut got, 4);
                let mut want = input.clone();
                want.sort_by_key(|r| sort_key(r));
                let keys = |v: &[Record]| v.iter().map(|r| sort_key(r)).collect::<Vec<_>>();
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
            let mut records: Vec<Record> =
                (0..1000u64).map(|i| record(&key_of(i), i as u32)).collect();
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
