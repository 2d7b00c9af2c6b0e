//! The journal's resume against its previous index, and its refusal of
//! other settings.

use std::io;

use spool_io::journal::HEADER_LEN;

use super::*;

/// Bytes of a journal holding only its settings.
const STARTED: usize = HEADER_LEN + 8 + SETTINGS_RECORD_LEN;

fn shape(previous: Option<PreviousId>) -> Shape {
    Shape {
        kind: HashKind::Sha1,
        kept: 20,
        first: 0,
        end: 4,
        previous,
    }
}

fn kept(prefix: u32, hashes: u32) -> Frame {
    Frame {
        prefix,
        hashes,
        origin: Origin::Kept,
        etag: b"\"e\"".to_vec(),
        records: Vec::new(),
    }
}

#[test]
fn kept_frames_resume_against_their_previous_index_only() {
    let dir = std::env::temp_dir().join(format!("spool-journal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(".out.download");
    let first = PreviousId {
        records: 10,
        total: 20,
        data_crc: 30,
    };
    let one = Some(first);
    let (mut journal, resumed) = RangeJournal::open(&path, shape(one)).unwrap();
    assert_eq!(resumed.next, 0);
    journal.append(&kept(0, 5)).unwrap();
    let fetched = Frame {
        prefix: 1,
        hashes: 1,
        origin: Origin::Fetched,
        etag: Vec::new(),
        records: vec![7; 22],
    };
    journal.append(&fetched).unwrap();
    journal.sync().unwrap();
    drop(journal);
    // The same previous index: both frames are kept (a kept frame is
    // its head and ETag alone).
    let (journal, resumed) = RangeJournal::open(&path, shape(one)).unwrap();
    assert_eq!((resumed.next, resumed.hashes), (2, 6));
    drop(journal);
    let len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(len, (STARTED + 2 * (8 + FRAME_HEAD) + 3 + 22) as u64);
    // Another previous index: started over.
    let other = Some(PreviousId {
        data_crc: 31,
        ..first
    });
    let (journal, resumed) = RangeJournal::open(&path, shape(other)).unwrap();
    assert_eq!((resumed.next, resumed.hashes), (0, 0));
    assert!(resumed.started_over);
    drop(journal);
    // Other settings: refused, the journal left as it is.
    let settings = Shape {
        kept: 8,
        ..shape(other)
    };
    let err = RangeJournal::open(&path, settings).err().unwrap();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), STARTED as u64);
    std::fs::remove_dir_all(&dir).unwrap();
}
