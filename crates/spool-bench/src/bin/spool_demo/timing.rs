//! Repeated, interleaved timing for the demo's side-by-side figures.
//!
//! One run per case told nothing on a shared machine: two demos on the same
//! box once gave read throughputs of 914 and 5847 MB/s. So every case runs
//! `--runs` times (5 by default) and reports the median with the lowest and
//! highest run. The contestants of a case take turns — spool, peer, peer,
//! spool, peer, peer, ... — rather than each running all its rounds in a
//! block, so a burst of load from elsewhere hits them all alike and their
//! ratio stays honest even when the absolute figures move.

use std::time::{Duration, Instant};

/// The wall times of one contestant's runs.
#[derive(Clone, Debug, Default)]
pub struct Samples(Vec<Duration>);

/// A figure over the runs, in the row's unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    /// The median run (the mean of the two middle runs for an even count).
    pub median: f64,
    /// The lowest figure of any run.
    pub min: f64,
    /// The highest figure of any run.
    pub max: f64,
}

impl Figure {
    /// A figure that does not vary between runs (a size, a count).
    pub fn exact(value: f64) -> Self {
        Figure {
            median: value,
            min: value,
            max: value,
        }
    }
}

impl Samples {
    /// The runs as a [`Figure`], each converted to the row's unit by `unit`
    /// (for example, bytes over the time to MB/s).
    pub fn figure(&self, unit: impl Fn(Duration) -> f64) -> Figure {
        let mut values: Vec<f64> = self.0.iter().map(|&d| unit(d)).collect();
        assert!(!values.is_empty(), "a figure needs at least one run");
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        Figure {
            median,
            min: values[0],
            max: values[n - 1],
        }
    }
}

/// Runs every contestant `runs` times, taking turns, and returns each
/// one's wall times in the order given. A contestant keeps its own last
/// answer (in what it captures) for the caller to check after timing, and
/// returns an error to stop the demo.
pub fn interleave<const N: usize>(
    runs: usize,
    mut contestants: [&mut dyn FnMut() -> anyhow::Result<()>; N],
) -> anyhow::Result<[Samples; N]> {
    let samples = interleave_all(runs, &mut contestants)?;
    Ok(samples.try_into().expect("one Samples per contestant"))
}

/// [`interleave`] for a number of contestants known only at run time.
pub fn interleave_all(
    runs: usize,
    contestants: &mut [&mut dyn FnMut() -> anyhow::Result<()>],
) -> anyhow::Result<Vec<Samples>> {
    let mut samples = vec![Samples::default(); contestants.len()];
    for _ in 0..runs.max(1) {
        for (contestant, samples) in contestants.iter_mut().zip(&mut samples) {
            let start = Instant::now();
            contestant()?;
            samples.0.push(start.elapsed());
        }
    }
    Ok(samples)
}

/// Megabytes (10^6 bytes) per second.
pub fn mb_per_s(bytes: u64, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64().max(1e-9)
}

/// Nanoseconds per item.
pub fn ns_per(items: usize, time: Duration) -> f64 {
    time.as_nanos() as f64 / items.max(1) as f64
}

/// Seconds.
pub fn secs(time: Duration) -> f64 {
    time.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_min_and_max() {
        let ms = |v: &[u64]| Samples(v.iter().map(|&m| Duration::from_millis(m)).collect());
        let odd = ms(&[30, 10, 20]).figure(|d| d.as_millis() as f64);
        assert_eq!((odd.median, odd.min, odd.max), (20.0, 10.0, 30.0));
        let even = ms(&[40, 10, 20, 30]).figure(|d| d.as_millis() as f64);
        assert_eq!((even.median, even.min, even.max), (25.0, 10.0, 40.0));
        // A rate turns the slowest run into the lowest figure.
        let rate = ms(&[1000, 500]).figure(|d| mb_per_s(1_000_000, d));
        assert_eq!((rate.min, rate.max), (1.0, 2.0));
    }

    #[test]
    fn contestants_take_turns() {
        let order = std::cell::RefCell::new(Vec::new());
        let mut a = || {
            order.borrow_mut().push('a');
            Ok(())
        };
        let mut b = || {
            order.borrow_mut().push('b');
            Ok(())
        };
        let [sa, sb] = interleave(3, [&mut a, &mut b]).unwrap();
        assert_eq!((sa.0.len(), sb.0.len()), (3, 3));
        assert_eq!(order.into_inner(), ['a', 'b', 'a', 'b', 'a', 'b']);
    }
}
