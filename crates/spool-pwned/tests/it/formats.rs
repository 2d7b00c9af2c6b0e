//! The smaller layouts against the sample's known answers: t64 finds every
//! hash with its count (escaped counts included) and merges hashes that
//! agree in 64 bits; a filter never misses a hash and says "probably" for
//! about 1 in 65,536 absent ones; bit flips anywhere give an error or the
//! intact file's answer, never another.

use std::path::Path;

use spool_pwned::build::BuildOptions;
use spool_pwned::build::Source;
use spool_pwned::build::{build_as, convert};
use spool_pwned::format::IndexLayout;
use spool_pwned::sample::{sample_count, sample_password, write_sample, Order};
use spool_pwned::{Answer, AnyIndex, HashKind, Index, IndexWriter, RangeError};

const SEED: u64 = 3;

use crate::support::Rng;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("spool-formats-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Builds `lines` sample hashes (prevalence order, as older archives come)
/// as `layout` at `dir/name`.
fn build_sample(
    dir: &Path,
    name: &str,
    kind: HashKind,
    lines: u64,
    layout: IndexLayout,
) -> AnyIndex {
    let mut text = Vec::new();
    write_sample(&mut text, kind, lines, SEED, Order::Prevalence, true).unwrap();
    let out = dir.join(name);
    let opts = BuildOptions {
        kind,
        ..BuildOptions::default()
    };
    let (report, header) = build_as(
        vec![Source::from_reader("sample", std::io::Cursor::new(text))],
        &out,
        &opts,
        layout,
    )
    .unwrap();
    assert_eq!(report.records, lines);
    assert_eq!(header.layout, layout);
    assert!(
        !dir.join(format!(".{name}.full")).exists(),
        "the temporary full index is removed"
    );
    let index = AnyIndex::open(&out).unwrap();
    index.verify().unwrap();
    index
}

#[test]
fn t64_finds_every_hash_with_its_count() {
    let dir = temp_dir("t64");
    for kind in [HashKind::Sha1, HashKind::Ntlm] {
        let lines = 30_000;
        let index = build_sample(&dir, "t64", kind, lines, IndexLayout::T64);
        assert_eq!(index.layout(), IndexLayout::T64);
        assert!(
            index.header().items > 0,
            "the sample has counts over 65,535 to escape"
        );
        let mut total = 0u64;
        for i in 0..lines {
            let hash = kind.hash_password(&sample_password(SEED, i));
            let count = sample_count(SEED, i);
            total += u64::from(count);
            assert_eq!(index.check(&hash), Ok(Answer::Count(count)), "hash {i}");
        }
        assert_eq!(index.header().total_count, total);
        for i in lines..lines + 20_000 {
            let hash = kind.hash_password(&sample_password(SEED, i));
            assert_eq!(index.check(&hash), Ok(Answer::Absent), "absent hash {i}");
        }
        assert_eq!(
            index.range(0x5BAA6).unwrap_err(),
            RangeError::Unsupported(IndexLayout::T64)
        );
        // 8 bytes a record, 12 an escape, 1/64 for checksums, the table.
        let len = std::fs::metadata(dir.join("t64")).unwrap().len();
        let body = 8 * lines + 12 * index.header().items;
        assert_eq!(
            len,
            (64 + 8 * 65537 + body).div_ceil(256) * 4 + 64 + 8 * 65537 + body
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn t64_merges_hashes_that_agree_in_64_bits() {
    let dir = temp_dir("t64-merge");
    let full = dir.join("full");
    let mut w = IndexWriter::create(&full, HashKind::Sha1).unwrap();
    let a = [[0x11; 8].as_slice(), &[0x00; 12]].concat();
    let b = [[0x11; 8].as_slice(), &[0xFF; 12]].concat();
    let c = [[0x12; 8].as_slice(), &[0x00; 12]].concat();
    w.push(&a, 40_000).unwrap();
    w.push(&b, 40_000).unwrap();
    w.push(&c, u32::MAX).unwrap();
    w.finish().unwrap();
    let t64 = dir.join("t64");
    let header = convert(
        &Index::open(&full).unwrap(),
        &t64,
        IndexLayout::T64,
        1 << 20,
    )
    .unwrap();
    assert_eq!((header.records, header.items), (2, 2));
    let index = AnyIndex::open(&t64).unwrap();
    index.verify().unwrap();
    // Any hash with a's first 64 bits answers their sum (escaped).
    let other = [[0x11; 8].as_slice(), &[0x55; 12]].concat();
    assert_eq!(index.check(&other), Ok(Answer::Count(80_000)));
    assert_eq!(index.check(&c), Ok(Answer::Count(u32::MAX)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn filter_never_misses_and_rarely_says_probably() {
    let dir = temp_dir("filter");
    let lines = 200_000;
    let index = build_sample(&dir, "filter", HashKind::Sha1, lines, IndexLayout::Filter);
    for i in 0..lines {
        let hash = HashKind::Sha1.hash_password(&sample_password(SEED, i));
        assert_eq!(
            index.check(&hash),
            Ok(Answer::Present),
            "a false negative: hash {i}"
        );
    }
    // 1/65536 expected: 15.3 in a million. A Poisson count of mean 15.3
    // passes 40 with probability below 1e-7; 8-bit fingerprints (1/256)
    // would give about 3,900.
    let mut rng = Rng(7);
    let probes = 1_000_000;
    let false_positives = (0..probes)
        .filter(|_| index.check(&rng.hash()) == Ok(Answer::Present))
        .count();
    eprintln!("{false_positives} false positives in {probes} absent hashes");
    assert!(
        false_positives <= 40,
        "{false_positives} false positives in {probes}"
    );
    assert_eq!(
        index.range(0).unwrap_err(),
        RangeError::Unsupported(IndexLayout::Filter)
    );
    assert_eq!(
        Answer::Present.count(),
        None,
        "a filter has no count to give"
    );
    let bytes = std::fs::metadata(dir.join("filter")).unwrap().len() as f64 / lines as f64;
    assert!(bytes < 2.45, "{bytes} bytes per hash at 200,000 hashes");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn filter_shards_answer_like_one_filter() {
    let dir = temp_dir("filter-shards");
    let full = dir.join("full");
    let mut text = Vec::new();
    write_sample(&mut text, HashKind::Ntlm, 50_000, SEED, Order::Hash, false).unwrap();
    let opts = BuildOptions {
        kind: HashKind::Ntlm,
        ..BuildOptions::default()
    };
    spool_pwned::build::build(
        vec![Source::from_reader("s", std::io::Cursor::new(text))],
        &full,
        &opts,
    )
    .unwrap();
    let full = Index::open(&full).unwrap();
    // 40 bytes a key: 200 KB of memory makes shards of at most 5,000 keys.
    let header = convert(&full, &dir.join("sharded"), IndexLayout::Filter, 200_000).unwrap();
    assert_eq!(header.prefix_bits, 4);
    let index = AnyIndex::open(dir.join("sharded")).unwrap();
    index.verify().unwrap();
    for i in 0..50_000 {
        let hash = HashKind::Ntlm.hash_password(&sample_password(SEED, i));
        assert_eq!(index.check(&hash), Ok(Answer::Present), "hash {i}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tiny_and_empty_filters() {
    let dir = temp_dir("filter-tiny");
    for n in [0usize, 1, 2, 3, 5, 17, 100] {
        let full = dir.join("full");
        let mut w = IndexWriter::create(&full, HashKind::Sha1).unwrap();
        let mut hashes: Vec<Vec<u8>> = (0..n)
            .map(|i| HashKind::Sha1.hash_password(&format!("tiny-{i}")))
            .collect();
        hashes.sort();
        for h in &hashes {
            w.push(h, 1).unwrap();
        }
        w.finish().unwrap();
        for layout in [IndexLayout::Filter, IndexLayout::T64] {
            let out = dir.join("small");
            convert(&Index::open(&full).unwrap(), &out, layout, 1 << 20).unwrap();
            let index = AnyIndex::open(&out).unwrap();
            index.verify().unwrap();
            for h in &hashes {
                assert!(index.check(h).unwrap().found(), "{n} hashes, {layout:?}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Flips one bit at `at` of the file at `path` (in place; flipped back
/// after) and checks that every probe answers as in the intact file or
/// with an error (or the file does not open), and that verify fails.
/// Returns whether a lookup noticed.
fn flip_and_probe(path: &Path, at: usize, probes: &[(Vec<u8>, Answer)]) -> bool {
    use std::os::unix::fs::FileExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut byte = [0u8];
    file.read_exact_at(&mut byte, at as u64).unwrap();
    file.write_all_at(&[byte[0] ^ (1 << (at % 8))], at as u64)
        .unwrap();
    let mut caught = true;
    if let Ok(index) = AnyIndex::open(path) {
        caught = false;
        // The batch first, so that it meets the damage on the way; then
        // each hash alone, which must answer as the batch did.
        let hashes: Vec<&[u8]> = probes.iter().map(|(h, _)| h.as_slice()).collect();
        let batch: Vec<_> = index.check_many(&hashes).collect();
        assert_eq!(batch.len(), probes.len());
        for ((hash, _), in_batch) in probes.iter().zip(&batch) {
            assert_eq!(index.check(hash), *in_batch, "check_many and check differ");
        }
        for (hash, want) in probes {
            match index.check(hash) {
                Ok(got) => assert_eq!(got, *want, "a wrong answer with byte {at} flipped"),
                Err(_) => caught = true,
            }
        }
        assert!(
            index.verify().is_err(),
            "verify passes with byte {at} flipped"
        );
    }
    file.write_all_at(&byte, at as u64).unwrap();
    caught
}

#[test]
fn bit_flips_give_errors_not_wrong_answers() {
    let dir = temp_dir("flips");
    for layout in [IndexLayout::Filter, IndexLayout::T64] {
        let lines = 3_000;
        let index = build_sample(&dir, "good", HashKind::Sha1, lines, layout);
        let probes: Vec<(Vec<u8>, Answer)> = (0..lines + 1_000)
            .step_by(4)
            .map(|i| HashKind::Sha1.hash_password(&sample_password(SEED, i)))
            .map(|h| {
                let answer = index.check(&h).unwrap();
                (h, answer)
            })
            .collect();
        drop(index);
        let path = dir.join("good");
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        // Every byte of a filter; of a t64 index every byte but those of
        // its 512 KiB fanout table, of which every 61st.
        let table = 64..64 + 8 * 65537;
        let mut caught = 0;
        let mut flipped = 0;
        for at in (0..len)
            .filter(|at| layout == IndexLayout::Filter || !table.contains(at) || at % 61 == 0)
        {
            flipped += 1;
            caught += usize::from(flip_and_probe(&path, at, &probes));
        }
        // Flips in blocks no probe reads go unnoticed by lookups (verify
        // notices them all, above).
        eprintln!("{layout:?}: {caught} of {flipped} flips noticed by lookups");
        assert!(
            caught * 4 > flipped,
            "{layout:?}: {caught} of {flipped} flips noticed"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
