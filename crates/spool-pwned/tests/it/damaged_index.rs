//! Damaged indexes: truncated files, flipped header bits, an old version
//! and foreign bytes are refused with an error naming the damage; a
//! damaged fanout table never makes a lookup read outside the file; and
//! under bit flips every lookup answers the intact index's count or an
//! error, never a wrong count — flips aimed at the record a lookup wants
//! (the case where an index without block checksums answered wrong 1,096
//! times in 1,099), and flips anywhere in the file.

use spool_pwned::format::RECORDS_OFFSET;
use spool_pwned::sample::{sample_count, sample_password, write_sample, Order};
use spool_pwned::{HashKind, Index};

const LINES: u64 = 20_000;
const SEED: u64 = 9;

use crate::support::{build_text, Dir, Rng};

fn sample_index(dir: &std::path::Path) -> (Vec<u8>, Vec<(Vec<u8>, u32)>) {
    let mut text = Vec::new();
    write_sample(&mut text, HashKind::Sha1, LINES, SEED, Order::Hash, false).unwrap();
    let input = dir.join("in.txt");
    std::fs::write(&input, &text).unwrap();
    let out = dir.join("good");
    let sources = spool_pwned::build::sources(&[input]).unwrap();
    spool_pwned::build::build(sources, &out, &Default::default()).unwrap();
    let hashes = (0..LINES)
        .map(|i| {
            let h = HashKind::Sha1.hash_password(&sample_password(SEED, i));
            (h, sample_count(SEED, i))
        })
        .collect();
    (std::fs::read(&out).unwrap(), hashes)
}

/// Where record `hash` sits in `bytes`, found the slow way.
fn record_offset(bytes: &[u8], hash: &[u8]) -> usize {
    let records = &bytes[RECORDS_OFFSET..];
    let p = usize::from(u16::from_be_bytes([hash[0], hash[1]]));
    let entry = |p: usize| {
        let at = spool_pwned::format::HEADER_LEN + 8 * p;
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize
    };
    let i = (entry(p)..entry(p + 1))
        .find(|&i| records[i * 22..i * 22 + 18] == hash[2..])
        .expect("present");
    RECORDS_OFFSET + i * 22
}

#[test]
fn flipped_bits_give_errors_never_wrong_counts() {
    let dir = std::env::temp_dir().join(format!("spool-damaged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (good, hashes) = sample_index(&dir);
    let path = dir.join("bad");
    let mut rng = Rng(0x5eed);
    let (mut aimed, mut aimed_refused) = (0u64, 0u64);
    let (mut anywhere, mut anywhere_refused) = (0u64, 0u64);
    for trial in 0..1_100u64 {
        let mut bad = good.clone();
        let (h, count) = &hashes[rng.below(LINES) as usize];
        // Half the trials flip a bit of the record the lookup wants, half
        // a bit anywhere.
        let at = if trial % 2 == 0 {
            record_offset(&bad, h) + rng.below(22) as usize
        } else {
            rng.below(bad.len() as u64) as usize
        };
        bad[at] ^= 1 << rng.below(8);
        std::fs::write(&path, &bad).unwrap();
        let Ok(index) = Index::open(&path) else {
            continue; // a damaged header: refused at open
        };
        let got = index.lookup(h);
        if let Ok(got) = got {
            assert_eq!(
                got,
                Some(*count),
                "trial {trial}: flip at {at} answered wrong"
            );
        }
        if trial % 2 == 0 {
            aimed += 1;
            aimed_refused += u64::from(got.is_err());
        } else {
            anywhere += 1;
            anywhere_refused += u64::from(got.is_err());
        }
        // Every other hash still answers right or refuses.
        for (h, count) in hashes.iter().step_by(97) {
            if let Ok(got) = index.lookup(h) {
                assert_eq!(got, Some(*count), "trial {trial}: flip at {at}");
            }
        }
    }
    // A flip in the record a lookup reads is always noticed.
    assert_eq!(aimed_refused, aimed, "aimed flips not noticed");
    eprintln!(
        "aimed flips: {aimed_refused} of {aimed} lookups refused, 0 wrong; \
         flips anywhere: {anywhere_refused} of {anywhere} refused, 0 wrong"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn truncated_or_bit_flipped_indexes_are_rejected() {
    let dir = Dir::new("corrupt");
    let mut text = Vec::new();
    write_sample(&mut text, HashKind::Sha1, 200, 2, Order::Hash, false).unwrap();
    let out = dir.0.join("index");
    build_text(std::str::from_utf8(&text).unwrap(), &out, 1 << 20, false).unwrap();
    let good = std::fs::read(&out).unwrap();
    let check = |bytes: &[u8]| -> String {
        let p = dir.0.join("bad");
        std::fs::write(&p, bytes).unwrap();
        match Index::open(&p) {
            Err(e) => e.to_string(),
            Ok(index) => index
                .verify()
                .map(|_| "accepted".to_string())
                .unwrap_or_else(|e| e.to_string()),
        }
    };
    assert!(check(&good[..good.len() - 1]).contains("truncated or corrupt"));
    assert!(check(&good[..10]).contains("shorter than"));
    let mut flipped = good.clone();
    flipped[3] ^= 1;
    assert!(check(&flipped).contains("bad magic"));
    let mut flipped = good.clone();
    flipped[20] ^= 1;
    assert!(check(&flipped).contains("header checksum"));
    let mut flipped = good.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 0x10;
    assert!(check(&flipped).contains("fails its checksum"));
    // A version 1 index (no block checksums) is refused, saying to rebuild.
    let mut old = good.clone();
    old[8..12].copy_from_slice(&1u32.to_le_bytes());
    let crc = crc32fast::hash(&old[..60]);
    old[60..64].copy_from_slice(&crc.to_le_bytes());
    let refused = check(&old);
    assert!(
        refused.contains("version 1") && refused.contains("rebuild"),
        "{refused}"
    );
    assert_eq!(check(&good), "accepted");
    assert!(
        check(b"hello, this is not an index at all, just some text bytes....................")
            .contains("bad magic")
    );
}

#[test]
fn a_damaged_fanout_table_never_reads_outside_the_file() {
    let dir = Dir::new("fanout");
    let mut text = Vec::new();
    write_sample(&mut text, HashKind::Sha1, 3000, 4, Order::Hash, false).unwrap();
    let out = dir.0.join("index");
    build_text(std::str::from_utf8(&text).unwrap(), &out, 1 << 20, false).unwrap();
    let good = std::fs::read(&out).unwrap();
    let hashes: Vec<Vec<u8>> = (0..3000)
        .map(|i| HashKind::Sha1.hash_password(&spool_pwned::sample::sample_password(4, i)))
        .collect();
    // Entries set to huge values, to zero, and made to decrease: `open`
    // reads only the header, so each opens; no lookup may panic, read past
    // the records or answer wrong (the block checksums turn the damage
    // into errors), and `verify` names the damage.
    let table = spool_pwned::format::HEADER_LEN;
    for (at, value) in [
        (1000usize, u64::MAX),
        (30_000, 0),
        (65_536, 1),
        (512, 2_999),
    ] {
        let mut bad = good.clone();
        bad[table + 8 * at..table + 8 * at + 8].copy_from_slice(&value.to_le_bytes());
        let p = dir.0.join("bad");
        std::fs::write(&p, &bad).unwrap();
        let index = Index::open(&p).unwrap();
        for (i, h) in hashes.iter().enumerate() {
            if let Ok(count) = index.lookup(h) {
                assert_eq!(
                    count,
                    Some(spool_pwned::sample::sample_count(4, i as u64)),
                    "entry {at}"
                );
            }
        }
        let err = index.verify().unwrap_err().to_string();
        assert!(err.contains("fails its checksum"), "{err}");
    }
}
