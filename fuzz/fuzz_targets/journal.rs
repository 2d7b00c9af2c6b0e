//! spool-io's journal format against damage: any bytes decode without a
//! panic, and records encoded, then cut and flipped anywhere after the
//! header, decode to a prefix of those records — never one that was not
//! written. The file reader (`Replay`) is checked against the in-memory
//! decoder on the same bytes.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_io::journal::{decode, encode, Replay, HEADER_LEN};

const KIND: [u8; 8] = *b"fuzz\0\0\0\0";

#[derive(Arbitrary, Debug)]
struct Input {
    records: Vec<Vec<u8>>,
    cut: u16,
    flips: Vec<(u16, u8)>,
    raw: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let _ = decode(&input.raw, KIND);

    let mut bytes = encode(KIND, input.records.iter().map(Vec::as_slice));
    let body = bytes.len() - HEADER_LEN;
    bytes.truncate(HEADER_LEN + usize::from(input.cut) % (body + 1));
    for &(at, mask) in &input.flips {
        if bytes.len() > HEADER_LEN {
            let at = HEADER_LEN + usize::from(at) % (bytes.len() - HEADER_LEN);
            bytes[at] ^= mask;
        }
    }
    let decoded = decode(&bytes, KIND).expect("the header is untouched");
    // A damaged record can pass its checksum only by a CRC collision;
    // with flips, only the records before the first flipped byte are sure.
    let first_flip = input
        .flips
        .iter()
        .filter(|&&(_, mask)| mask != 0)
        .map(|&(at, _)| HEADER_LEN + usize::from(at) % (bytes.len() - HEADER_LEN).max(1))
        .min()
        .unwrap_or(usize::MAX);
    let mut end = HEADER_LEN;
    for (got, want) in decoded.records.iter().zip(&input.records) {
        end += want.len() + 8;
        if end <= first_flip {
            assert_eq!(got, &want.as_slice());
        }
    }
    if first_flip == usize::MAX {
        // Only cut: exactly the records wholly before the cut come back.
        let mut end = HEADER_LEN;
        let whole = input
            .records
            .iter()
            .take_while(|r| {
                end += r.len() + 8;
                end <= bytes.len()
            })
            .count();
        assert_eq!(decoded.records.len(), whole);
    }

    let dir = std::env::temp_dir().join(format!("spool-fuzz-journal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("j");
    std::fs::write(&path, &bytes).unwrap();
    let mut replay = Replay::open(&path, KIND).unwrap();
    let mut from_file = Vec::new();
    while let Some(record) = replay.next_record().unwrap() {
        from_file.push(record.to_vec());
    }
    assert_eq!(from_file, decoded.records);
    assert_eq!(replay.valid_len() as usize, decoded.valid_len);
});
