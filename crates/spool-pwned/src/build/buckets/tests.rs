//! The buckets against a plain sort: tiny arenas that spill again and
//! again, records of every entry length, runs pushed whole.

use std::path::PathBuf;

use super::drain::drain_sorted;
use super::*;
use crate::build::hash_count::{hash_count, sort_key};
use crate::build::sort::group_by_bucket;
use crate::build::sort::tests::key_of;

fn drain(b: &Buckets) -> Vec<HashCount> {
    let mut out = Vec::new();
    drain_sorted(b, 2, <[HashCount]>::to_vec, |bucket| {
        out.extend(bucket);
        Ok(())
    })
    .unwrap();
    out
}

#[test]
fn spills_and_sorts_like_a_plain_sort() {
    let dir = std::env::temp_dir().join(format!("spool-buckets-test-{}", std::process::id()));
    // Tiny arenas force many spills; a large one none.
    for memory in [0, 8 << 10, 64 << 10, 1 << 20, 64 << 20] {
        let mut b = Buckets::new(memory, 20, dir.join(memory.to_string())).unwrap();
        let mut want = Vec::new();
        for i in 0..20_000u64 {
            let r = hash_count(&key_of(i % 15_000), i as u32);
            b.push(r).unwrap();
            want.push(r);
        }
        assert_eq!(b.len_records(), 20_000);
        if memory < 1 << 20 {
            assert!(b.spills() > 0, "memory {memory}: expected spills");
        } else {
            assert_eq!(b.spills(), 0);
        }
        let mut got = drain(&b);
        if b.spills() > 0 {
            // Giving the arena back first changes nothing in the output.
            b.release_arena().unwrap();
            assert_eq!(b.blocks(), 0);
            let again = drain(&b);
            assert_eq!(again.len(), got.len());
            got = again;
        }
        want.sort_by_key(|r| sort_key(r));
        // Equal keys keep no particular order: compare keys, then counts
        // as multisets per key.
        let keys = |v: &[HashCount]| v.iter().map(|r| sort_key(r)).collect::<Vec<_>>();
        assert_eq!(keys(&got), keys(&want), "memory {memory}");
        let mut g = got.clone();
        g.sort();
        want.sort();
        assert_eq!(g, want);
        let spill_dir = b.spill_dir.clone();
        drop(b);
        let left = std::fs::read_dir(&spill_dir).map_or(0, Iterator::count);
        assert_eq!(left, 0, "spill files have no names to leave behind");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compact_and_whole_records_spill_and_come_back_exactly() {
    let dir = std::env::temp_dir().join(format!("spool-buckets-mixed-{}", std::process::id()));
    // The smallest arena with compact records (8 bucket bits: counts up
    // to 255 fit), filled past its size by records of every kind of
    // count, so it spills with both kinds in it.
    let memory = 4096 * BLOCK_BYTES;
    for hash_bytes in [20, 16] {
        let mut b = Buckets::new(memory, hash_bytes, dir.join(hash_bytes.to_string())).unwrap();
        assert_eq!(b.bits, 8);
        let counts = [0, 1, 255, 256, 4095, 65_536, u32::MAX - 1, u32::MAX];
        let mut want = Vec::new();
        let mut batch = Vec::new();
        for i in 0..250_000u64 {
            let mut key = key_of(i % 200_000);
            key[hash_bytes..].fill(0);
            let count = if i % 5 == 0 {
                counts[i as usize / 5 % counts.len()]
            } else {
                i as u32 % 200
            };
            batch.push(hash_count(&key, count));
            if batch.len() == 1000 || i % 7 == 0 {
                let mut scratch = Vec::new();
                let (_, runs) = group_by_bucket(&mut batch, &mut scratch, b.bits);
                b.push_runs(&batch, &runs).unwrap();
                want.append(&mut batch);
            }
        }
        for r in batch.drain(..) {
            b.push(r).unwrap();
            want.push(r);
        }
        assert!(b.spills() > 0, "hash bytes {hash_bytes}");
        let mut got = drain(&b);
        assert!(got.windows(2).all(|w| sort_key(&w[0]) <= sort_key(&w[1])));
        got.sort();
        want.sort();
        assert!(got == want, "hash bytes {hash_bytes}: the same records");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runs_pushed_whole_drain_like_records_pushed_one_by_one() {
    let dir = std::env::temp_dir().join(format!("spool-buckets-runs-{}", std::process::id()));
    for memory in [0, 64 << 10, 16 << 20] {
        let bits = Buckets::bits_for(memory);
        let mut one = Buckets::new(memory, 20, dir.join(format!("one-{memory}"))).unwrap();
        let mut runs = Buckets::new(memory, 20, dir.join(format!("runs-{memory}"))).unwrap();
        let mut scratch = Vec::new();
        for batch in 0..20u64 {
            let mut records: Vec<HashCount> = (0..1000u64)
                .map(|i| hash_count(&key_of(batch * 1000 + i), i as u32))
                .collect();
            if batch % 3 == 0 {
                records.sort_by_key(|r| sort_key(r));
            }
            for r in &records {
                one.push(*r).unwrap();
            }
            let (sorted, grouped) = group_by_bucket(&mut records, &mut scratch, bits);
            assert_eq!(sorted, batch % 3 == 0);
            assert_eq!(grouped.iter().map(|r| r.end - r.start).sum::<u32>(), 1000);
            assert!(grouped.windows(2).all(|w| w[0].bucket < w[1].bucket));
            runs.push_runs(&records, &grouped).unwrap();
        }
        assert_eq!(one.len_records(), runs.len_records());
        assert_eq!(one.spills() > 0, runs.spills() > 0, "memory {memory}");
        assert_eq!(drain(&one), drain(&runs), "memory {memory}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bucket_count_follows_the_arena() {
    let b = Buckets::new(512 << 20, 20, PathBuf::from("unused")).unwrap();
    assert_eq!(b.buckets(), 4096);
    let b = Buckets::new(1 << 20, 20, PathBuf::from("unused")).unwrap();
    let sixteenth = (1 << 20) / BLOCK_BYTES / 16;
    assert!(
        b.buckets() <= sixteenth && 2 * b.buckets() > sixteenth,
        "{}",
        b.buckets()
    );
    let b = Buckets::new(0, 20, PathBuf::from("unused")).unwrap();
    assert_eq!(b.buckets(), 1);
}
