//! `spool pwned update` against a `spool pwned serve` of a changed index:
//! the ranges the server answers `304` for are copied from the previous
//! index, the others fetched, and the result is byte for byte a fresh
//! download of the new state (index and ETags) — whichever ranges changed,
//! and however the changes move the records of the ranges after them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::support::download::*;
use crate::support::Dir;

#[test]
fn update_fetches_only_the_changed_ranges_and_equals_a_fresh_download() {
    let dir = Dir::new("download-update");
    let text = sample(&dir, "old", 200_000, 11, false);
    let old_index = dir.0.join("old-served.idx");
    build(&text, &old_index, "full", false);
    let old = dir.0.join("old.idx");
    {
        let served = Served::start(&old_index, false);
        ok(download(&served.base, &old, false, false, &[]));
    }
    // The new state: one count raised in 40 ranges of the subset.
    let all = std::fs::read_to_string(&text).unwrap();
    let mut changed = std::collections::BTreeSet::new();
    let new_text: String = all
        .lines()
        .map(|l| {
            let prefix = u32::from_str_radix(&l[..5], 16).unwrap();
            let (hash, count) = l.split_once(':').unwrap();
            if prefix < SUBSET_END && prefix % 100 == 7 && changed.insert(prefix) {
                format!("{hash}:{}\n", count.parse::<u64>().unwrap() + 1)
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let new_path = dir.0.join("new.txt");
    std::fs::write(&new_path, new_text).unwrap();
    let new_index = dir.0.join("new-served.idx");
    build(&new_path, &new_index, "full", false);
    let served = Served::start(&new_index, false);
    let updated = dir.0.join("updated.idx");
    let stderr = ok(update(&served.base, SUBSET, &old, &updated, &[]));
    let unchanged = u64::from(SUBSET_END) - changed.len() as u64;
    assert!(
        stderr.contains(&format!(
            "{unchanged} ranges unchanged (304), {} changed",
            changed.len()
        )),
        "{stderr}"
    );
    let fresh = dir.0.join("fresh.idx");
    ok(download(&served.base, &fresh, false, false, &[]));
    same_bytes(&updated, &fresh);
    same_bytes(
        &dir.0.join("updated.idx.etags"),
        &dir.0.join("fresh.idx.etags"),
    );
    // Updating in place: nothing changed since, so every range is a 304.
    let stderr = ok(update(&served.base, SUBSET, &updated, &updated, &[]));
    assert!(
        stderr.contains(&format!("{SUBSET_END} ranges unchanged (304), 0 changed")),
        "{stderr}"
    );
    same_bytes(&updated, &fresh);
}

/// The ranges of the test below: 256 of them, about 20 hashes each.
const RANGES: u32 = 0x100;

/// Whether range `p` changes: runs of unchanged ranges at the start, in
/// the middle and at the end, every other range changed between them, and
/// a run of changed ranges.
fn changes(p: u32) -> bool {
    matches!(p, 0x10..0x40 if p.is_multiple_of(2)) || (0xA0..0xB0).contains(&p)
}

/// Text of `hashes` (hash → count) in hash order.
fn text_of(hashes: &BTreeMap<String, u32>) -> String {
    let mut text = String::new();
    for (hash, count) in hashes {
        writeln!(text, "{hash}:{count}").unwrap();
    }
    text
}

#[test]
fn update_copies_unchanged_runs_wherever_they_are_and_equals_a_fresh_download() {
    let dir = Dir::new("download-update-runs");
    // Old state: about 20 hashes in each range, but range 21 (unchanged)
    // and A7 (changed) are empty.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut old = BTreeMap::new();
    for p in (0..RANGES).filter(|&p| p != 0x21 && p != 0xA7) {
        for _ in 0..15 + next() % 10 {
            let suffix = format!("{:016X}{:016X}{:03X}", next(), next(), next() % 4096);
            old.insert(format!("{p:05X}{suffix}"), (next() % 1000) as u32 + 1);
        }
    }
    // New state: each changed range gains a hash, loses its first, or has
    // a count raised (so the records after it move, both ways, or stay);
    // A5 loses all its hashes and A7 gets some.
    let mut new = old.clone();
    let mut changed = 0;
    for p in (0..RANGES).filter(|&p| changes(p)) {
        changed += 1;
        let first = format!("{p:05X}");
        let mine: Vec<String> = old
            .keys()
            .filter(|h| h.starts_with(&first))
            .cloned()
            .collect();
        match (p, p % 3) {
            (0xA5, _) => new.retain(|h, _| !h.starts_with(&first)),
            (0xA7, _) | (_, 0) => {
                let suffix = format!("{:016X}{:016X}{:03X}", next(), next(), next() % 4096);
                new.insert(format!("{first}{suffix}"), 7);
            }
            (_, 1) => {
                new.remove(&mine[0]);
            }
            _ => *new.get_mut(&mine[0]).unwrap() += 1,
        }
    }
    let index_of = |name: &str, hashes: &BTreeMap<String, u32>| {
        let text = dir.0.join(format!("{name}.txt"));
        std::fs::write(&text, text_of(hashes)).unwrap();
        let index = dir.0.join(format!("{name}.idx"));
        build(&text, &index, "full", false);
        index
    };
    let (old_served, new_served) = (index_of("old-served", &old), index_of("new-served", &new));
    let prefixes = format!("00000-{:05X}", RANGES - 1);
    let extra = ["--prefixes", prefixes.as_str()];
    let previous = dir.0.join("previous.idx");
    {
        let served = Served::start(&old_served, false);
        ok(download(&served.base, &previous, false, true, &extra));
    }
    let served = Served::start(&new_served, false);
    let updated = dir.0.join("updated.idx");
    let stderr = ok(update(&served.base, &prefixes, &previous, &updated, &[]));
    assert!(
        stderr.contains(&format!(
            "{} ranges unchanged (304), {changed} changed",
            RANGES - changed
        )),
        "{stderr}"
    );
    let fresh = dir.0.join("fresh.idx");
    ok(download(&served.base, &fresh, false, true, &extra));
    same_bytes(&updated, &fresh);
    same_bytes(&updated, &new_served);
    same_bytes(
        &dir.0.join("updated.idx.etags"),
        &dir.0.join("fresh.idx.etags"),
    );
}

#[test]
fn a_damaged_or_unfit_input_is_refused_before_any_request() {
    use crate::support::upstream::{Behaviour, Upstream};
    use std::sync::atomic::Ordering;
    let dir = Dir::new("update-refused");
    let (text, index) = served_sample(&dir, 50_000, 31, false);
    let server = Upstream::http1(&index, Behaviour::default());
    let new = dir.0.join("new.idx");
    // One byte of OLD flipped: found before the first request.
    let old = dir.0.join("old.idx");
    let mut bytes = std::fs::read(&index).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&old, bytes).unwrap();
    let out = update(&server.url, SUBSET, &old, &new, &[])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("old.idx") && stderr.contains("damaged"),
        "{stderr}"
    );
    // A t64 OLD: the message speaks of the file and what to do, not of
    // the library's types.
    let t64 = dir.0.join("old.t64");
    build(&text, &t64, "t64", false);
    let out = update(&server.url, SUBSET, &t64, &new, &[])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("old.t64") && stderr.contains("only a full one"),
        "{stderr}"
    );
    assert!(!stderr.contains("AnyIndex"), "{stderr}");
    assert_eq!(server.counts.requests.load(Ordering::Relaxed), 0);
    assert!(!new.exists());
}

#[test]
fn a_journal_against_a_replaced_input_is_started_over_and_says_so() {
    use crate::support::upstream::{Behaviour, Upstream};
    let dir = Dir::new("update-started-over");
    let (text, index) = served_sample(&dir, 50_000, 32, false);
    let old = dir.0.join("old.idx");
    {
        let served = Served::start(&index, false);
        ok(download(&served.base, &old, false, false, &[]));
    }
    // A run that stops at range 00100 leaves its journal.
    let stopping = Upstream::http1(
        &index,
        Behaviour {
            redirect: Some((0x100, "http://127.0.0.1:1/elsewhere".into())),
            ..Behaviour::default()
        },
    );
    let new = dir.0.join("new.idx");
    assert!(!update(&stopping.url, SUBSET, &old, &new, &[])
        .output()
        .unwrap()
        .status
        .success());
    assert!(dir.0.join(".new.idx.download").exists());
    // OLD replaced (another build), then the same command.
    let other = dir.0.join("other.txt");
    std::fs::write(
        &other,
        std::fs::read_to_string(&text)
            .unwrap()
            .replacen('\n', "0\n", 1),
    )
    .unwrap();
    build(&other, &old, "full", false);
    std::fs::remove_file(dir.0.join("old.idx.etags")).unwrap();
    let served = Served::start(&index, false);
    let stderr = ok(update(&served.base, SUBSET, &old, &new, &[]));
    assert!(stderr.contains("started over"), "{stderr}");
}
