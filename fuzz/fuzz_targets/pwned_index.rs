//! Damaged index files: a valid index (built once) with arbitrary bytes
//! flipped and an arbitrary truncation. Opening must reject it or accept it
//! without panicking, and an accepted file must answer lookups and range
//! queries and verify without panicking (the header checksum guards the
//! header; open checks the size; each lookup or range query range-checks
//! the two table entries it uses, and records are only read through
//! checked slices).
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_pwned::{HashKind, IndexWriter};

#[derive(Arbitrary, Debug)]
struct Damage {
    flips: Vec<(u32, u8)>,
    truncate: Option<u32>,
    probe: [u8; 20],
}

fn valid_index() -> &'static Vec<u8> {
    static INDEX: OnceLock<Vec<u8>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("spool-fuzz-valid-{}", std::process::id()));
        let mut w = IndexWriter::create(&path, HashKind::Sha1).unwrap();
        let mut keys: Vec<Vec<u8>> = (0..300).map(|i| HashKind::Sha1.hash_password(&format!("p{i}"))).collect();
        keys.sort();
        for (i, k) in keys.iter().enumerate() {
            w.push(k, i as u32 + 1).unwrap();
        }
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        bytes
    })
}

fuzz_target!(|damage: Damage| {
    let mut bytes = valid_index().clone();
    for (at, xor) in &damage.flips {
        let at = *at as usize % bytes.len();
        bytes[at] ^= xor;
    }
    if let Some(len) = damage.truncate {
        bytes.truncate(len as usize % (bytes.len() + 1));
    }
    let path = std::env::temp_dir().join(format!("spool-fuzz-index-{}", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    if let Ok(index) = spool_pwned::Index::open(&path) {
        let _ = index.lookup(&damage.probe);
        let _ = index.lookup(&HashKind::Sha1.hash_password("p7"));
        // A range of a damaged table: wrong records at worst, no panic.
        let prefix = u32::from_be_bytes([0, damage.probe[0], damage.probe[1], damage.probe[2]]) >> 4;
        let records = index.range(prefix);
        assert_eq!(records.iter().count(), records.len());
        let _ = index.verify();
    }
    let _ = std::fs::remove_file(&path);
});
