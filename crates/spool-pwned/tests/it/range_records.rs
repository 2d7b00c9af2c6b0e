//! `Index::range` against an oracle: the records of a 20-bit prefix are
//! exactly the built hashes that start with it, in hash order, with their
//! summed counts — including prefixes at the edges of a 16-bit bucket
//! (digit 5 = 0 and F), empty prefixes, and NTLM.

use std::collections::BTreeMap;

use proptest::prelude::*;
use spool_pwned::build::Source;
use spool_pwned::build::{build, BuildOptions};
use spool_pwned::{to_hex, HashKind, Index};

fn build_index(kind: HashKind, records: &BTreeMap<Vec<u8>, u32>, tag: &str) -> (Index, TempFile) {
    let text: String = records
        .iter()
        .map(|(k, c)| format!("{}:{c}\n", to_hex(k)))
        .collect();
    let path = std::env::temp_dir().join(format!("spool-range-{tag}-{}", std::process::id()));
    let opts = BuildOptions {
        kind,
        ..BuildOptions::default()
    };
    let source = Source::from_reader("t", std::io::Cursor::new(text.into_bytes()));
    build(vec![source], &path, &opts).unwrap();
    (Index::open(&path).unwrap(), TempFile(path))
}

struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn prefix20(hash: &[u8]) -> u32 {
    u32::from_be_bytes([0, hash[0], hash[1], hash[2]]) >> 4
}

fn check_every_prefix_near(index: &Index, records: &BTreeMap<Vec<u8>, u32>) {
    let mut prefixes: Vec<u32> = records.keys().map(|k| prefix20(k)).collect();
    // Neighbours (often empty, and across 16-bit bucket edges) and extremes.
    let near: Vec<u32> = prefixes
        .iter()
        .flat_map(|&p| [p.saturating_sub(1), (p + 1).min(0xFFFFF), p & !0xF, p | 0xF])
        .collect();
    prefixes.extend(near);
    prefixes.extend([0, 0xFFFFF]);
    for p in prefixes {
        let want: Vec<(&[u8], u32)> = records
            .iter()
            .filter(|(k, _)| prefix20(k) == p)
            .map(|(k, &c)| (&k[2..], c))
            .collect();
        let got: Vec<(&[u8], u32)> = index
            .range(p)
            .unwrap()
            .iter()
            .map(|r| (r.key(), r.count()))
            .collect();
        assert_eq!(got, want, "prefix {p:05X}");
        assert_eq!(index.range(p).unwrap().len(), want.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Hashes crowded into few 16-bit buckets, so that most buckets hold
    /// several 20-bit ranges side by side.
    #[test]
    fn range_is_the_prefix_filter_of_the_built_hashes(
        keys in prop::collection::vec((0u8..3, any::<u8>(), any::<[u8; 18]>(), 1u32..1000), 1..400),
        ntlm in any::<bool>(),
        skew in any::<bool>(),
    ) {
        let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
        // Skewed: hash byte 2 from a few values, so that digit 5 is far
        // from uniform and the searches start from poor guesses.
        let keys: Vec<_> = keys
            .into_iter()
            .map(|(b0, b2, rest, c)| (b0, if skew { [0x00, 0x01, 0x3F, 0xF0][usize::from(b2 % 4)] } else { b2 }, rest, c))
            .collect();
        let mut records = BTreeMap::new();
        for (b0, b2, rest, count) in keys {
            let mut hash = vec![b0, 0x5B];
            hash.push(b2);
            hash.extend_from_slice(&rest[..kind.byte_len() - 3]);
            *records.entry(hash).or_insert(0u32) += count;
        }
        let (index, _file) = build_index(kind, &records, if ntlm { "ntlm" } else { "sha1" });
        check_every_prefix_near(&index, &records);
    }
}

#[test]
#[should_panic(expected = "a range prefix has 20 bits")]
fn a_prefix_wider_than_20_bits_is_a_caller_bug() {
    let records = BTreeMap::from([(vec![0u8; 20], 1)]);
    let (index, _file) = build_index(HashKind::Sha1, &records, "wide");
    let _ = index.range(1 << 20);
}
