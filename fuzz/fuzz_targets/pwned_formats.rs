//! The smaller index layouts (t64, filter) from hostile bytes, two ways:
//!
//! - damaged: a valid file (built once from known hashes, with escaped
//!   counts) with bytes flipped and an arbitrary truncation. Every lookup
//!   must answer as the intact file does, or fail — never another answer.
//! - forged: arbitrary header fields, table and body, sealed with correct
//!   header, data and block checksums, so that nothing stops them before
//!   the layout's own checks (shard entries, escapes, fanout). Opening,
//!   lookups, range queries and verify must not panic or read out of
//!   bounds; any answer is allowed.
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_pwned::build::convert;
use spool_pwned::format::{Header, IndexLayout, HEADER_LEN};
use spool_pwned::{Answer, AnyIndex, HashKind, Index, IndexWriter};

#[derive(Arbitrary, Debug)]
enum Case {
    Damaged {
        filter: bool,
        /// Offset, XOR mask, and whether the offset is taken past the
        /// t64 fanout table (where records, escapes and checksums are).
        flips: Vec<(u32, u8, bool)>,
        truncate: Option<u32>,
    },
    Forged {
        filter: bool,
        prefix_bits: u8,
        records: u16,
        items: u16,
        block_shift: u8,
        body: Vec<u8>,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    case: Case,
    probes: Vec<[u8; 20]>,
}

struct Valid {
    files: [Vec<u8>; 2],
    /// Hashes and the intact files' answers, per layout.
    answers: [Vec<(Vec<u8>, Answer)>; 2],
}

const LAYOUTS: [IndexLayout; 2] = [IndexLayout::T64, IndexLayout::Filter];

fn valid() -> &'static Valid {
    static VALID: OnceLock<Valid> = OnceLock::new();
    VALID.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("spool-fuzz-formats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let full = dir.join("full");
        let mut w = IndexWriter::create(&full, HashKind::Sha1).unwrap();
        let mut hashes: Vec<Vec<u8>> = (0..300)
            .map(|i| HashKind::Sha1.hash_password(&format!("p{i}")))
            .collect();
        hashes.sort();
        for (i, h) in hashes.iter().enumerate() {
            w.push(
                h,
                if i % 7 == 0 {
                    70_000 + i as u32
                } else {
                    1 + i as u32
                },
            )
            .unwrap();
        }
        w.finish().unwrap();
        let index = Index::open(&full).unwrap();
        let mut files = [Vec::new(), Vec::new()];
        let mut answers = [Vec::new(), Vec::new()];
        for (n, layout) in LAYOUTS.into_iter().enumerate() {
            let path = dir.join(layout.name());
            convert(&index, &path, layout, 1 << 20).unwrap();
            let small = AnyIndex::open(&path).unwrap();
            let absent = (0..100).map(|i| HashKind::Sha1.hash_password(&format!("absent{i}")));
            answers[n] = hashes
                .iter()
                .step_by(5)
                .cloned()
                .chain(absent)
                .map(|h| {
                    let answer = small.check(&h).unwrap();
                    (h, answer)
                })
                .collect();
            files[n] = std::fs::read(&path).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
        Valid { files, answers }
    })
}

/// Header, table and body sealed with every checksum a reader checks.
fn forge(
    layout: IndexLayout,
    prefix_bits: u8,
    records: u16,
    items: u16,
    block_shift: u8,
    body: &[u8],
) -> Vec<u8> {
    let mut header = Header {
        kind: HashKind::Sha1,
        records: u64::from(records),
        total_count: 0,
        data_crc: 0,
        block_shift: 6 + block_shift % 7,
        layout,
        prefix_bits: if layout == IndexLayout::Filter {
            prefix_bits % 7
        } else {
            16
        },
        items: u64::from(items),
    };
    let checked = header.checked_len().unwrap() as usize;
    let mut bytes = vec![0u8; checked];
    for (i, b) in body.iter().enumerate() {
        // The body's bytes land at the start of the table and the end of
        // the file (where a filter's shard table and a t64 index's records
        // and escapes are), repeating if short.
        let at = if i % 2 == 0 {
            HEADER_LEN + i / 2
        } else {
            checked - 1 - i / 2
        };
        if at >= HEADER_LEN && at < checked {
            bytes[at] = *b;
        }
    }
    header.data_crc = crc32fast::hash(&bytes[HEADER_LEN..]);
    bytes[..HEADER_LEN].copy_from_slice(&header.encode());
    let block = 1usize << header.block_shift;
    let sums: Vec<u8> = bytes
        .chunks(block)
        .flat_map(|c| crc32c::crc32c(c).to_le_bytes())
        .collect();
    bytes.extend_from_slice(&sums);
    bytes
}

fn probe(bytes: &[u8], probes: &[[u8; 20]], answers: Option<&[(Vec<u8>, Answer)]>) {
    let path = std::env::temp_dir().join(format!("spool-fuzz-format-{}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    if let Ok(index) = AnyIndex::open(&path) {
        // A batch answers each hash as a lookup of it alone would.
        let batch: Vec<_> = index.check_many(probes).collect();
        for (p, in_batch) in probes.iter().zip(batch) {
            assert_eq!(index.check(p), in_batch, "check_many and check differ");
        }
        for (hash, want) in answers.unwrap_or_default() {
            if let Ok(got) = index.check(hash) {
                assert_eq!(got, *want, "a wrong answer from a damaged index");
            }
        }
        for p in probes {
            let _ = index.check(p);
            let _ = index.range(u32::from_be_bytes([0, p[0], p[1], p[2]]) >> 4);
        }
        let _ = index.verify();
    }
    let _ = std::fs::remove_file(&path);
}

fuzz_target!(|input: Input| {
    match input.case {
        Case::Damaged {
            filter,
            flips,
            truncate,
        } => {
            let n = usize::from(filter);
            let valid = valid();
            let mut bytes = valid.files[n].clone();
            let past_table = HEADER_LEN + 8 * 65537;
            for &(at, xor, late) in &flips {
                let at = if late && !filter {
                    past_table + at as usize % (bytes.len() - past_table)
                } else {
                    at as usize % bytes.len()
                };
                bytes[at] ^= xor;
            }
            if let Some(len) = truncate {
                bytes.truncate(len as usize % (bytes.len() + 1));
            }
            probe(&bytes, &input.probes, Some(&valid.answers[n]));
        }
        Case::Forged {
            filter,
            prefix_bits,
            records,
            items,
            block_shift,
            body,
        } => {
            let layout = LAYOUTS[usize::from(filter)];
            let bytes = forge(layout, prefix_bits, records, items, block_shift, &body);
            probe(&bytes, &input.probes, None);
        }
    }
});
