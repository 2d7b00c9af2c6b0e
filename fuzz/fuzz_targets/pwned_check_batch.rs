//! The query side's untrusted input, in-process: `check --batch` lines and
//! `spool-okon`'s arguments.
//!
//! * A batch (hashes of either case with blanks around them, blank lines,
//!   arbitrary lines, LF or CRLF) goes through `check_batch` with a map as
//!   the index. The output must be exactly the model's: each line that
//!   trims to a whole hex hash answered `HASH<TAB>COUNT` in upper case (0
//!   when absent), blank lines skipped, and the first other line stopping
//!   the batch with its number (a line that is not UTF-8 stopping it as a
//!   read error); whether anything was found must agree.
//! * An okon command line of flags and arbitrary words never panics and
//!   parses to what the documented contract says, modelled here pair by
//!   pair.
#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_pwned::lookup::check::{check_batch, BatchError};
// `spool-okon`'s argument parser is a module of that binary; compiled here
// on its own (it needs only `std`), so the fuzz build does not compile the
// command-line crate's HTTP, TLS and S3 dependencies.
#[path = "../../crates/spool-cli/src/bin/spool-okon/args.rs"]
#[allow(dead_code)]
mod okon_args;
use okon_args::{parse_okon_args, OkonArgError, OkonCommand};
use spool_pwned::{to_hex, Answer, HashKind};

#[derive(Arbitrary, Debug)]
enum BatchLine {
    /// The hash of password `n` (present in the index when `n` is even),
    /// with `pad` blanks on either side.
    Hash {
        n: u8,
        lower: bool,
        pad: u8,
    },
    Blank(u8),
    Raw(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
enum Arg {
    Path,
    Hash,
    Help,
    H,
    Word(String),
}

#[derive(Arbitrary, Debug)]
struct Input {
    ntlm: bool,
    crlf: bool,
    lines: Vec<BatchLine>,
    args: Vec<Arg>,
}

const BLANKS: [char; 3] = [' ', '\t', '\u{3000}'];

fn blanks(pad: u8) -> String {
    (0..pad % 4)
        .map(|i| BLANKS[usize::from(i + pad / 4) % 3])
        .collect()
}

fn batch(input: &Input) {
    let kind = if input.ntlm {
        HashKind::Ntlm
    } else {
        HashKind::Sha1
    };
    let hash = |n: u8| kind.hash_password(&format!("p{n}"));
    static INDEXES: [OnceLock<BTreeMap<Vec<u8>, u32>>; 2] = [OnceLock::new(), OnceLock::new()];
    let index = INDEXES[usize::from(input.ntlm)].get_or_init(|| {
        (0..=255u8)
            .step_by(2)
            .map(|n| (hash(n), u32::from(n) + 1))
            .collect()
    });
    let mut text = Vec::new();
    for line in &input.lines {
        match line {
            BatchLine::Hash { n, lower, pad } => {
                let mut hex = to_hex(&hash(*n));
                if *lower {
                    hex.make_ascii_lowercase();
                }
                text.extend(format!("{}{hex}{}", blanks(*pad), blanks(pad / 3)).bytes());
            }
            BatchLine::Blank(pad) => text.extend(blanks(*pad).bytes()),
            BatchLine::Raw(bytes) => text.extend(bytes.iter().filter(|&&b| b != b'\n')),
        }
        text.extend_from_slice(if input.crlf { b"\r\n" } else { b"\n" });
    }

    // The model: what each line should give, up to the first that stops.
    let mut want = String::new();
    let mut want_any = false;
    let mut stop = None;
    for (n, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        let Ok(line) = std::str::from_utf8(line) else {
            stop = Some(None);
            break;
        };
        let hex = line.trim();
        if hex.is_empty() {
            continue;
        }
        let digits = hex.len() == kind.hex_len() && hex.bytes().all(|b| b.is_ascii_hexdigit());
        if !digits {
            stop = Some(Some(n as u64 + 1));
            break;
        }
        let key: Vec<u8> = (0..kind.byte_len())
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let count = index.get(&key).copied();
        want_any |= count.is_some();
        want += &format!("{}\t{}\n", hex.to_ascii_uppercase(), count.unwrap_or(0));
    }

    let mut out = Vec::new();
    let lookup = |keys: &[Vec<u8>]| {
        keys.iter()
            .map(|key| {
                assert_eq!(key.len(), kind.byte_len());
                Ok::<_, ()>(
                    index
                        .get(key)
                        .copied()
                        .map_or(Answer::Absent, Answer::Count),
                )
            })
            .collect()
    };
    let got = check_batch(&text[..], kind, lookup, &mut out);
    assert_eq!(String::from_utf8(out).unwrap(), want);
    match (stop, got) {
        (None, Ok(any)) => assert_eq!(any, want_any),
        (Some(None), Err(BatchError::Io(e))) => {
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        }
        (Some(Some(line)), Err(BatchError::NotAHash { line: got, fault })) => {
            assert_eq!(got, line);
            assert_eq!(fault.kind, kind);
            assert!(fault
                .to_string()
                .contains(&format!("{}-digit", kind.hex_len())));
        }
        (stop, got) => panic!("expected stop {stop:?}, got {got:?}"),
    }
}

fn okon(input: &Input) {
    let args: Vec<String> = input
        .args
        .iter()
        .map(|a| match a {
            Arg::Path => "--path".to_string(),
            Arg::Hash => "--hash".to_string(),
            Arg::Help => "--help".to_string(),
            Arg::H => "-h".to_string(),
            Arg::Word(w) => w.clone(),
        })
        .collect();
    // The contract, pair by pair: each pair's first word is an option.
    let mut path = None;
    let mut hash = None;
    let mut want = None;
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned();
        match pair[0].as_str() {
            "--path" => path = value,
            "--hash" => hash = value,
            "--help" | "-h" => {
                want = Some(Ok(OkonCommand::Help));
                break;
            }
            other => {
                want = Some(Err(OkonArgError::Unknown(other.to_string())));
                break;
            }
        }
    }
    let want = want.unwrap_or(match (path, hash) {
        (Some(path), Some(hash)) => Ok(OkonCommand::Check { path, hash }),
        _ => Err(OkonArgError::Usage),
    });
    assert_eq!(parse_okon_args(&args), want, "{args:?}");
}

fuzz_target!(|input: Input| {
    batch(&input);
    okon(&input);
});
