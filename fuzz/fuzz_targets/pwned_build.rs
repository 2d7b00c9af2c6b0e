//! The whole build pipeline on small inputs, against a model: runs of
//! hashes (with repeats, in any order, upper or lower case, LF or CRLF)
//! and at most one arbitrary line are written either as one file of whole
//! `HASH:COUNT` lines or as a range directory (the downloader's layout:
//! `XXXXX.txt` files of `SUFFIX:COUNT` lines), then built with no record
//! memory to speak of, so that unsorted input spills after a few hundred
//! records. Then
//!
//! * the build fails exactly when the model finds a malformed line (unless
//!   malformed lines are skipped), naming that file, line, byte offset and
//!   fault, and leaves nothing at the output;
//! * otherwise every hash of the model answers its count (the counts of a
//!   repeated hash added), a hash absent from the model answers absent, the
//!   report's counts agree, and the index verifies.
//!
//! Single lines are the parser's business (`pwned_parse`); the model uses
//! the same line parser, so this target is about what lies around it:
//! reading ahead, line numbers and offsets across files, the sink's switch
//! from streaming to buckets, spills and the merge.
#![no_main]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_pwned::build::{build, BuildError, BuildOptions};
use spool_pwned::text::hibp::{parse_line, LineErrorKind};
use spool_pwned::{to_hex, HashKind, Index};

/// At most this many records per run keep one execution in milliseconds
/// while still spilling (the smallest arena holds 340 records).
const MAX_RECORDS: usize = 1500;

#[derive(Arbitrary, Debug)]
struct Spec {
    ranges: bool,
    ntlm: bool,
    skip_invalid: bool,
    two_threads: bool,
    /// The 20-bit range prefixes the hashes fall under (few, so that a
    /// range directory has few files).
    prefixes: [u32; 3],
    runs: Vec<Run>,
    /// An arbitrary line and where it goes (a line number, wrapped).
    odd: Option<(u16, Vec<u8>)>,
    /// Whether the last line of each file lacks its newline.
    no_final_newline: bool,
}

/// `len` consecutive hashes from `start`, drawn from a space of `space`
/// distinct hashes (so runs repeat each other), all with `count`.
#[derive(Arbitrary, Debug)]
struct Run {
    start: u16,
    len: u8,
    space: u8,
    count: u32,
    lower: bool,
    crlf: bool,
}

/// One line as written: which file it goes to (its range prefix; 0 in a
/// single file) and its bytes without the newline.
struct Line {
    file: u32,
    text: Vec<u8>,
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The hash numbered `n` under range prefix `prefix`.
fn hash_of(prefix: u32, n: u64, len: usize) -> Vec<u8> {
    let mut key = vec![0u8; len];
    for (i, chunk) in key.chunks_mut(8).enumerate() {
        let word = splitmix(n.wrapping_mul(4).wrapping_add(i as u64)).to_be_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    let prefix = prefix & 0xF_FFFF;
    key[0] = (prefix >> 12) as u8;
    key[1] = (prefix >> 4) as u8;
    key[2] = (key[2] & 0x0F) | ((prefix & 0xF) as u8) << 4;
    key
}

fn lines_of(spec: &Spec, kind: HashKind) -> Vec<Line> {
    let mut lines = Vec::new();
    for run in &spec.runs {
        for i in 0..u64::from(run.len) {
            if lines.len() == MAX_RECORDS {
                break;
            }
            let n = (u64::from(run.start) + i) % (u64::from(run.space) + 1);
            let prefix = spec.prefixes[(n % 3) as usize] & 0xF_FFFF;
            let hex = to_hex(&hash_of(prefix, n, kind.byte_len()));
            let hex = if spec.ranges { &hex[5..] } else { &hex[..] };
            let mut text = format!("{hex}:{}", run.count).into_bytes();
            if run.lower {
                text.make_ascii_lowercase();
            }
            if run.crlf {
                text.push(b'\r');
            }
            let file = if spec.ranges { prefix } else { 0 };
            lines.push(Line { file, text });
        }
    }
    if let Some((at, text)) = &spec.odd {
        // One line, so a newline in it ends it.
        let text = text
            .split(|&b| b == b'\n')
            .next()
            .unwrap_or_default()
            .to_vec();
        let at = usize::from(*at) % (lines.len() + 1);
        let file = lines
            .get(at)
            .map_or(spec.prefixes[0] & 0xF_FFFF, |l| l.file);
        let file = if spec.ranges { file } else { 0 };
        lines.insert(at, Line { file, text });
    }
    lines
}

/// A scratch directory per process, emptied before every run.
fn scratch() -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    base.join(format!("spool-fuzz-pwned-build-{}", std::process::id()))
}

/// What the model expects of the build.
#[derive(Debug, Default)]
struct Model {
    counts: BTreeMap<Vec<u8>, u32>,
    lines: u64,
    invalid: u64,
    /// The first malformed line: file, line number, byte offset, fault.
    error: Option<(PathBuf, u64, u64, LineErrorKind)>,
}

/// Writes the files (in the order the build reads them) and models them.
fn write_and_model(spec: &Spec, lines: &[Line], dir: &Path, kind: HashKind) -> Model {
    let mut files: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    for line in lines {
        let file = files.entry(line.file).or_default();
        file.extend_from_slice(&line.text);
        file.push(b'\n');
    }
    if files.is_empty() {
        // Even no lines are an input: an empty file (in a range directory,
        // an empty range file).
        let file = if spec.ranges {
            spec.prefixes[0] & 0xF_FFFF
        } else {
            0
        };
        files.insert(file, Vec::new());
    }
    let mut model = Model::default();
    for (prefix, mut bytes) in files {
        if spec.no_final_newline {
            bytes.pop();
        }
        let (path, hex_prefix) = if spec.ranges {
            let name = format!("{prefix:05X}");
            (dir.join(format!("{name}.txt")), name.into_bytes())
        } else {
            (dir.join("pwned.txt"), Vec::new())
        };
        std::fs::write(&path, &bytes).unwrap();
        if model.error.is_some() {
            continue;
        }
        let mut offset = 0u64;
        let mut pieces: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        if bytes.last().is_none_or(|&b| b == b'\n') {
            pieces.pop(); // what follows the last newline is no line
        }
        for (i, piece) in pieces.into_iter().enumerate() {
            let at = offset;
            offset += piece.len() as u64 + 1;
            let text = piece.strip_suffix(b"\r").unwrap_or(piece);
            if text.is_empty() {
                continue;
            }
            model.lines += 1;
            let mut key = [0u8; 20];
            let key = &mut key[..kind.byte_len()];
            match parse_line(text, &hex_prefix, key) {
                Ok(count) => {
                    let sum = model.counts.entry(key.to_vec()).or_insert(0);
                    *sum = sum.saturating_add(count);
                }
                Err(_) if spec.skip_invalid => model.invalid += 1,
                Err(fault) => {
                    model.error = Some((path.clone(), i as u64 + 1, at, fault));
                    break;
                }
            }
        }
    }
    model
}

fuzz_target!(|spec: Spec| {
    let kind = if spec.ntlm {
        HashKind::Ntlm
    } else {
        HashKind::Sha1
    };
    let base = scratch();
    let _ = std::fs::remove_dir_all(&base);
    let input = base.join("input");
    let spill = base.join("spill");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(&spill).unwrap();

    let lines = lines_of(&spec, kind);
    let model = write_and_model(&spec, &lines, &input, kind);
    let inputs = if spec.ranges {
        vec![input.clone()]
    } else {
        vec![input.join("pwned.txt")]
    };
    let output = base.join("index");
    let opts = BuildOptions {
        kind,
        // Below what the build keeps for itself: the smallest record arena
        // (two blocks), so unsorted input spills every few hundred records.
        memory: 0,
        skip_invalid: spec.skip_invalid,
        temp_dir: Some(spill.clone()),
        threads: if spec.two_threads { 2 } else { 1 },
        progress: None,
    };
    let sources = spool_pwned::build::sources(&inputs).unwrap();
    let result = build(sources, &output, &opts);

    match (&model.error, result) {
        (Some((path, line, offset, fault)), Err(e)) => {
            let message = e.to_string();
            match e {
                BuildError::Malformed {
                    source_name,
                    line: got_line,
                    offset: got_offset,
                    kind: got_fault,
                } => {
                    assert_eq!(
                        (source_name.as_str(), got_line, got_offset, got_fault),
                        (path.display().to_string().as_str(), *line, *offset, *fault)
                    );
                    assert!(message.starts_with(&format!("{}:{line}:", path.display())));
                }
                other => panic!("a malformed line reported as {other:?}"),
            }
            assert!(!output.exists(), "a failed build left its output");
        }
        (Some(error), Ok(report)) => panic!("malformed line {error:?} accepted: {report:?}"),
        (None, Err(e)) => panic!("well-formed input rejected: {e}"),
        (None, Ok(report)) => {
            let records = model.counts.len() as u64;
            assert_eq!(
                (report.lines, report.invalid, report.records),
                (model.lines, model.invalid, records)
            );
            assert_eq!(report.duplicates, model.lines - model.invalid - records);
            let index = Index::open(&output).unwrap();
            assert_eq!(index.kind(), kind);
            for (key, count) in &model.counts {
                assert_eq!(index.lookup(key), Ok(Some(*count)), "{}", to_hex(key));
                let mut absent = key.clone();
                *absent.last_mut().unwrap() ^= 1;
                if !model.counts.contains_key(&absent) {
                    assert_eq!(index.lookup(&absent), Ok(None), "{}", to_hex(&absent));
                }
            }
            index.verify().unwrap();
        }
    }
    // Spill files have no names: nothing is left behind.
    assert_eq!(
        std::fs::read_dir(&spill).unwrap().count(),
        0,
        "spill files left"
    );
});
