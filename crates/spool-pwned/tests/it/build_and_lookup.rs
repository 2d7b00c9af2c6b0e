//! Build then look up: every hash found with its (summed) count, absent
//! ones not; malformed lines reported with file, line and offset; sorted,
//! unsorted and range-directory inputs give byte-identical indexes.
//! Damaged indexes are `damaged_index.rs`'s.

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use spool_pwned::build::{build, BuildError, BuildOptions};
use spool_pwned::build::{sources, Source};
use spool_pwned::sample::{write_sample, write_sample_ranges, Order};
use spool_pwned::{to_hex, HashKind, Index, LineErrorKind};

use crate::support::{build_text, Dir};

fn write_gzip(path: &Path, bytes: &[u8]) {
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::fast(),
    );
    std::io::Write::write_all(&mut enc, bytes).unwrap();
    enc.finish().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn every_hash_found_with_summed_count(
        keys in prop::collection::vec(any::<[u8; 20]>(), 1..300),
        dup_every in 2usize..7,
        // Counts that fit the arena's compact records and counts that do
        // not (see compact.rs), summing past u32::MAX for some hashes.
        counts in prop::collection::vec(prop_oneof![1u32..1000, 4000u32..70_000, (u32::MAX - 3)..=u32::MAX], 300),
        crlf_mask in any::<u64>(),
        lower_mask in any::<u64>(),
        memory in prop_oneof![Just(1usize << 30), Just(24 * 1024 * 2), Just(1)],
    ) {
        let dir = Dir::new("prop");
        let mut want: BTreeMap<[u8; 20], u64> = BTreeMap::new();
        let mut text = String::new();
        for (i, key) in keys.iter().enumerate() {
            let copies = if i % dup_every == 0 { 2 } else { 1 };
            for c in 0..copies {
                let count = counts[(i + c) % counts.len()];
                *want.entry(*key).or_default() += u64::from(count);
                let hex = to_hex(key);
                let hex = if lower_mask >> (i % 64) & 1 == 1 { hex.to_lowercase() } else { hex };
                let eol = if crlf_mask >> (i % 64) & 1 == 1 { "\r\n" } else { "\n" };
                text += &format!("{hex}:{count}{eol}");
            }
        }
        let out = dir.0.join("index");
        let report = build_text(&text, &out, memory, false).unwrap();
        prop_assert_eq!(report.records, want.len() as u64);
        prop_assert_eq!(report.duplicates, report.lines - want.len() as u64);
        let index = Index::open(&out).unwrap();
        index.verify().unwrap();
        for (key, count) in &want {
            prop_assert_eq!(index.lookup(key).unwrap(), Some((*count).min(u64::from(u32::MAX)) as u32));
        }
        let total: u64 = want.values().map(|c| (*c).min(u64::from(u32::MAX))).sum();
        prop_assert_eq!(index.header().total_count, total);
        for key in &keys {
            let mut absent = *key;
            absent[19] ^= 0x5a;
            if !want.contains_key(&absent) {
                prop_assert_eq!(index.lookup(&absent).unwrap(), None);
            }
        }
        // The output lock's file is kept (see `output_lock.rs`).
        let leftovers: Vec<_> = std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name())
            .filter(|n| n != ".index.spool-lock").collect();
        prop_assert_eq!(leftovers.len(), 1, "only the index remains: {:?}", leftovers);
    }
}

#[test]
fn malformed_lines_name_file_line_and_offset() {
    let dir = Dir::new("bad");
    let good = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3\n";
    let cases = [
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD:3\n",
            LineErrorKind::WrongLength {
                expected: 40,
                found: 39,
            },
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FDX:3\n",
            LineErrorKind::NotHex,
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD9\n",
            LineErrorKind::MissingCount,
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD9:\n",
            LineErrorKind::BadCount,
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD9:12a\n",
            LineErrorKind::BadCount,
        ),
        (
            "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD9:99999999999\n",
            LineErrorKind::BadCount,
        ),
    ];
    for (bad, kind) in cases {
        let text = format!("{good}{bad}{good}");
        let out = dir.0.join("index");
        let _ = std::fs::remove_file(&out);
        match build_text(&text, &out, 1 << 20, false) {
            Err(BuildError::Malformed {
                source_name,
                line,
                offset,
                kind: got,
            }) => {
                assert_eq!(
                    (source_name.as_str(), line, offset, got),
                    ("input.txt", 2, good.len() as u64, kind)
                );
            }
            other => panic!("expected a malformed-line error, got {other:?}"),
        }
        assert!(!out.exists(), "no index after a failed build");
        let report = build_text(&text, &out, 1 << 20, true).unwrap();
        assert_eq!(
            (report.invalid, report.records, report.duplicates),
            (1, 1, 1)
        );
    }
    let err = build_text("zz:1\n", &dir.0.join("i"), 1 << 20, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "input.txt:1: byte offset 0: hash has 2 characters, expected 40 (use --skip-invalid to skip such lines)"
    );
}

/// A plain file is read through maps, a window of about 1 MiB at a time,
/// each numbering its lines from its own first: the line reported must
/// still count from the file's first line, and equal what reading the
/// same bytes as a stream reports.
#[test]
fn a_malformed_line_deep_in_a_mapped_file_has_its_line_number() {
    let dir = Dir::new("deep");
    let good = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3\r\n";
    let bad_line = 70_001; // past the first two windows
    let mut text = good.repeat(bad_line - 1);
    text.push_str("\r\n"); // an empty line counts as a line too
    text.push_str("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FDX:3\r\n");
    text.push_str(&good.repeat(1000));
    let path = dir.0.join("deep.txt");
    std::fs::write(&path, &text).unwrap();
    let out = dir.0.join("index");
    let want = (
        path.display().to_string(),
        bad_line as u64 + 1,
        (good.len() * (bad_line - 1) + 2) as u64,
        LineErrorKind::NotHex,
    );
    let mapped = build(
        sources(std::slice::from_ref(&path)).unwrap(),
        &out,
        &BuildOptions::default(),
    );
    let bytes = std::io::Cursor::new(text.into_bytes());
    let streamed = build(
        vec![Source::from_reader(path.display().to_string(), bytes)],
        &out,
        &BuildOptions::default(),
    );
    for result in [mapped, streamed] {
        match result {
            Err(BuildError::Malformed {
                source_name,
                line,
                offset,
                kind,
            }) => assert_eq!((source_name, line, offset, kind), want),
            other => panic!("expected a malformed-line error, got {other:?}"),
        }
    }
    assert!(!out.exists());
}

#[test]
fn sorted_unsorted_and_range_inputs_give_identical_indexes() {
    let dir = Dir::new("same");
    let mut files = Vec::new();
    for (name, order, crlf) in [
        ("hash.txt", Order::Hash, false),
        ("prev.txt", Order::Prevalence, true),
    ] {
        let path = dir.0.join(name);
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        write_sample(&mut f, HashKind::Sha1, 5000, 9, order, crlf).unwrap();
        drop(f);
        files.push(path);
    }
    let ranges = dir.0.join("ranges");
    write_sample_ranges(&ranges, HashKind::Sha1, 5000, 9, true).unwrap();
    files.push(ranges);
    let mut bytes = Vec::new();
    for (i, input) in files.iter().enumerate() {
        for memory in [1usize << 30, 24 * 700] {
            let out = dir.0.join(format!("index-{i}-{memory}"));
            let report = build(
                sources(std::slice::from_ref(input)).unwrap(),
                &out,
                &BuildOptions {
                    memory,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(report.records, 5000);
            if i == 0 {
                assert_eq!(
                    report.spills, 0,
                    "hash-ordered input streams without spilling"
                );
            }
            if i == 1 && memory < 1 << 20 {
                assert!(report.spills > 1, "a tiny budget spills: {report:?}");
            }
            bytes.push(std::fs::read(&out).unwrap());
        }
    }
    assert!(bytes.windows(2).all(|w| w[0] == w[1]), "indexes differ");
}

#[test]
fn compressed_inputs_and_ntlm() {
    let dir = Dir::new("zip");
    let mut plain = Vec::new();
    write_sample(&mut plain, HashKind::Ntlm, 300, 1, Order::Prevalence, false).unwrap();
    let gz = dir.0.join("in.gz");
    write_gzip(&gz, &plain);
    let zst = dir.0.join("in.zst");
    std::fs::write(&zst, zstd::encode_all(&plain[..], 3).unwrap()).unwrap();
    for input in [gz, zst] {
        let out = dir.0.join("ntlm");
        let opts = BuildOptions {
            kind: HashKind::Ntlm,
            ..Default::default()
        };
        build(sources(&[input]).unwrap(), &out, &opts).unwrap();
        let index = Index::open(&out).unwrap();
        assert_eq!(index.kind(), HashKind::Ntlm);
        let h = HashKind::Ntlm.hash_password(&spool_pwned::sample::sample_password(1, 17));
        assert_eq!(
            index.lookup(&h).unwrap(),
            Some(spool_pwned::sample::sample_count(1, 17))
        );
        let absent = HashKind::Ntlm.hash_password(&spool_pwned::sample::sample_password(1, 300));
        assert_eq!(index.lookup(&absent).unwrap(), None);
    }
}

#[test]
fn large_prefix_buckets_use_the_guess_and_stay_exact() {
    // 20,000 hashes sharing their first two bytes: one fanout bucket, so
    // lookups go through the interpolation guess and its fallbacks.
    let dir = Dir::new("bucket");
    let mut rng = 0x1234_5678_9abc_def0u64;
    let mut text = String::new();
    let mut keys = Vec::new();
    for i in 0..20_000u32 {
        let mut key = [0u8; 20];
        key[0] = 0xAB;
        key[1] = 0xCD;
        for b in key[2..].iter_mut() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            *b = rng as u8;
        }
        // Skew some keys to the ends of the range.
        if i % 10 == 0 {
            key[2] = if i % 20 == 0 { 0x00 } else { 0xFF };
        }
        text += &format!("{}:{}\n", to_hex(&key), i + 1);
        keys.push((key, i + 1));
    }
    let out = dir.0.join("index");
    build_text(&text, &out, 1 << 30, false).unwrap();
    let index = Index::open(&out).unwrap();
    for (key, count) in &keys {
        assert_eq!(index.lookup(key).unwrap(), Some(*count));
        let mut absent = *key;
        absent[19] ^= 0xA5;
        absent[18] ^= 0x3C;
        assert!(
            keys.iter().all(|(k, _)| *k != absent) == (index.lookup(&absent).unwrap().is_none())
        );
    }
}

/// The shared progress counters: bytes as stored on disk (compressed),
/// every line, and the phase the build ended in.
#[test]
fn progress_counts_the_bytes_on_disk() {
    use spool_io::progress::{Phase, Progress};
    use std::sync::atomic::Ordering;
    let dir = Dir::new("progress");
    let mut plain = Vec::new();
    write_sample(&mut plain, HashKind::Sha1, 3000, 5, Order::Prevalence, true).unwrap();
    let gz = dir.0.join("in.gz");
    write_gzip(&gz, &plain);
    let progress = std::sync::Arc::new(Progress::default());
    let opts = BuildOptions {
        progress: Some(progress.clone()),
        ..Default::default()
    };
    let report = build(
        sources(std::slice::from_ref(&gz)).unwrap(),
        &dir.0.join("index"),
        &opts,
    )
    .unwrap();
    let on_disk = std::fs::metadata(&gz).unwrap().len();
    assert!(
        on_disk < plain.len() as u64,
        "compressed: raw and decoded sizes differ"
    );
    assert_eq!(progress.raw_bytes.load(Ordering::Relaxed), on_disk);
    assert_eq!(progress.records.load(Ordering::Relaxed), report.lines);
    assert_eq!(report.lines, 3000);
    assert_eq!(progress.phase(), Phase::Finishing);
}
