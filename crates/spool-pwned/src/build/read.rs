//! The build's input as [`LineBlock`]s: blocks of whole lines, read ahead
//! on another thread, so that the parsing threads only split and parse and
//! no line is ever copied.
//!
//! - [`stream_blocks`]: one stream (a file, standard input, a reader
//!   handed in) through `spool_io`'s [`ChunkReader`], which fills recycled
//!   buffers (decompressing gzip or zstd on the way), cuts them at line
//!   ends and numbers their lines.
//! - [`range_file_blocks`]: the downloader's range files (about 30 KB
//!   each, a million of them), each read whole by `spool_io`'s
//!   [`WholeFiles`], one reader thread a few files ahead.
//!
//! Either way a block knows its input, the number of its first line in
//! that input and the byte offset of its first byte, so a malformed line
//! is reported where it is, whichever thread parses it.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use spool_io::read::{Block, ChunkReader, ReadOptions, WholeFiles};

/// Bytes of a stream's blocks. Each block becomes one batch of records (24
/// bytes a line, about half the text) and a build holds a few batches per
/// thread at the end of the parse, when the arena is at its largest: the
/// blocks are as short as keeps the per-block costs small.
const BLOCK_LEN: usize = 512 << 10;

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
    File(Vec<u8>),
}

impl LineBlock {
    /// The block's bytes (whole lines, each ended by `\n` but possibly the
    /// input's last), the number of its first line in its input (from 1)
    /// and the byte offset of its first byte there.
    pub fn text(&self) -> (&[u8], u64, u64) {
        match &self.text {
            Text::Stream(block) => (block.bytes(), block.first_line(), block.offset()),
            Text::File(bytes) => (bytes, 1, 0),
        }
    }
}

/// The blocks of one stream, read ahead in recycled buffers; `in_flight`
/// blocks may be held at once (the ring is sized for them).
///
/// # Errors
///
/// Each item may be a read or decompression error (including a line over
/// 64 MiB); the caller adds the input's name.
pub fn stream_blocks(
    input: Box<dyn Read + Send>,
    index: usize,
    in_flight: usize,
) -> impl Iterator<Item = io::Result<LineBlock>> {
    let options = ReadOptions {
        buffers: in_flight + 2,
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
    use spool::text::Records;

    fn lines(
        blocks: impl Iterator<Item = io::Result<LineBlock>>,
    ) -> Vec<(usize, String, u64, u64)> {
        let mut got = Vec::new();
        for block in blocks {
            let block = block.unwrap();
            let (bytes, first_line, offset) = block.text();
            for record in Records::new(bytes, b'\n', first_line, offset) {
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
        assert_eq!(counter.load(std::sync::atomic::Ordering::Relaxed), on_disk);
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
