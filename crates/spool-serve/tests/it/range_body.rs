//! Range bodies against an oracle written from the official format's
//! description: for random hashes (crowded into few prefixes, with counts
//! up to `u32::MAX`), every prefix's body is the `format!`-built join of
//! `SUFFIX:COUNT` lines, and a client's parse of it gives back the hashes.

use std::collections::BTreeMap;

use proptest::prelude::*;
use spool_pwned::build::Source;
use spool_pwned::build::{build, BuildOptions};
use spool_pwned::{to_hex, HashKind, Index};

fn oracle(records: &BTreeMap<Vec<u8>, u32>, prefix: &str) -> String {
    records
        .iter()
        .map(|(hash, count)| (to_hex(hash), count))
        .filter(|(hex, _)| hex.starts_with(prefix))
        .map(|(hex, count)| format!("{}:{count}", &hex[5..]))
        .collect::<Vec<_>>()
        .join("\r\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn bodies_are_the_official_lines(
        keys in prop::collection::vec((0u8..2, 0u8..3, any::<[u8; 18]>(), any::<u32>()), 1..300),
        ntlm in any::<bool>(),
    ) {
        let kind = if ntlm { HashKind::Ntlm } else { HashKind::Sha1 };
        let mut records = BTreeMap::new();
        for (b0, b2, rest, count) in keys {
            let mut hash = vec![0xA0 | b0, 0x5B, b2 << 4 | (rest[0] & 0x0F)];
            hash.extend_from_slice(&rest[1..kind.byte_len() - 2]);
            // Counts as the index stores them: duplicates summed, saturating.
            let c = records.entry(hash).or_insert(0u32);
            *c = c.saturating_add(count.max(1));
        }
        let text: String = records.iter().map(|(h, c)| format!("{}:{c}\n", to_hex(h))).collect();
        let path = std::env::temp_dir().join(format!("spool-serve-range-body-{}-{ntlm}", std::process::id()));
        let opts = BuildOptions { kind, ..BuildOptions::default() };
        build(vec![Source::from_reader("t", std::io::Cursor::new(text.into_bytes()))], &path, &opts).unwrap();
        let index = Index::open(&path).unwrap();
        let mut prefixes: Vec<u32> = records.keys().map(|h| u32::from_be_bytes([0, h[0], h[1], h[2]]) >> 4).collect();
        prefixes.extend([0xA05B3, 0xA15B2, 0x00000, 0xFFFFF]);
        for p in prefixes {
            let mut body = Vec::new();
            spool_serve::range::encode(index.range(p).unwrap(), &mut body);
            let prefix = format!("{p:05X}");
            let want = oracle(&records, &prefix);
            prop_assert_eq!(std::str::from_utf8(&body).unwrap(), want.as_str());
            prop_assert!(body.len() <= spool_serve::range::encoded_len_bound(&index.range(p).unwrap()));
            // What a client does with it: split lines, rebuild hashes.
            let parsed: Vec<(String, u32)> = want
                .split("\r\n")
                .filter(|l| !l.is_empty())
                .map(|l| {
                    let (suffix, count) = l.split_once(':').unwrap();
                    (format!("{prefix}{suffix}"), count.parse().unwrap())
                })
                .collect();
            let expected: Vec<(String, u32)> = records
                .iter()
                .map(|(h, &c)| (to_hex(h), c))
                .filter(|(hex, _)| hex.starts_with(&prefix))
                .collect();
            prop_assert_eq!(parsed, expected);
        }
        drop(index);
        std::fs::remove_file(&path).unwrap();
    }
}
