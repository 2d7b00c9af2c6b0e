//! `csv-peers [MIB] [ROUNDS]`: records + field 3 of the CSV sample (MIB
//! MiB, default 64) and of the same records as TSV, by spool and its peers
//! (`spool_bench::csv_peers::all`), every answer checked against the `csv`
//! crate's first, then the floors (`csv_peers::floors`: a `memchr` pass
//! over the same bytes, and the splitter's masks without per-record work),
//! each checked against its own answer, timed in the same rounds.
//!
//! Peers take turns for ROUNDS rounds (default 15), and each run is timed
//! in thread CPU time, so time spent waiting for a core on a busy machine
//! is not counted. Prints the median, the spread (min–max) and GB/s of the
//! median per peer, and the median of the per-round ratios to spool's CSV
//! splitter and to the TSV path (ratios within one round compare runs made
//! moments apart).

use spool_bench::csv_peers::{self, Input, FIELD};
use spool_bench::csv_sample::sample;

/// CPU time of the calling thread, in seconds.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a
    // constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// A peer or a floor, as one number to time (a peer's bytes of field 3).
type Timed = Box<dyn Fn(&[u8]) -> u64>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args
        .get(1)
        .map_or(64, |a| a.parse().expect("MIB is a number"));
    let rounds: usize = args
        .get(2)
        .map_or(15, |a| a.parse().expect("ROUNDS is a number"));
    let s = sample(mib << 20, 1);
    let want = csv_peers::csv_byte_records(&s.csv, b',', FIELD);
    let peers = csv_peers::all();
    let input = |i: Input| {
        if i == Input::Csv {
            &s.csv[..]
        } else {
            &s.tsv[..]
        }
    };
    for (name, i, split) in &peers {
        assert_eq!(
            split(input(*i)),
            want,
            "{name} disagrees with the csv crate"
        );
    }
    // Floors: timed in the same rounds, each checked against its answer.
    let floors = csv_peers::floors();
    for (name, i, floor) in &floors {
        let data = input(*i);
        assert_eq!(floor(data), csv_peers::floor_answer(name, data), "{name}");
    }
    let peers: Vec<(String, Input, Timed)> = peers
        .into_iter()
        .map(|(n, i, split)| {
            let f: Timed = Box::new(move |d| split(d).1);
            (n.to_string(), i, f)
        })
        .chain(floors.into_iter().map(|(n, i, floor)| {
            let name = format!("{n} ({})", if i == Input::Csv { "CSV" } else { "TSV" });
            let f: Timed = Box::new(floor);
            (name, i, f)
        }))
        .collect();
    let tsv_path = peers
        .iter()
        .position(|(n, ..)| n.starts_with("spool-io TSV path"))
        .expect("the TSV path is a peer");
    let mut times = vec![Vec::new(); peers.len()];
    for _ in 0..rounds {
        for (k, (_, i, split)) in peers.iter().enumerate() {
            let start = thread_cpu();
            std::hint::black_box(split(std::hint::black_box(input(*i))));
            times[k].push(thread_cpu() - start);
        }
    }
    println!(
        "{} records; CSV {} bytes, TSV {} bytes; {rounds} rounds, thread CPU time",
        s.records,
        s.csv.len(),
        s.tsv.len()
    );
    println!(
        "{:<46} {:>9} {:>17} {:>6} {:>9} {:>9}",
        "peer", "median ms", "min-max ms", "GB/s", "vs spool", "vs TSV"
    );
    for (k, (name, i, _)) in peers.iter().enumerate() {
        let ratio =
            |other: usize| median((0..rounds).map(|r| times[k][r] / times[other][r]).collect());
        let (lo, hi) = times[k]
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &t| (lo.min(t), hi.max(t)));
        let m = median(times[k].clone());
        println!(
            "{name:<46} {:>9.1} {:>8.1}-{:<8.1} {:>6.2} {:>8.2}x {:>8.2}x",
            m * 1e3,
            lo * 1e3,
            hi * 1e3,
            input(*i).len() as f64 / m / 1e9,
            ratio(0),
            ratio(tsv_path),
        );
    }
}
