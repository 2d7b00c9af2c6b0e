//! Splitting CSV into records and taking field 3's value (one field past
//! two quoted ones on average): spool's `text::csv` next to the `csv`
//! crate's `ByteRecord` reader, `simd-csv`'s zero-copy reader, a
//! `memchr`-driven splitter, and spool's unquoted TSV path on the same
//! records written as TSV. A third of the CSV's fields are quoted, some
//! with commas, line breaks or doubled quotes inside (see
//! `spool_bench::csv_sample`). Every peer's answer (records, bytes of
//! field 3's values) is checked against the `csv` crate's before timing.
//!
//! A second group times `RecordCutter` alone (what the read-ahead thread
//! adds), checking that its last cut is the end of the input.
//!
//! Run: `cargo bench -p spool-bench --bench csv` (64 MiB of CSV; set
//! `SPOOL_BENCH_CSV_MIB` for another size).

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use spool::text::csv::Dialect;
use spool_bench::csv_peers::{self, Input, FIELD};
use spool_bench::csv_sample::sample;

fn bench(c: &mut Criterion) {
    let mib: usize = std::env::var("SPOOL_BENCH_CSV_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let s = sample(mib << 20, 1);
    println!(
        "csv sample: {} records, CSV {} bytes, TSV {} bytes",
        s.records,
        s.csv.len(),
        s.tsv.len()
    );
    let want = csv_peers::csv_byte_records(&s.csv, b',', FIELD);
    assert_eq!(want.0, s.records);
    let (csv, tsv) = (&s.csv[..], &s.tsv[..]);
    let mut group = c.benchmark_group("csv_records_field3");
    // Records per second: the CSV and the TSV hold the same records.
    group.throughput(Throughput::Elements(s.records));
    group.sample_size(10);
    for (name, input, split) in csv_peers::all() {
        let data = if input == Input::Csv { csv } else { tsv };
        let got = split(data);
        // The TSV's values have no enclosing quotes to drop but the same
        // bytes otherwise, so both files give the same answer.
        assert_eq!(got, want, "{name} disagrees with the csv crate");
        group.bench_function(name, |b| b.iter(|| black_box(split(black_box(data)))));
    }
    group.finish();

    // The reader thread's share: finding where to cut 1 MiB reads.
    let mut group = c.benchmark_group("csv_cut_1MiB_reads");
    group.throughput(Throughput::Bytes(csv.len() as u64));
    group.sample_size(10);
    assert_eq!(
        csv_peers::cut_only(csv, Dialect::CSV, 1 << 20),
        csv.len() as u64
    );
    group.bench_function("spool RecordCutter, CSV", |b| {
        b.iter(|| black_box(csv_peers::cut_only(black_box(csv), Dialect::CSV, 1 << 20)))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
