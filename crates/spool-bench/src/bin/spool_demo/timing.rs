//! Repeated, interleaved timing for the demo's side-by-side figures.
//!
//! One run per case told nothing on a shared machine: two demos on the same
//! box once gave read throughputs of 914 and 5847 MB/s. So every case runs
//! `--runs` times (5 by default) and reports the median with the lowest and
//! highest run. The contestants of a case take turns — spool, peer, peer,
//! spool, peer, peer, ... — rather than each running all its rounds in a
//! block, so a burst of load from elsewhere hits them all alike and their
//! ratio stays honest even when the absolute figures move.
//!
//! # Runs of at least [`MIN_RUN`]
//!
//! A run of a millisecond says little: a timer tick, a page fault or one
//! scheduler slice given elsewhere is a large part of it, and the ratio of
//! two such runs moved from 1.3x to 0.79x between two demos. So a
//! contestant whose workload is shorter than [`MIN_RUN`] repeats it
//! within each run, as many times as it takes for the run to last about
//! that long, and its figure is the time per workload (the run's time
//! over the repetitions). How many repetitions is measured once per
//! contestant before its runs (`calibrate`), from the calls after the
//! first, which pays for cold caches and fresh pages.

use std::time::{Duration, Instant};

/// The least wall time one run of a contestant lasts.
pub const MIN_RUN: Duration = Duration::from_millis(50);

/// One contestant's runs: each run's wall time and how many times it
/// repeated the workload.
#[derive(Clone, Debug, Default)]
pub struct Samples(Vec<(Duration, u32)>);

/// A figure over the runs, in the row's unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    /// The median run (the mean of the two middle runs for an even count).
    pub median: f64,
    /// The lowest figure of any run.
    pub min: f64,
    /// The highest figure of any run.
    pub max: f64,
    /// How the runs were timed, for a measured figure.
    pub runs: Option<RunLength>,
}

/// How long a contestant's runs lasted, and how many times each repeated
/// its workload to last at least [`MIN_RUN`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunLength {
    /// The median run's wall time.
    pub median: Duration,
    /// Workloads per run.
    pub repeats: u32,
}

impl Figure {
    /// A figure that does not vary between runs (a size, a count).
    pub fn exact(value: f64) -> Self {
        Figure {
            median: value,
            min: value,
            max: value,
            runs: None,
        }
    }
}

impl Samples {
    /// The runs as a [`Figure`]: each run's time per workload converted to
    /// the row's unit by `unit` (for example, bytes over the time to MB/s).
    pub fn figure(&self, unit: impl Fn(Duration) -> f64) -> Figure {
        assert!(!self.0.is_empty(), "a figure needs at least one run");
        let mut values: Vec<f64> = self.0.iter().map(|&(d, k)| unit(d / k)).collect();
        values.sort_by(f64::total_cmp);
        let mut runs: Vec<Duration> = self.0.iter().map(|&(d, _)| d).collect();
        runs.sort();
        Figure {
            median: median(&values, |a, b| (a + b) / 2.0),
            min: values[0],
            max: values[values.len() - 1],
            runs: Some(RunLength {
                median: median(&runs, |a, b| (a + b) / 2),
                repeats: self.0.iter().map(|&(_, k)| k).max().unwrap_or(1),
            }),
        }
    }
}

/// The middle of sorted `values`; for an even count, `mean` of the two
/// middle ones.
fn median<T: Copy>(values: &[T], mean: impl Fn(T, T) -> T) -> T {
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        mean(values[n / 2 - 1], values[n / 2])
    }
}

/// Runs every contestant `runs` times, taking turns, and returns each
/// one's wall times in the order given; a contestant shorter than
/// [`MIN_RUN`] repeats its workload within each run (see the module
/// docs), so it must give the same answer however often it is called. A
/// contestant keeps its own last answer (in what it captures) for the
/// caller to check after timing, and returns an error to stop the demo.
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
    let runs = runs.max(1);
    let mut samples = vec![Samples::default(); contestants.len()];
    let mut repeats = Vec::with_capacity(contestants.len());
    for (contestant, samples) in contestants.iter_mut().zip(&mut samples) {
        let (k, first_run) = calibrate(contestant)?;
        samples.0.extend(first_run.map(|d| (d, 1)));
        repeats.push(k);
    }
    for _ in 0..runs {
        for ((contestant, samples), &k) in contestants.iter_mut().zip(&mut samples).zip(&repeats) {
            if samples.0.len() == runs {
                continue;
            }
            let start = Instant::now();
            for _ in 0..k {
                contestant()?;
            }
            samples.0.push((start.elapsed(), k));
        }
    }
    Ok(samples)
}

/// How many calls of `contestant` make a run of at least [`MIN_RUN`]:
/// calls it until [`MIN_RUN`] has passed and estimates one call's time
/// from all but the first (which may pay for cold caches). A first call
/// that alone took [`MIN_RUN`] is a whole run, and is returned to be
/// counted as the first.
fn calibrate(
    contestant: &mut dyn FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<(u32, Option<Duration>)> {
    let start = Instant::now();
    contestant()?;
    let first = start.elapsed();
    if first >= MIN_RUN {
        return Ok((1, Some(first)));
    }
    let mut calls = 0u32;
    while start.elapsed() < MIN_RUN {
        contestant()?;
        calls += 1;
    }
    let per_call = (start.elapsed() - first) / calls;
    Ok((repeats_for(per_call), None))
}

/// Calls of `per_call` each that add up to at least [`MIN_RUN`].
fn repeats_for(per_call: Duration) -> u32 {
    let per_call = per_call.max(Duration::from_nanos(1)).as_nanos();
    u32::try_from(MIN_RUN.as_nanos().div_ceil(per_call)).unwrap_or(u32::MAX)
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
        let ms = |v: &[u64]| Samples(v.iter().map(|&m| (Duration::from_millis(m), 1)).collect());
        let odd = ms(&[30, 10, 20]).figure(|d| d.as_millis() as f64);
        assert_eq!((odd.median, odd.min, odd.max), (20.0, 10.0, 30.0));
        let even = ms(&[40, 10, 20, 30]).figure(|d| d.as_millis() as f64);
        assert_eq!((even.median, even.min, even.max), (25.0, 10.0, 40.0));
        // A rate turns the slowest run into the lowest figure.
        let rate = ms(&[1000, 500]).figure(|d| mb_per_s(1_000_000, d));
        assert_eq!((rate.min, rate.max), (1.0, 2.0));
        assert_eq!(rate.runs.unwrap().median, Duration::from_millis(750));
    }

    #[test]
    fn a_run_of_repeats_counts_per_workload() {
        let runs = Samples(vec![
            (Duration::from_millis(60), 3),
            (Duration::from_millis(90), 3),
        ]);
        let f = runs.figure(|d| d.as_millis() as f64);
        assert_eq!((f.median, f.min, f.max), (25.0, 20.0, 30.0));
        assert_eq!(f.runs.unwrap().repeats, 3);
        assert_eq!(repeats_for(Duration::from_millis(20)), 3);
        assert_eq!(repeats_for(Duration::from_millis(50)), 1);
        assert_eq!(
            repeats_for(Duration::ZERO),
            u32::try_from(MIN_RUN.as_nanos()).unwrap()
        );
    }

    #[test]
    fn short_workloads_repeat_until_a_run_is_long_enough() {
        let calls = std::cell::Cell::new(0u32);
        let mut short = || {
            calls.set(calls.get() + 1);
            std::thread::sleep(Duration::from_millis(5));
            Ok(())
        };
        let [s] = interleave(2, [&mut short]).unwrap();
        let f = s.figure(|d| d.as_secs_f64());
        let run = f.runs.unwrap();
        assert!(run.repeats >= 2, "{run:?}");
        assert!(run.median >= MIN_RUN, "{run:?}");
        // Calibration calls, then two runs of `repeats` calls each.
        assert!(calls.get() > 2 * run.repeats, "{}", calls.get());
        assert!(f.median >= 0.005, "per workload, not per run: {}", f.median);
    }

    #[test]
    fn contestants_take_turns() {
        // 20 ms a call: a run is a few calls.
        let order = std::cell::RefCell::new(Vec::new());
        let mut a = || {
            order.borrow_mut().push('a');
            std::thread::sleep(Duration::from_millis(20));
            Ok(())
        };
        let mut b = || {
            order.borrow_mut().push('b');
            std::thread::sleep(Duration::from_millis(20));
            Ok(())
        };
        let [sa, sb] = interleave(3, [&mut a, &mut b]).unwrap();
        assert_eq!((sa.0.len(), sb.0.len()), (3, 3));
        // Each calibrates alone first, then they take turns, run by run.
        let (ka, kb) = (sa.0[0].1 as usize, sb.0[0].1 as usize);
        let order = order.into_inner();
        let turns: String = order[order.len() - 3 * (ka + kb)..].iter().collect();
        let run = format!("{}{}", "a".repeat(ka), "b".repeat(kb));
        assert_eq!(turns, run.repeat(3));
    }
}
