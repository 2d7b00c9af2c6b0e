//! The build's input as [`LineBlock`]s: blocks of whole lines, read ahead
//! of the parsing threads, so that they only split and parse and no line
//! is ever copied.
//!
//! - [`stream_blocks`]: a stream (standard input, a pipe, a compressed
//!   file) through `spool_io`'s [`ChunkReader`], which fills recycled
//!   buffers on a thread of its own (decompressing gzip or zstd on the
//!   way) and cuts them at line ends.
//! - [`file_blocks`]: a regular file. Its first bytes, read once, say
//!   whether it is compressed (then it is a stream). A plain file that the
//!   page cache does not hold is read around it, with `O_DIRECT` into a
//!   few reused buffers ([`DirectWindows`]): on a cold cache that saves
//!   the kernel a page-cache page per 4 KiB of input, which on this kind
//!   of VM costs more than reading (docs/perf/pwned-build.md). Anything
//!   else (a cached file, tmpfs, a file system without `O_DIRECT`) is a
//!   stream.
//! - [`range_file_blocks`]: the downloader's range files (about 30 KB
//!   each, a million of them), each read whole by `spool_io`'s
//!   [`WholeFiles`], one reader thread a few files ahead.
//!
//! # Line numbers
//!
//! A block knows its input and the byte offset of its first byte there;
//! its lines are numbered from its own first line, and whoever takes the
//! blocks in order adds the lines of the input's earlier blocks (the
//! parsers count them anyway). One rule for every kind of block, and no
//! reader counts newlines ahead of the parsers.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use spool_io::direct::{DirectWindows, Window};
use spool_io::input::{counting, decompress_detected, detect, Detected};
use spool_io::read::{Block, ChunkReader, ReadOptions, WholeFiles};

/// Bytes of a block (a stream's buffer, a direct read). Each block becomes
/// one batch of records (24 bytes a line, about half the text) and a build
/// holds a few batches per thread at the end of the parse, when the arena
/// is at its largest: the blocks are as short as keeps the per-block costs
/// small.
const BLOCK_LEN: usize = 512 << 10;

/// Buffers of input read at once for `threads` parsing threads, direct
/// windows and a stream's ring alike: one per parsing thread and one being
/// read. That keeps the threads busy, and each one more adds a block to
/// the peak memory at the end of the parse, when the arena is full and the
/// reader, ahead of the parsers, has filled every buffer (the peak's
/// parts: docs/perf/pwned-build.md). The parsing threads drop a block
/// before they hand its records back, so a full ring never waits on the
/// caller.
fn buffers(threads: usize) -> usize {
    threads.max(1) + 1
}

/// Range files read ahead of the parsing threads.
const FILES_AHEAD: usize = 16;

/// Whole lines of one input: a block of a stream, or a whole range file.
pub struct LineBlock {
    text: Text,
    /// Which input (for names and prefixes): the index given by the caller.
    pub input: usize,
}

enum Text {
    Stream(Block),
    Direct(Window),
    File(Vec<u8>),
}

impl LineBlock {
    /// The block's bytes (whole lines, each ended by `\n` but possibly the
    /// input's last) and the byte offset of its first byte in its input.
    pub fn text(&self) -> (&[u8], u64) {
        match &self.text {
            Text::Stream(block) => (block.bytes(), block.offset()),
            Text::Direct(window) => (window.bytes(), window.offset()),
            Text::File(bytes) => (bytes, 0),
        }
    }
}

/// The blocks of a regular file (see the module docs): read around the
/// page cache if it is plain and not cached, else as a stream, for
/// `threads` parsing threads; the bytes read from disk are added to
/// `counter`.
///
/// # Errors
///
/// If its first bytes cannot be read or its decompression set up; each
/// item may be a read error. The caller adds the input's name.
pub fn file_blocks(
    file: File,
    index: usize,
    threads: usize,
    counter: Arc<AtomicU64>,
) -> io::Result<Box<dyn Iterator<Item = io::Result<LineBlock>>>> {
    let len = file.metadata()?.len();
    let mut head = [0u8; 4];
    let have = read_head(&file, &mut head)?;
    let detected = detect(&head[..have]);
    if detected != Detected::Plain {
        // The head was read in place: the stream goes on after it.
        let mut file = file;
        file.seek(SeekFrom::Start(have as u64))?;
        counter.fetch_add(have as u64, Ordering::Relaxed);
        let rest = counting(Box::new(file), counter);
        let input = decompress_detected(&head[..have], detected, rest)?;
        return Ok(Box::new(stream_blocks(input, index, threads)));
    }
    match DirectWindows::open(file, len, BLOCK_LEN, buffers(threads), counter.clone()) {
        Ok(windows) => Ok(Box::new(windows.map(move |window| {
            window.map(|w| LineBlock {
                text: Text::Direct(w),
                input: index,
            })
        }))),
        Err(file) => Ok(Box::new(stream_blocks(
            counting(Box::new(file), counter),
            index,
            threads,
        ))),
    }
}

/// Reads the first bytes of `file` into `head` without moving its
/// position; returns how many there are.
fn read_head(file: &File, head: &mut [u8]) -> io::Result<usize> {
    let mut have = 0;
    while have < head.len() {
        match file.read_at(&mut head[have..], have as u64) {
            Ok(0) => break,
            Ok(n) => have += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(have)
}

/// The blocks of one stream for `threads` parsing threads, read ahead in
/// `buffers(threads)` recycled buffers.
///
/// # Errors
///
/// Each item may be a read or decompression error (including a line over
/// 64 MiB); the caller adds the input's name.
pub fn stream_blocks(
    input: Box<dyn Read + Send>,
    index: usize,
    threads: usize,
) -> impl Iterator<Item = io::Result<LineBlock>> {
    let options = ReadOptions {
        buffers: buffers(threads),
        buffer_len: BLOCK_LEN,
        ..ReadOptions::default()
    };
    let mut reader = ChunkReader::new(input, options);
    std::iter::from_fn(move || reader.next_block().transpose()).map(move |block| {
        block.map(|b| LineBlock {
            text: Text::Stream(b),
            input: index,
        })
    })
}

/// Every file of `paths` as one block, in order (`input` = its index in
/// `paths` plus `first_index`), read whole a few files ahead by one
/// thread; the bytes read from disk are added to `counter`.
///
/// # Errors
///
/// Each item may be an error naming a file that cannot be opened or read;
/// no file after it is read.
pub fn range_file_blocks(
    paths: Vec<PathBuf>,
    first_index: usize,
    counter: Arc<AtomicU64>,
) -> impl Iterator<Item = io::Result<LineBlock>> {
    let files = WholeFiles::new(paths, FILES_AHEAD, Some(counter));
    files.enumerate().map(move |(i, bytes)| {
        bytes.map(|b| LineBlock {
            text: Text::File(b),
            input: first_index + i,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spool::text::{PlainRecords, Position};

    fn lines(
        blocks: impl Iterator<Item = io::Result<LineBlock>>,
    ) -> Vec<(usize, String, u64, u64)> {
        let mut got = Vec::new();
        for block in blocks {
            let block = block.unwrap();
            let (bytes, offset) = block.text();
            let start = Position { offset, line: 1 };
            for record in PlainRecords::new(bytes, b'\n').starting_at(start) {
                let line = record.raw().strip_suffix(b"\n").unwrap_or(record.raw());
                let line = String::from_utf8(line.to_vec()).unwrap();
                got.push((block.input, line, record.line(), record.offset()));
            }
        }
        got
    }

    #[test]
    fn crlf_is_left_to_the_parser_and_numbers_count_from_one() {
        let got = lines(stream_blocks(
            Box::new(io::Cursor::new(b"a\r\nb\nc".to_vec())),
            7,
            2,
        ));
        assert_eq!(
            got,
            [
                (7, "a\r".to_string(), 1, 0),
                (7, "b".to_string(), 2, 3),
                (7, "c".to_string(), 3, 5)
            ]
        );
    }

    #[test]
    fn a_file_is_read_whole_whether_plain_or_compressed() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let text: Vec<u8> = (0..60_000u32)
            .flat_map(|i| format!("{i:040X}:{i}\r\n").into_bytes())
            .collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        let zst = zstd::encode_all(&text[..], 1).unwrap();
        for (name, bytes) in [("plain", &text), ("gz", &gz), ("zst", &zst)] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let counter = Arc::new(AtomicU64::new(0));
            let blocks = file_blocks(File::open(&path).unwrap(), 3, 2, counter.clone());
            let mut got = Vec::new();
            for block in blocks.unwrap() {
                let block = block.unwrap();
                let (bytes, offset) = block.text();
                assert_eq!((block.input, offset), (3, got.len() as u64), "{name}");
                got.extend_from_slice(bytes);
            }
            assert!(got == text, "{name}: {} bytes of {}", got.len(), text.len());
            assert_eq!(
                counter.load(Ordering::Relaxed),
                bytes.len() as u64,
                "{name}"
            );
        }
    }

    #[test]
    fn files_are_read_in_order_with_their_own_line_numbers() {
        let dir = std::env::temp_dir().join(format!("spool-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let paths: Vec<PathBuf> = (0..40)
            .map(|i| {
                let p = dir.join(format!("{i}.txt"));
                std::fs::write(&p, format!("a{i}\r\nb{i}")).unwrap();
                p
            })
            .collect();
        let counter = Arc::new(AtomicU64::new(0));
        let got = lines(range_file_blocks(paths, 3, counter.clone()));
        let on_disk: u64 = (0..40).map(|i| format!("a{i}\r\nb{i}").len() as u64).sum();
        assert_eq!(counter.load(Ordering::Relaxed), on_disk);
        assert_eq!(got.len(), 80);
        assert_eq!(got[2], (4, "a1\r".to_string(), 1, 0));
        assert_eq!(got[79], (42, "b39".to_string(), 2, 5));
        let mut missing = range_file_blocks(vec![dir.join("missing.txt")], 0, counter);
        let err = missing.next().unwrap().err().unwrap();
        assert!(err.to_string().contains("missing.txt"), "{err}");
        assert!(missing.next().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
