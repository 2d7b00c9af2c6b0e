//! Ways to read a TSV file line by line and take field 2, side by side.
//! Each returns `(lines, total bytes of field 2)` so their answers can be
//! checked against each other.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use spool_io::read::{fields::field, ChunkReader, ReadOptions};

/// What every reader computes.
pub type Answer = (u64, u64);

/// spool: read-ahead [`ChunkReader`] blocks, [`PlainRecords`](spool_io::read::PlainRecords)
/// and [`field`].
pub fn spool_chunk_reader(path: &Path) -> io::Result<Answer> {
    let mut reader = ChunkReader::open(path, ReadOptions::default())?;
    let (mut lines, mut bytes) = (0, 0);
    while let Some(block) = reader.next_block()? {
        for record in block.records() {
            lines += 1;
            bytes += field(record.bytes(), b'\t', 1).map_or(0, <[u8]>::len) as u64;
        }
    }
    Ok((lines, bytes))
}

/// `BufRead::lines` into a `String` per line, `split('\t').nth(1)`.
pub fn bufread_lines(path: &Path) -> io::Result<Answer> {
    let (mut lines, mut bytes) = (0, 0);
    for line in BufReader::new(File::open(path)?).lines() {
        let line = line?;
        lines += 1;
        bytes += line.split('\t').nth(1).map_or(0, str::len) as u64;
    }
    Ok((lines, bytes))
}

/// `read_until` into one reused `Vec`, fields with `memchr`.
pub fn read_until_reused(path: &Path) -> io::Result<Answer> {
    let mut reader = BufReader::with_capacity(64 << 10, File::open(path)?);
    let mut line = Vec::with_capacity(256);
    let (mut lines, mut bytes) = (0, 0);
    while reader.read_until(b'\n', &mut line)? > 0 {
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        lines += 1;
        bytes += field(&line, b'\t', 1).map_or(0, <[u8]>::len) as u64;
        line.clear();
    }
    Ok((lines, bytes))
}

/// `bstr`'s `for_byte_line` (a reused buffer, lines as `&[u8]`).
pub fn bstr_for_byte_line(path: &Path) -> io::Result<Answer> {
    use bstr::io::BufReadExt;
    let mut reader = BufReader::with_capacity(64 << 10, File::open(path)?);
    let (mut lines, mut bytes) = (0, 0);
    reader.for_byte_line(|line| {
        lines += 1;
        bytes += field(line, b'\t', 1).map_or(0, <[u8]>::len) as u64;
        Ok(true)
    })?;
    Ok((lines, bytes))
}

/// The `csv` crate, tab-delimited, no quoting, one reused `ByteRecord`.
pub fn csv_byte_records(path: &Path) -> io::Result<Answer> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .has_headers(false)
        .quoting(false)
        .flexible(true)
        .from_reader(File::open(path)?);
    let mut record = csv::ByteRecord::new();
    let (mut lines, mut bytes) = (0, 0);
    while reader
        .read_byte_record(&mut record)
        .map_err(io::Error::other)?
    {
        lines += 1;
        bytes += record.get(1).map_or(0, <[u8]>::len) as u64;
    }
    Ok((lines, bytes))
}

/// The floor: read the file in 1 MiB pieces and count newlines (no fields).
pub fn read_and_count_newlines(path: &Path) -> io::Result<Answer> {
    let mut file = File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut lines = 0;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
    }
    Ok((lines, 0))
}

/// A reader under test.
pub type ReadPeer = fn(&Path) -> io::Result<Answer>;

/// Every reader with its name, spool first.
pub fn all() -> Vec<(&'static str, ReadPeer)> {
    vec![
        ("spool ChunkReader + field", spool_chunk_reader),
        ("bstr for_byte_line", bstr_for_byte_line),
        ("read_until (reused Vec)", read_until_reused),
        ("BufRead::lines", bufread_lines),
        ("csv ByteRecord", csv_byte_records),
    ]
}
