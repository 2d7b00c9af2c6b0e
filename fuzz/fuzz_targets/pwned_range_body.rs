//! A download's untrusted input: range API bodies, checked by
//! `parse_range_body` before anything of them reaches an index.
//!
//! * Arbitrary bytes never panic, and whatever is accepted keeps the
//!   contract: every hash handed out starts with the prefix, hashes
//!   strictly increase, counts are above 0, and as many are handed out as
//!   reported.
//! * A body made from a model — lines of chosen suffixes and counts, CRLF
//!   or LF, a separator after the last or not — is accepted exactly when
//!   the model's lines are well formed and its hashes (count above 0)
//!   strictly increase, and then hands out the model's hashes and counts.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_pwned::range_body::{parse_range_body, prefix_hex, RANGES};
use spool_pwned::HashKind;

#[derive(Arbitrary, Debug)]
struct Model {
    ntlm: bool,
    prefix: u32,
    crlf: bool,
    trailing: bool,
    /// Suffix bytes (the hex suffix is derived from them) and counts.
    lines: Vec<([u8; 18], u32)>,
}

#[derive(Arbitrary, Debug)]
enum Input {
    Raw {
        ntlm: bool,
        prefix: u32,
        body: Vec<u8>,
    },
    Model(Model),
}

fn kind(ntlm: bool) -> HashKind {
    if ntlm {
        HashKind::Ntlm
    } else {
        HashKind::Sha1
    }
}

/// Checks the contract of an accepted body; returns the hashes handed out.
fn checked(kind: HashKind, prefix: u32, body: &[u8]) -> Option<Vec<(Vec<u8>, u32)>> {
    let mut got: Vec<(Vec<u8>, u32)> = Vec::new();
    let result = parse_range_body(kind, prefix, body, |hash, count| {
        got.push((hash.to_vec(), count))
    });
    let seen = result.ok()?;
    assert_eq!(seen.hashes, got.len() as u64);
    for (i, (hash, count)) in got.iter().enumerate() {
        assert_eq!(hash.len(), kind.byte_len());
        let head = u32::from_be_bytes([0, hash[0], hash[1], hash[2]]) >> 4;
        assert_eq!(head, prefix);
        assert!(*count > 0);
        if i > 0 {
            assert!(got[i - 1].0 < *hash);
        }
    }
    Some(got)
}

fuzz_target!(|input: Input| match input {
    Input::Raw { ntlm, prefix, body } => {
        checked(kind(ntlm), prefix % RANGES, &body);
    }
    Input::Model(m) => {
        let kind = kind(m.ntlm);
        let prefix = m.prefix % RANGES;
        let digits = kind.hex_len() - 5;
        let mut body = Vec::new();
        let mut expected = Vec::new();
        let mut valid = true;
        for (i, (suffix, count)) in m.lines.iter().enumerate() {
            let mut hex = String::from_utf8(prefix_hex(prefix).to_vec()).unwrap();
            for b in suffix {
                hex.push_str(&format!("{b:02X}"));
            }
            let full = &hex[..kind.hex_len()];
            if i > 0 {
                body.extend_from_slice(if m.crlf { b"\r\n" } else { b"\n" });
            }
            body.extend_from_slice(full[5..5 + digits].as_bytes());
            body.extend_from_slice(format!(":{count}").as_bytes());
            if *count > 0 {
                let mut hash = vec![0u8; kind.byte_len()];
                for (j, byte) in hash.iter_mut().enumerate() {
                    *byte = u8::from_str_radix(&full[2 * j..2 * j + 2], 16).unwrap();
                }
                if expected
                    .last()
                    .is_some_and(|(last, _): &(Vec<u8>, u32)| *last >= hash)
                {
                    valid = false;
                }
                expected.push((hash, *count));
            }
        }
        if m.trailing && !m.lines.is_empty() {
            body.extend_from_slice(if m.crlf { b"\r\n" } else { b"\n" });
        }
        let got = checked(kind, prefix, &body);
        if valid {
            assert_eq!(got, Some(expected));
        } else {
            assert_eq!(got, None);
        }
    }
});
