//! Input for the index builder as chunks of whole lines, read ahead on
//! another thread, so the parsing threads only split and parse and no line
//! is ever copied.
//!
//! - [`stream_chunks`]: one large stream through `spool_io`'s
//!   [`ChunkReader`], which fills recycled 1 MiB buffers (decompressing on
//!   the way) and cuts them at line ends.
//! - [`plain_chunks`]: one plain regular file, read with `O_DIRECT` into
//!   a few reused buffers ([`direct_input`](crate::direct_input)) where the
//!   file system allows it, else through maps
//!   ([`mapped_input`](crate::mapped_input)): either way never copied out
//!   of the page cache.
//! - [`file_chunks`]: many small files (the downloader's range files,
//!   about 30 KB each, a million of them), each read whole by one reader
//!   thread that opens them one at a time, a few ahead — not a thread, a
//!   descriptor and a ring of 1 MiB buffers per file, as `spool_io`'s
//!   `FileBlocks` (made for a few large inputs) would spend.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{mpsc, Arc};

use spool_io::read::{Block, ChunkReader, ReadOptions};

use crate::direct_input;
use crate::mapped_input::{self, Window};

/// Whole files read ahead by [`file_chunks`].
const FILES_AHEAD: usize = 16;

/// Whole lines of one input: a block of a stream, or a whole file.
pub struct Chunk {
    text: Text,
    /// Which input (for names and prefixes): the index given by the caller.
    pub input: usize,
}

enum Text {
    Block(Block),
    File(Vec<u8>),
    Mapped(Window),
    Direct(direct_input::Window),
}

impl Chunk {
    /// The chunk's bytes (whole lines, each ended by `\n` but possibly the
    /// input's last), the number of its first line and the byte offset of
    /// its first byte in the input. Line numbers count from the input's
    /// first line, or from the chunk's when
    /// [`numbered_from_chunk`](Self::numbered_from_chunk) says so.
    pub fn text(&self) -> (&[u8], u64, u64) {
        match &self.text {
            Text::Block(block) => (block.bytes(), block.first_line(), block.offset()),
            Text::File(bytes) => (bytes, 1, 0),
            Text::Mapped(window) => (window.bytes(), 1, window.offset),
            Text::Direct(window) => (window.bytes(), 1, window.offset),
        }
    }

    /// Whether [`text`](Self::text) numbers lines from the chunk's first
    /// (a window of a plain file, which nobody counted the lines before): the caller
    /// adds the lines of the input's earlier chunks, counting them as it
    /// takes the chunks in order, instead of a reader thread counting every
    /// newline ahead of the parsers.
    pub fn numbered_from_chunk(&self) -> bool {
        matches!(self.text, Text::Mapped(_) | Text::Direct(_))
    }
}

/// The chunks of one stream, read ahead in recycled 1 MiB buffers;
/// `in_flight` chunks may be held at once (the ring is sized for them).
///
/// # Errors
///
/// Each item may be a read error (including a line over 64 MiB).
pub fn stream_chunks(
    input: Box<dyn Read + Send>,
    index: usize,
    in_flight: usize,
) -> impl Iterator<Item = io::Result<Chunk>> {
    let options = ReadOptions {
        buffers: in_flight + 2,
        ..ReadOptions::default()
    };
    let mut reader = ChunkReader::new(input, options);
    std::iter::from_fn(move || reader.next_block().transpose()).map(move |block| {
        block.map(|b| Chunk {
            text: Text::Block(b),
            input: index,
        })
    })
}

/// The chunks of a plain regular file of `len` bytes, window by window:
/// read with `O_DIRECT` (see [`direct_input`]) into buffers enough for
/// `threads` parsing threads, or mapped (see [`mapped_input`]) where
/// the file system does not take direct reads; the bytes taken are added
/// to `counter`.
///
/// # Errors
///
/// Each item may be an error reading or mapping the file (the caller adds
/// its name).
pub fn plain_chunks(
    file: File,
    len: u64,
    index: usize,
    threads: usize,
    counter: Arc<AtomicU64>,
) -> Box<dyn Iterator<Item = io::Result<Chunk>>> {
    let window = mapped_input::WINDOW;
    // One buffer per parsing thread and one being read: enough to keep
    // the threads busy (measured: more buffers did not shorten a build),
    // and each one more adds 0.5 MiB to the peak memory at the end of the
    // parse, when the arena is full. The reads are made as the caller takes
    // chunks; the parsing threads drop a chunk before they hand its records
    // back, so a full buffer pool never waits on the caller.
    let buffers = threads + 1;
    match direct_input::windows(file, len, window, buffers, counter.clone()) {
        Ok(windows) => Box::new(windows.map(move |window| {
            window.map(|w| Chunk {
                text: Text::Direct(w),
                input: index,
            })
        })),
        Err(file) => Box::new(mapped_input::windows(file, len, window, counter).map(
            move |window| {
                window.map(|w| Chunk {
                    text: Text::Mapped(w),
                    input: index,
                })
            },
        )),
    }
}

/// Every file of `paths` as one chunk, in order (`input` = its index in
/// `paths` plus `first_index`), read whole, a few files ahead, on one reader
/// thread that holds one file open at a time; the bytes read from disk are
/// added to `counter`.
///
/// # Errors
///
/// Each item may be an error naming a file that cannot be opened or read;
/// no file after it is read.
pub fn file_chunks(
    paths: Vec<PathBuf>,
    first_index: usize,
    counter: Arc<AtomicU64>,
) -> impl Iterator<Item = io::Result<Chunk>> {
    let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(FILES_AHEAD);
    std::thread::spawn(move || {
        for path in &paths {
            let mut buf = Vec::new();
            let read = spool_io::input::open_counted(path, Some(counter.clone()))
                .and_then(|(mut r, _)| r.read_to_end(&mut buf))
                .map_err(|e| spool_io::input::with_path(e, path));
            let failed = read.is_err();
            // A closed channel means the build stopped: stop reading.
            if tx.send(read.map(|_| buf)).is_err() || failed {
                return;
            }
        }
    });
    rx.into_iter().enumerate().map(move |(i, bytes)| {
        bytes.map(|b| Chunk {
            text: Text::File(b),
            input: first_index + i,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spool::text::{PlainRecords, Position};

    fn lines(chunks: impl Iterator<Item = io::Result<Chunk>>) -> Vec<(usize, String, u64, u64)> {
        let mut got = Vec::new();
        for chunk in chunks {
            let chunk = chunk.unwrap();
            let (bytes, first_line, offset) = chunk.text();
            let start = Position {
                offset,
                line: first_line,
            };
            for record in PlainRecords::new(bytes, b'\n').starting_at(start) {
                let line = record.raw().strip_suffix(b"\n").unwrap_or(record.raw());
                let line = String::from_utf8(line.to_vec()).unwrap();
                got.push((chunk.input, line, record.line(), record.offset()));
            }
        }
        got
    }

    #[test]
    fn crlf_is_left_to_the_parser_and_numbers_count_from_one() {
        let got = lines(stream_chunks(
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
        let dir = std::env::temp_dir().join(format!("spool-readahead-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let paths: Vec<PathBuf> = (0..40)
            .map(|i| {
                let p = dir.join(format!("{i}.txt"));
                std::fs::write(&p, format!("a{i}\r\nb{i}")).unwrap();
                p
            })
            .collect();
        let counter = Arc::new(AtomicU64::new(0));
        let got = lines(file_chunks(paths, 3, counter.clone()));
        let on_disk: u64 = (0..40).map(|i| format!("a{i}\r\nb{i}").len() as u64).sum();
        assert_eq!(counter.load(std::sync::atomic::Ordering::Relaxed), on_disk);
        assert_eq!(got.len(), 80);
        assert_eq!(got[2], (4, "a1\r".to_string(), 1, 0));
        assert_eq!(got[79], (42, "b39".to_string(), 2, 5));
        let mut missing = file_chunks(vec![dir.join("missing.txt")], 0, counter);
        let err = missing.next().unwrap().err().unwrap();
        assert!(err.to_string().contains("missing.txt"), "{err}");
        assert!(missing.next().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
