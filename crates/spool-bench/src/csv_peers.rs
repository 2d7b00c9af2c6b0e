//! Ways to split CSV (and the same data as TSV) into records and take
//! field N's value, side by side, all from memory. Each returns `(records,
//! total bytes of field N's values)` so their answers can be checked
//! against each other.

use spool::text::csv::{Dialect, Fields, RecordCutter, Records};

/// What every splitter computes.
pub type Answer = (u64, u64);

/// The field every peer takes: one past two quoted fields on average.
pub const FIELD: usize = 3;

/// Which file of a [`Sample`](crate::csv_sample::Sample) a peer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// The quoted CSV.
    Csv,
    /// The same records as unquoted TSV.
    Tsv,
}

/// A peer: records and field [`FIELD`] of its input.
pub type Split = fn(&[u8]) -> Answer;

/// Every peer, spool's CSV splitter first, with the file it reads.
pub fn all() -> Vec<(&'static str, Input, Split)> {
    vec![
        ("spool text::csv", Input::Csv, |d| {
            spool_records(d, Dialect::CSV, FIELD)
        }),
        (
            "spool text::csv + RecordCutter 1 MiB reads",
            Input::Csv,
            |d| spool_cut_blocks(d, Dialect::CSV, FIELD, 1 << 20),
        ),
        ("memchr splitter", Input::Csv, |d| {
            memchr_records(d, Dialect::CSV, FIELD)
        }),
        ("csv ByteRecord", Input::Csv, |d| {
            csv_byte_records(d, b',', FIELD)
        }),
        ("simd-csv ZeroCopyReader", Input::Csv, |d| {
            simd_csv_zero_copy(d, b',', FIELD)
        }),
        ("spool-io TSV path (Records + field)", Input::Tsv, |d| {
            spool_io_tsv(d, FIELD)
        }),
        ("spool text::csv Dialect::TSV", Input::Tsv, |d| {
            spool_records(d, Dialect::TSV, FIELD)
        }),
    ]
}

/// spool's [`Records`] over the whole input, [`Field::value`] of field `n`.
///
/// [`Field::value`]: spool::text::csv::Field::value
pub fn spool_records(data: &[u8], dialect: Dialect, n: usize) -> Answer {
    let (mut records, mut bytes) = (0, 0);
    for record in Records::new(data, dialect) {
        let record = record.expect("well-formed sample");
        records += 1;
        bytes += record.field(n).map_or(0, |f| f.value().len()) as u64;
    }
    (records, bytes)
}

/// What a read-ahead reader and its parser do together on one core:
/// [`RecordCutter`] fed `read` bytes at a time, [`Records`] over each block
/// it cuts.
pub fn spool_cut_blocks(data: &[u8], dialect: Dialect, n: usize, read: usize) -> Answer {
    let mut cutter = RecordCutter::new(dialect);
    let (mut records, mut bytes) = (0, 0);
    let mut block_start = 0;
    let mut take = |block: &[u8]| {
        for record in Records::new(block, dialect) {
            let record = record.expect("well-formed sample");
            records += 1;
            bytes += record.field(n).map_or(0, |f| f.value().len()) as u64;
        }
    };
    for piece_start in (0..data.len()).step_by(read) {
        let piece = &data[piece_start..(piece_start + read).min(data.len())];
        if let Some(cut) = cutter.scan(piece) {
            take(&data[block_start..cut.offset as usize]);
            block_start = cut.offset as usize;
        }
    }
    cutter.finish().expect("well-formed sample");
    take(&data[block_start..]);
    (records, bytes)
}

/// [`RecordCutter`] alone over `read`-byte reads: the offset of the last
/// cut (the end of an input whose last record has its line break).
pub fn cut_only(data: &[u8], dialect: Dialect, read: usize) -> u64 {
    let mut cutter = RecordCutter::new(dialect);
    let mut last = 0;
    for piece in data.chunks(read) {
        if let Some(cut) = cutter.scan(piece) {
            last = cut.offset;
        }
    }
    cutter.finish().expect("well-formed sample");
    last
}

/// The `csv` crate's `ByteRecord` reader (csv-core's DFA, fields copied
/// and unquoted into the record).
pub fn csv_byte_records(data: &[u8], delimiter: u8, n: usize) -> Answer {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(data);
    let mut record = csv::ByteRecord::new();
    let (mut records, mut bytes) = (0, 0);
    while reader
        .read_byte_record(&mut record)
        .expect("reads from memory")
    {
        records += 1;
        bytes += record.get(n).map_or(0, <[u8]>::len) as u64;
    }
    (records, bytes)
}

/// `simd-csv`'s zero-copy reader (`memchr`-style SIMD search inside a
/// state machine), field `n` unescaped.
pub fn simd_csv_zero_copy(data: &[u8], delimiter: u8, n: usize) -> Answer {
    let mut reader = simd_csv::ZeroCopyReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(data);
    let (mut records, mut bytes) = (0, 0);
    while let Some(record) = reader.read_byte_record().expect("reads from memory") {
        records += 1;
        bytes += record.unescape(n).map_or(0, |v| v.len()) as u64;
    }
    (records, bytes)
}

/// spool's unquoted TSV path: `spool_io`'s line records and
/// `fields::field`.
pub fn spool_io_tsv(data: &[u8], n: usize) -> Answer {
    let (mut records, mut bytes) = (0, 0);
    for record in spool_io::read::PlainRecords::new(data, b'\n') {
        records += 1;
        bytes +=
            spool_io::read::fields::field(record.bytes(), b'\t', n).map_or(0, <[u8]>::len) as u64;
    }
    (records, bytes)
}

/// The other way to find records: `memchr3` for a quote or a line break
/// from the record's start, and when the quote opens a field (first byte,
/// or after a delimiter) a `memchr` to its closing quote. Field access as
/// in [`spool_records`]. Kept to show why the splitter uses masks.
pub fn memchr_records(data: &[u8], dialect: Dialect, n: usize) -> Answer {
    let q = dialect.quote().expect("a quoting dialect");
    let d = dialect.delimiter();
    let (mut records, mut bytes) = (0, 0);
    let mut pos = 0;
    while pos < data.len() {
        if data[pos] == b'\n' || data[pos] == b'\r' {
            pos += 1; // blank line
            continue;
        }
        let start = pos;
        let mut i = pos;
        let end = loop {
            let Some(k) = memchr::memchr3(q, b'\n', b'\r', &data[i..]) else {
                break (data.len(), data.len());
            };
            let j = i + k;
            if data[j] != q {
                let mut after = j + 1;
                if data[j] == b'\r' && data.get(after) == Some(&b'\n') {
                    after += 1;
                }
                break (j, after);
            }
            if j != start && data[j - 1] != d {
                i = j + 1; // a quote inside an unquoted field
                continue;
            }
            // Skip the quoted field to its closing quote.
            let mut m = j + 1;
            i = loop {
                match memchr::memchr(q, &data[m..]) {
                    None => break data.len(),
                    Some(x) if data.get(m + x + 1) == Some(&q) => m += x + 2,
                    Some(x) => break m + x + 1,
                }
            };
        };
        records += 1;
        let value = Fields::new(&data[start..end.0], dialect).nth(n);
        bytes += value.map_or(0, |f| f.value().len()) as u64;
        pos = end.1;
    }
    (records, bytes)
}

/// A lower bound that is not a peer: it reads the same bytes but does
/// less than any splitter must, and checks its own answer.
pub type Floor = fn(&[u8]) -> u64;

/// The floors timed beside the peers: how fast the bytes can be passed
/// over at all, what the splitter's 64-byte masks cost without any
/// per-record work, and the splitter with less than a peer's work (records
/// only; field N found but its value not taken).
pub fn floors() -> Vec<(&'static str, Input, Floor)> {
    vec![
        ("floor: memchr count of LF", Input::Csv, |d| {
            memchr::memchr_iter(b'\n', d).count() as u64
        }),
        ("floor: RecordCutter masks alone", Input::Csv, |d| {
            cut_only(d, Dialect::CSV, 1 << 20)
        }),
        ("floor: spool text::csv records only", Input::Csv, |d| {
            Records::new(d, Dialect::CSV).fold(0, |n, r| {
                r.expect("well-formed sample");
                n + 1
            })
        }),
        (
            "floor: spool text::csv records + field raw",
            Input::Csv,
            |d| {
                Records::new(d, Dialect::CSV)
                    .map(|r| r.expect("well-formed sample"))
                    .map(|r| r.field(FIELD).map_or(0, |f| f.raw().len() as u64 + 1))
                    .sum()
            },
        ),
        ("floor: memchr count of LF", Input::Tsv, |d| {
            memchr::memchr_iter(b'\n', d).count() as u64
        }),
    ]
}

/// What each floor must answer on `data`: the number of LFs, or for the
/// cutter the end of the input (the sample ends with a line break).
pub fn floor_answer(name: &str, data: &[u8]) -> u64 {
    if name.contains("RecordCutter") {
        data.len() as u64
    } else if name.contains("records only") {
        csv_byte_records(data, b',', 0).0
    } else if name.contains("field raw") {
        // Field found by scanning its bytes, not from the masks.
        Records::new(data, Dialect::CSV)
            .map(|r| r.expect("well-formed sample"))
            .map(|r| {
                r.fields()
                    .nth(FIELD)
                    .map_or(0, |f| f.raw().len() as u64 + 1)
            })
            .sum()
    } else {
        data.iter().filter(|&&b| b == b'\n').count() as u64
    }
}
