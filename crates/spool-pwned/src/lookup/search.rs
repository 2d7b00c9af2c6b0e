//! The search every sorted layout shares: a partition point found from a
//! guess outward, so that the pages a lookup touches stay near the guess,
//! and whose probes are known, so that a lookup checks only the two
//! records around its answer.

/// The first `i` in `lo..hi` for which `before(i)` is false, `before` being
/// true then false across the range; searched from `guess` outward with
/// doubling steps, then by bisection, so that the indexes probed stay near
/// the answer when the guess is good. Any `before` (a damaged index is not
/// sorted) gives some `i` in `lo..=hi`, having probed only `lo..hi`, and
/// having seen `before(i - 1)` true (unless `i == lo`) and `before(i)`
/// false (unless `i == hi`): lookups rely on this to check only the two
/// records around the answer.
pub(crate) fn partition_near(
    lo: usize,
    hi: usize,
    guess: usize,
    before: impl Fn(usize) -> bool,
) -> usize {
    let (mut lo, mut hi) = (lo, hi);
    let guess = guess.clamp(lo, hi);
    let mut step = 1;
    if guess < hi && before(guess) {
        lo = guess + 1;
        while lo + step <= hi && before(lo + step - 1) {
            lo += step;
            step *= 2;
        }
        hi = hi.min(lo + step - 1);
    } else {
        hi = guess;
        while hi >= lo + step && !before(hi - step) {
            hi -= step;
            step *= 2;
        }
        if hi >= lo + step {
            lo = hi - step + 1;
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::partition_near;
    use proptest::prelude::*;

    proptest! {
        /// Against the plain partition point, from any guess, probing only
        /// inside the range.
        #[test]
        fn partition_near_finds_the_partition_point(
            hi in 0usize..300, split in 0usize..300, lo in 0usize..300, guess in 0usize..600,
        ) {
            let (lo, split) = (lo.min(hi), split.min(hi));
            let before = |i: usize| {
                assert!((lo..hi).contains(&i), "probed {i} outside {lo}..{hi}");
                i < split
            };
            prop_assert_eq!(partition_near(lo, hi, guess, before), split.max(lo));
        }

        /// A damaged (unsorted) range: still an answer in bounds, no probe
        /// outside.
        #[test]
        fn partition_near_stays_in_bounds_on_any_predicate(
            bits in prop::collection::vec(any::<bool>(), 0..300), lo in 0usize..300, guess in 0usize..600,
        ) {
            let (hi, lo) = (bits.len(), lo.min(bits.len()));
            let before = |i: usize| {
                assert!((lo..hi).contains(&i), "probed {i} outside {lo}..{hi}");
                bits[i]
            };
            let seen = std::cell::RefCell::new(std::collections::HashMap::new());
            let before = |i: usize| {
                let b = before(i);
                seen.borrow_mut().insert(i, b);
                b
            };
            let at = partition_near(lo, hi, guess, before);
            prop_assert!((lo..=hi).contains(&at));
            let seen = seen.into_inner();
            if at > lo {
                prop_assert_eq!(seen.get(&(at - 1)), Some(&true), "left neighbour not seen before");
            }
            if at < hi {
                prop_assert_eq!(seen.get(&at), Some(&false), "answer not seen not-before");
            }
        }
    }
}
