//! In-process lookups per second in each index layout, side by side: the
//! full index (`Index::lookup`, and through `AnyIndex`), t64 and filter,
//! all built from one sample of N hashes (hash order; N from
//! `SPOOL_PWNED_FORMATS_LINES`, default 1,000,000 — use 10,000,000 or more
//! so that the files outgrow the CPU caches). Each iteration looks up the
//! same 100,000 hashes, half present and half absent, in random order,
//! with the blocks they read already checked (a long-lived process's
//! steady state); the number found is checked every iteration: exactly
//! the present half for full and t64, that plus at most 0.1% of the absent
//! half for the filter. Each layout is measured one hash at a time
//! (`check` in a loop) and as a batch (`check_many`, which a filter runs
//! a few hashes ahead of, prefetching).
//!
//! Two floors say what the machine allows for a filter's access pattern:
//! per hash, three reads at random places of the same mapped fingerprint
//! array, XORed, with no hashing, no shard and no checks — one hash at a
//! time, and prefetched as the batch does. Their result (the XOR of all)
//! is checked against a first pass.
//!
//! Run: `cargo bench -p spool-bench --bench pwned_formats`

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput};
use spool_pwned::build::convert;
use spool_pwned::build::Source;
use spool_pwned::build::{build, BuildOptions};
use spool_pwned::format::IndexLayout;
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
    for layout in [IndexLayout::T64, IndexLayout::Filter] {
        convert(&index, &dir.join(layout.name()), layout, 512 << 20).unwrap();
    }
}

/// The fingerprint array of a filter index, mapped as the index maps it,
/// for the floor: what three reads at random places cost alone.
struct Floor {
    map: memmap2::Mmap,
    /// Offset of the first fingerprint, and the number of them.
    at: usize,
    len: u64,
}

impl Floor {
    fn open(index: &AnyIndex) -> Floor {
        let header = index.header();
        let file = std::fs::File::open(index.path()).unwrap();
        // SAFETY: a read-only map of a file nobody modifies during the
        // bench; reads are bounds-checked slices.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        #[cfg(unix)]
        map.advise(memmap2::Advice::Random).unwrap();
        let at = 64 + (32 << header.prefix_bits);
        Floor {
            map,
            at,
            len: header.items,
        }
    }

    /// The file offsets of three fingerprints picked by bytes 8..20 of
    /// `hash` (uniform), scaled into the array.
    #[inline]
    fn slots(&self, hash: &[u8]) -> [usize; 3] {
        [8, 12, 16].map(|i| {
            let r = u64::from(u32::from_le_bytes(hash[i..i + 4].try_into().unwrap()));
            self.at + 2 * ((r * self.len) >> 32) as usize
        })
    }

    /// The XOR of every probe's three fingerprints, each probe's cache
    /// lines prefetched `ahead` probes before it (none for 0).
    fn xor_all(&self, probes: &[Vec<u8>], ahead: usize) -> u16 {
        let mut x = 0;
        for (i, hash) in probes.iter().enumerate() {
            if ahead > 0 {
                if let Some(next) = probes.get(i + ahead) {
                    for at in self.slots(next) {
                        prefetch(&self.map[at]);
                    }
                }
            }
            for at in self.slots(hash) {
                x ^= u16::from_le_bytes([self.map[at], self.map[at + 1]]);
            }
        }
        x
    }
}

/// Asks the CPU to fetch the cache line of `byte`.
#[inline]
fn prefetch(byte: &u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults; the pointer comes
    // from a reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            std::ptr::from_ref(byte).cast::<i8>(),
            std::arch::x86_64::_MM_HINT_T0,
        )
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
        let extra = if *name == "filter" { present / 1000 } else { 0 };
        let expect = move |found: usize| {
            assert!(
                (present..=present + extra).contains(&found),
                "{name}: {found} found, {present} present"
            );
        };
        group.bench_function(format!("{name} AnyIndex::check"), |b| {
            b.iter(|| {
                let found = probes
                    .iter()
                    .filter(|h| index.check(black_box(h)).unwrap() != Answer::Absent)
                    .count();
                expect(found);
                found
            })
        });
        group.bench_function(format!("{name} AnyIndex::check_many"), |b| {
            b.iter(|| {
                let found = index
                    .check_many(black_box(&probes))
                    .filter(|a| *a.as_ref().unwrap() != Answer::Absent)
                    .count();
                expect(found);
                found
            })
        });
    }
    let filter = &any.iter().find(|(name, _)| *name == "filter").unwrap().1;
    let floor = Floor::open(filter);
    for ahead in [0, 8] {
        let want = floor.xor_all(&probes, ahead);
        group.bench_function(format!("floor: 3 reads, prefetch {ahead} ahead"), |b| {
            b.iter(|| {
                let got = floor.xor_all(black_box(&probes), ahead);
                assert_eq!(got, want, "floor: a different result");
                got
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
