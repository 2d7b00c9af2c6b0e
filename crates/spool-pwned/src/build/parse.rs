//! Parsing on worker threads: one block of lines in, one batch of records
//! out, grouped by bucket so the sink can take it run by run.
//!
//! The lines are split and parsed by the core's sans-IO parsers
//! ([`spool::text`]); this module only adds what the build needs around
//! them: skipping or reporting malformed lines, recycling record vectors,
//! and grouping.

use std::sync::{Mutex, PoisonError};

use crate::text::hibp::{parse_line, parse_whole_lines, LineErrorKind};

use super::hash_count::{self, HashCount, HASH_BYTES};
use super::options::BuildOptions;
use super::read::LineBlock;
use super::sort::{group_by_bucket, BucketRun};

/// What a parsing thread made of one block.
pub struct Parsed {
    pub input: usize,
    /// The records, grouped by bucket (in input order if that was hash
    /// order).
    pub records: Vec<HashCount>,
    /// Whether the records were in hash order.
    pub sorted: bool,
    pub runs: Vec<BucketRun>,
    /// Lines parsed (excluding empty lines).
    pub lines: u64,
    /// Lines of the block, empty ones included (all of them unless
    /// `error` stopped the parse).
    pub all_lines: u64,
    pub invalid: u64,
    pub bytes: u64,
    /// The block's first malformed line (unless skipping them): its number
    /// counted from the block's first line, its byte offset in the input,
    /// what is wrong. Records after it are not parsed.
    pub error: Option<(u64, u64, LineErrorKind)>,
}

/// Parses a block's lines into records (in a recycled vector from
/// `batches`) and groups them by bucket of `bits` bits, using `scratch`.
pub fn parse_block(
    block: &LineBlock,
    prefix: &[u8],
    opts: &BuildOptions,
    bits: u32,
    batches: &Mutex<Vec<Vec<HashCount>>>,
    scratch: &mut Vec<HashCount>,
) -> Parsed {
    let records = batches
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .pop()
        .unwrap_or_default();
    let mut parsed = Parsed {
        input: block.input,
        records,
        sorted: true,
        runs: Vec::new(),
        lines: 0,
        all_lines: 0,
        invalid: 0,
        bytes: 0,
        error: None,
    };
    parsed.records.clear();
    let (bytes, first_offset) = block.text();
    // Lines of the block so far, empty ones included.
    let mut all_lines = 0;
    let key_len = opts.kind.byte_len();
    let mut key = [0u8; 20];
    let mut at = 0;
    while at < bytes.len() {
        // Whole hashes: line splitting and parsing in one pass, as many
        // lines as are well formed.
        if prefix.is_empty() {
            let (records, mut lines) = (&mut parsed.records, 0);
            at += parse_whole_lines(&bytes[at..], key_len, |hash, count| {
                let key = hash[..HASH_BYTES].try_into().expect("20 bytes");
                records.push(hash_count::hash_count(key, count));
                lines += 1;
            });
            parsed.lines += lines;
            all_lines += lines;
            if at == bytes.len() {
                break;
            }
        }
        let rest = &bytes[at..];
        all_lines += 1;
        // Anything else (an empty line, a range file's line, a malformed
        // one): split the line off and parse it alone.
        let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let line = rest[..len].strip_suffix(b"\n").unwrap_or(&rest[..len]);
        let (line_no, offset) = (all_lines, first_offset + at as u64);
        at += len;
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        if text.is_empty() {
            continue;
        }
        parsed.lines += 1;
        match parse_line(text, prefix, &mut key[..key_len]) {
            Ok(count) => parsed.records.push(hash_count::hash_count(&key, count)),
            Err(_) if opts.skip_invalid => parsed.invalid += 1,
            Err(kind) => {
                parsed.error = Some((line_no, offset, kind));
                break;
            }
        }
    }
    // Bytes of input taken, each line counted with a newline (the input's
    // last line too, if it has none).
    parsed.all_lines = all_lines;
    parsed.bytes = at as u64 + u64::from(at > 0 && !bytes[..at].ends_with(b"\n"));
    (parsed.sorted, parsed.runs) = group_by_bucket(&mut parsed.records, scratch, bits);
    parsed
}
