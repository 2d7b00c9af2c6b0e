//! The journal against what a crash can do to its file: a cut at any
//! byte, any bit flipped, a process killed while appending. In every case
//! a replay gives back a prefix of what was appended, never a record that
//! was not, and appending goes on after it.

use std::io;
use std::path::Path;

use proptest::prelude::*;

use super::*;

const KIND: Kind = *b"test\0\0\0\0";

fn write_journal(path: &Path, records: &[Vec<u8>]) {
    let mut journal = Journal::create(path, KIND).unwrap();
    for record in records {
        journal.append(record).unwrap();
    }
    journal.sync().unwrap();
}

/// Every record a replay of `path` gives, and where they end.
fn replay(path: &Path) -> io::Result<(Vec<Vec<u8>>, u64)> {
    let mut replay = Replay::open(path, KIND)?;
    let mut records = Vec::new();
    while let Some(record) = replay.next_record()? {
        records.push(record.to_vec());
    }
    Ok((records, replay.valid_len()))
}

fn records() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..20)
}

proptest! {
    #[test]
    fn a_cut_anywhere_replays_the_records_before_it_then_appends_after_them(
        records in records(),
        cut in any::<prop::sample::Index>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        write_journal(&path, &records);
        let whole = std::fs::read(&path).unwrap();
        let cut = HEADER_LEN + cut.index(whole.len() - HEADER_LEN + 1);
        std::fs::write(&path, &whole[..cut]).unwrap();

        // The records wholly before the cut, and no others.
        let mut ends = vec![HEADER_LEN];
        for r in &records {
            ends.push(ends.last().unwrap() + r.len() + 8);
        }
        let whole_before = ends.iter().filter(|&&end| end <= cut).count() - 1;
        let (got, valid_len) = replay(&path).unwrap();
        prop_assert_eq!(&got[..], &records[..whole_before]);
        prop_assert_eq!(valid_len as usize, ends[whole_before]);
        let in_memory = decode(&whole[..cut], KIND).unwrap();
        prop_assert_eq!(in_memory.records.len(), whole_before);
        prop_assert_eq!(in_memory.valid_len, ends[whole_before]);

        let mut journal = Journal::resume(&path, KIND, valid_len).unwrap();
        journal.append(b"after").unwrap();
        journal.append_parts(&[b"in ", b"", b"parts"]).unwrap();
        journal.flush().unwrap();
        let (got, _) = replay(&path).unwrap();
        prop_assert_eq!(got.len(), whole_before + 2);
        prop_assert_eq!(&got[whole_before], b"after");
        prop_assert_eq!(&got[whole_before + 1], b"in parts");
    }

    #[test]
    fn a_flipped_bit_stops_the_replay_at_or_before_its_record(
        records in records(),
        at in any::<prop::sample::Index>(),
        bit in 0..8u8,
    ) {
        prop_assume!(!records.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        write_journal(&path, &records);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = HEADER_LEN + at.index(bytes.len() - HEADER_LEN);
        bytes[at] ^= 1 << bit;
        std::fs::write(&path, &bytes).unwrap();

        // The frame the flipped byte is in.
        let mut end = HEADER_LEN;
        let mut damaged = 0;
        for (i, r) in records.iter().enumerate() {
            end += r.len() + 8;
            if at < end {
                damaged = i;
                break;
            }
        }
        let (got, _) = replay(&path).unwrap();
        // CRC-32C catches every single-bit error: the records before the
        // damaged one come back, it and those after do not.
        prop_assert_eq!(&got[..], &records[..damaged]);
        prop_assert_eq!(decode(&bytes, KIND).unwrap().records.len(), damaged);
    }
}

#[test]
fn a_damaged_or_foreign_header_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    write_journal(&path, &[b"one".to_vec()]);
    let whole = std::fs::read(&path).unwrap();

    let other = Replay::open(&path, *b"other\0\0\0").unwrap_err();
    assert_eq!(other.kind(), io::ErrorKind::InvalidData);
    assert!(
        other
            .to_string()
            .contains("of another kind (test, not other)"),
        "{other}"
    );
    assert!(
        other.to_string().contains(&path.display().to_string()),
        "{other}"
    );

    for at in 0..HEADER_LEN {
        let mut bytes = whole.clone();
        bytes[at] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let e = Replay::open(&path, KIND).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "byte {at}: {e}");
        assert!(decode(&bytes, KIND).is_err());
        assert!(Journal::resume(&path, KIND, HEADER_LEN as u64).is_err());
    }
    std::fs::write(&path, &whole[..HEADER_LEN - 1]).unwrap();
    assert!(Replay::open(&path, KIND).is_err());
    let missing = Replay::open(&dir.path().join("none"), KIND).unwrap_err();
    assert_eq!(missing.kind(), io::ErrorKind::NotFound);
}

#[test]
fn a_length_over_the_limit_ends_the_replay_without_allocating_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    write_journal(&path, &[b"one".to_vec()]);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    bytes.extend_from_slice(&[0; 64]);
    std::fs::write(&path, &bytes).unwrap();
    let (got, valid_len) = replay(&path).unwrap();
    assert_eq!(got, [b"one".to_vec()]);
    assert_eq!(valid_len as usize, HEADER_LEN + 3 + 8);
}

/// The record a killed writer appends `i`-th: its length and bytes both
/// follow from `i`, so a replay can check each one it gets.
fn kill_record(i: u32) -> Vec<u8> {
    let mut payload = i.to_le_bytes().to_vec();
    payload.resize(4 + (i as usize * 7919) % 5000, (i % 251) as u8);
    payload
}

/// Run by `a_writer_killed_while_appending_leaves_a_prefix`: appends
/// [`kill_record`]s to `SPOOL_JOURNAL_KILL_PATH`, flushing after each,
/// until it is killed.
#[test]
#[ignore = "the child process of a_writer_killed_while_appending_leaves_a_prefix"]
fn kill_child_appends_until_killed() {
    let Some(path) = std::env::var_os("SPOOL_JOURNAL_KILL_PATH") else {
        return;
    };
    let mut journal = Journal::create(Path::new(&path), KIND).unwrap();
    for i in 0.. {
        journal.append(&kill_record(i)).unwrap();
        if i % 3 == 0 {
            journal.flush().unwrap();
        }
    }
}

#[test]
#[cfg(unix)]
fn a_writer_killed_while_appending_leaves_a_prefix() {
    let dir = tempfile::tempdir().unwrap();
    for trial in 0..5u64 {
        let path = dir.path().join(format!("j{trial}"));
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "journal::tests::kill_child_appends_until_killed",
                "--ignored",
                "--nocapture",
            ])
            .env("SPOOL_JOURNAL_KILL_PATH", &path)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Kill it at a different size each trial, mid-write as likely as not.
        let want = (1 + trial) * 300_000;
        while std::fs::metadata(&path).map_or(0, |m| m.len()) < want {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let (got, valid_len) = replay(&path).unwrap();
        assert!(!got.is_empty(), "trial {trial}");
        for (i, record) in got.iter().enumerate() {
            assert_eq!(record, &kill_record(i as u32), "trial {trial}, record {i}");
        }
        let mut journal = Journal::resume(&path, KIND, valid_len).unwrap();
        journal.append(b"after").unwrap();
        journal.sync().unwrap();
        let (again, _) = replay(&path).unwrap();
        assert_eq!(again.len(), got.len() + 1);
    }
}
