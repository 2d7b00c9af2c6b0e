//! In-process lookups per second in each index layout, side by side: the
//! full index (`Index::lookup`, and through `AnyIndex`), t64 and filter,
//! all built from one sample of N hashes (hash order; N from
//! `SPOOL_PWNED_FORMATS_LINES`, default 1,000,000 — use 10,000,000 or more
//! so that the files outgrow the CPU caches). Each iteration looks up the
//! same 100,000 hashes, half present and half absent, in random order,
//! with the blocks they read already checked (a long-lived process's
//! steady state); the number found is checked every iteration: exactly
//! the present half for full and t64, that plus at most 0.1% of the absent
//! half for the filter.
//!
//! Run: `cargo bench -p spool-bench --bench pwned_formats`

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput};
use spool_pwned::build::{build, BuildOptions};
use spool_pwned::convert::convert;
use spool_pwned::format::Layout;
use spool_pwned::input::Source;
use spool_pwned::sample::{sample_password, write_sample, Order};
use spool_pwned::{Answer, AnyIndex, HashKind, Index};

const PROBES: u64 = 100_000;

fn build_all(dir: &Path, lines: u64) {
    let mut text = Vec::new();
    write_sample(&mut text, HashKind::Sha1, lines, 1, Order::Hash, false).unwrap();
    let full = dir.join("full");
    let source = Source::from_reader("sample", std::io::Cursor::new(text));
    build(vec![source], &full, &BuildOptions::default()).unwrap();
    let index = Index::open(&full).unwrap();
    for layout in [Layout::T64, Layout::Filter] {
        convert(&index, &dir.join(layout.name()), layout, 512 << 20).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let lines: u64 = std::env::var("SPOOL_PWNED_FORMATS_LINES")
        .map_or(1_000_000, |v| v.parse().expect("a number of lines"));
    let dir = std::env::temp_dir().join(format!("spool-bench-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    build_all(&dir, lines);
    // Half present (i < lines), half absent, spread by a multiplicative
    // hash so that consecutive probes land far apart.
    let probes: Vec<Vec<u8>> = (0..PROBES)
        .map(|i| {
            let n = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % lines;
            let n = if i % 2 == 0 { n } else { lines + n };
            HashKind::Sha1.hash_password(&sample_password(1, n))
        })
        .collect();
    let present = PROBES.div_ceil(2) as usize;
    let full = Index::open(dir.join("full")).unwrap();
    let any: Vec<(&str, AnyIndex)> = ["full", "t64", "filter"]
        .iter()
        .map(|name| (*name, AnyIndex::open(dir.join(name)).unwrap()))
        .collect();
    for (name, index) in &any {
        let bytes = std::fs::metadata(index.path()).unwrap().len();
        println!(
            "{name}: {bytes} bytes, {:.3} bytes per hash at {lines} hashes",
            bytes as f64 / lines as f64
        );
    }

    let mut group = c.benchmark_group(format!("pwned_lookup_{lines}"));
    group.throughput(Throughput::Elements(PROBES));
    group.bench_function("full Index::lookup", |b| {
        b.iter(|| {
            let found = probes
                .iter()
                .filter(|h| full.lookup(black_box(h)).unwrap().is_some())
                .count();
            assert_eq!(found, present, "full: wrong answers");
            found
        })
    });
    for (name, index) in &any {
        group.bench_function(format!("{name} AnyIndex::check"), |b| {
            b.iter(|| {
                let found = probes
                    .iter()
                    .filter(|h| index.check(black_box(h)).unwrap() != Answer::Absent)
                    .count();
                let extra = if *name == "filter" { present / 1000 } else { 0 };
                assert!(
                    (present..=present + extra).contains(&found),
                    "{name}: {found} found, {present} present"
                );
                found
            })
        });
    }
    group.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
