//! Damaged index files: a valid index (built once from known records) with
//! arbitrary bytes flipped and an arbitrary truncation. Opening must reject
//! it or accept it without panicking, and an accepted file must answer
//! every lookup and range query either exactly as the intact index would
//! or with an error — never a wrong count (the block checksums and the
//! checks of `Index::lookup`), and verify without panicking.
#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_pwned::format::RECORDS_OFFSET;
use spool_pwned::{HashKind, IndexWriter};

#[derive(Arbitrary, Debug)]
struct Damage {
    /// Offset, XOR mask, and whether the offset is taken within the end of
    /// the table and the records (where lookups read) or the whole file.
    flips: Vec<(u32, u8, bool)>,
    truncate: Option<u32>,
    probe: [u8; 20],
}

struct Valid {
    bytes: Vec<u8>,
    oracle: BTreeMap<Vec<u8>, u32>,
}

fn valid_index() -> &'static Valid {
    static INDEX: OnceLock<Valid> = OnceLock::new();
    INDEX.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("spool-fuzz-valid-{}", std::process::id()));
        let mut w = IndexWriter::create(&path, HashKind::Sha1).unwrap();
        let oracle: BTreeMap<Vec<u8>, u32> = (0..300u32)
            .map(|i| (HashKind::Sha1.hash_password(&format!("p{i}")), i + 1))
            .collect();
        for (k, count) in &oracle {
            w.push(k, *count).unwrap();
        }
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        Valid { bytes, oracle }
    })
}

fuzz_target!(|damage: Damage| {
    let valid = valid_index();
    let mut bytes = valid.bytes.clone();
    let near = RECORDS_OFFSET - 4096;
    for &(at, xor, in_records) in &damage.flips {
        let at = if in_records {
            near + at as usize % (bytes.len() - near)
        } else {
            at as usize % bytes.len()
        };
        bytes[at] ^= xor;
    }
    if let Some(len) = damage.truncate {
        bytes.truncate(len as usize % (bytes.len() + 1));
    }
    let path = std::env::temp_dir().join(format!("spool-fuzz-index-{}", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    if let Ok(index) = spool_pwned::Index::open(&path) {
        for (key, count) in valid.oracle.iter().take(40) {
            if let Ok(got) = index.lookup(key) {
                assert_eq!(got, Some(*count), "a wrong count from a damaged index");
            }
        }
        let want = valid.oracle.get(&damage.probe[..]).copied();
        if let Ok(got) = index.lookup(&damage.probe) {
            assert_eq!(got, want, "a wrong answer from a damaged index");
        }
        // A range query answers the intact records or an error.
        let prefix =
            u32::from_be_bytes([0, damage.probe[0], damage.probe[1], damage.probe[2]]) >> 4;
        if let Ok(records) = index.range(prefix) {
            let got: Vec<(Vec<u8>, u32)> = records
                .iter()
                .map(|r| (r.key().to_vec(), r.count()))
                .collect();
            let want: Vec<(Vec<u8>, u32)> = valid
                .oracle
                .iter()
                .filter(|(k, _)| u32::from_be_bytes([0, k[0], k[1], k[2]]) >> 4 == prefix)
                .map(|(k, c)| (k[2..].to_vec(), *c))
                .collect();
            assert_eq!(got, want, "a wrong range from a damaged index");
        }
        let _ = index.verify();
    }
    let _ = std::fs::remove_file(&path);
});
