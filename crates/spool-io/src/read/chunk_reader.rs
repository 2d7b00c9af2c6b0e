//! The read-ahead chunk reader.
//!
//! ```text
//!            free buffers (recycled)            full blocks (whole records)
//!  caller ─────────────────────────► reader ─────────────────────────► caller
//!   drops a Block                    thread: fill up to buffer_len,
//!                                    cut after the last delimiter,
//!                                    carry the cut-off tail forward
//! ```
//!
//! The reader thread (its loop is in `fill.rs`), not the parser, stitches the
//! record that straddles two reads: it moves the bytes after the last record
//! end into the next buffer before filling it. For lines that is the last
//! delimiter; for CSV the last line break outside quotes, found by a cutter
//! that carries the quote state from one read to the next (see `cut.rs`).
//! Every [`Block`] therefore holds whole records, so a record is always one
//! contiguous `&[u8]` inside one buffer, blocks can be handed to other
//! threads, and the parser never copies. A record longer than a buffer grows
//! that buffer (up to [`ReadOptions::max_record_len`]);
//! the grown buffer shrinks back when it comes around again.
//!
//! Dropping the reader stops its thread and waits for it (so no thread
//! outlives the reader holding the input, its buffers or thread-local
//! state), even while the caller still holds blocks: the thread waits for
//! a free buffer *or* the stop signal. Only a thread stuck inside the
//! input's own `read` (a pipe or terminal with nothing to say) cannot be
//! woken; after [`JOIN_WAIT`] it is left to end by itself at its next
//! send, which fails.
//!
//! The parts: this file holds the reader (its thread, channels and
//! shutdown); `fill.rs` the thread's loop; `block.rs` what travels around
//! the ring (buffers, the thread's messages, the [`Block`]s handed out);
//! `options.rs` the [`ReadOptions`] both sides read.

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, RecvTimeoutError, Sender};

use spool::text::csv::BlockIndex;

use super::block::{Block, Buffer, Message};
use super::options::ReadOptions;
use super::RecordFormat;

/// How long dropping a reader waits for its thread to end before leaving
/// it to end by itself (only a thread blocked in the input's `read` takes
/// longer than a moment).
pub const JOIN_WAIT: Duration = Duration::from_millis(200);

/// Reads an input in large chunks on a read-ahead thread; see the
/// module docs.
pub struct ChunkReader {
    full: Receiver<Message>,
    free: Sender<Buffer>,
    thread: Option<JoinHandle<()>>,
    /// Dropped to tell the thread to stop.
    stop: Option<Sender<()>>,
    /// Disconnected when the thread's work is done.
    exited: Receiver<()>,
    delimiter: u8,
    format: RecordFormat,
    done: bool,
}

impl ChunkReader {
    /// Starts reading `input` ahead on a new thread.
    ///
    /// # Panics
    ///
    /// If `options.buffers < 2` or `options.buffer_len == 0`.
    pub fn new(input: impl Read + Send + 'static, options: ReadOptions) -> Self {
        assert!(options.buffers >= 2, "a ring needs at least two buffers");
        assert!(options.buffer_len > 0, "buffers must not be empty");
        let (full_tx, full) = bounded(options.buffers);
        let (free, free_rx) = bounded(options.buffers);
        for _ in 0..options.buffers {
            let index = match options.format {
                RecordFormat::Csv(_) => BlockIndex::for_block_len(options.buffer_len),
                RecordFormat::Lines => BlockIndex::default(),
            };
            let buffer = Buffer {
                data: Vec::new(),
                index,
            };
            free.send(buffer).expect("room for every buffer");
        }
        let (delimiter, format) = (options.delimiter, options.format);
        let (stop, stop_rx) = bounded::<()>(0);
        let (exited_tx, exited) = bounded::<()>(0);
        let thread = std::thread::Builder::new()
            .name("spool-read-ahead".into())
            .spawn(move || {
                let _exited = exited_tx;
                super::fill::fill(input, &options, &full_tx, &free_rx, &stop_rx);
            })
            .expect("spawn the read-ahead thread");
        ChunkReader {
            full,
            free,
            thread: Some(thread),
            stop: Some(stop),
            exited,
            delimiter,
            format,
            done: false,
        }
    }

    /// Opens `path` (`-` for standard input, gzip and zstd decompressed) and
    /// starts reading it ahead.
    ///
    /// # Errors
    ///
    /// If the input cannot be opened; the message names the path.
    pub fn open(path: &Path, options: ReadOptions) -> io::Result<Self> {
        Ok(Self::new(crate::input::open(path)?, options))
    }

    /// The next block of whole records, or `None` at the end of the input.
    ///
    /// # Errors
    ///
    /// A read or decompression error, or a record longer than
    /// [`ReadOptions::max_record_len`] (kind `InvalidData`, naming its byte
    /// offset). After an error the reader is finished.
    pub fn next_block(&mut self) -> io::Result<Option<Block>> {
        self.next_block_or_cancel(None)
    }

    /// Like [`next_block`](Self::next_block), but while waiting for the
    /// input (a slow pipe, a terminal) checks `cancel` ten times a second and
    /// returns an error of kind `Interrupted` once it is raised.
    ///
    /// # Errors
    ///
    /// As [`next_block`](Self::next_block), and `Interrupted`.
    pub fn next_block_or_cancel(
        &mut self,
        cancel: Option<&AtomicBool>,
    ) -> io::Result<Option<Block>> {
        if self.done {
            return Ok(None);
        }
        let received = match cancel {
            None => self.full.recv().map_err(|_| ()),
            Some(flag) => loop {
                if flag.load(Ordering::Relaxed) {
                    return Err(io::Error::new(io::ErrorKind::Interrupted, "cancelled"));
                }
                match self.full.recv_timeout(Duration::from_millis(100)) {
                    Ok(message) => break Ok(message),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break Err(()),
                }
            },
        };
        match received {
            Ok(Ok((Buffer { data, index }, len, offset, first_line))) => Ok(Some(Block {
                data,
                index,
                len,
                offset,
                first_line,
                delimiter: self.delimiter,
                format: self.format,
                free: self.free.clone(),
            })),
            Ok(Err(e)) => {
                self.done = true;
                Err(e)
            }
            Err(_) => {
                self.done = true;
                Ok(None)
            }
        }
    }

    /// Calls `f` on every record, in order; stops at the first error.
    ///
    /// # Errors
    ///
    /// Read errors, and whatever `f` returns.
    pub fn for_each_record<E: From<io::Error>>(
        mut self,
        mut f: impl FnMut(super::PlainRecord<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(block) = self.next_block()? {
            for record in block.records() {
                f(record)?;
            }
        }
        Ok(())
    }
}

impl Drop for ChunkReader {
    fn drop(&mut self) {
        // Wake a thread waiting for a free buffer (a live Block may hold
        // the last one), and make its next send fail.
        drop(self.stop.take());
        drop(std::mem::replace(
            &mut self.full,
            crossbeam_channel::never(),
        ));
        match self.exited.recv_timeout(JOIN_WAIT) {
            Err(RecvTimeoutError::Disconnected) => {
                if let Some(thread) = self.thread.take() {
                    let _ = thread.join();
                }
            }
            // Blocked in the input's read: it ends at its next send.
            Ok(()) | Err(RecvTimeoutError::Timeout) => drop(self.thread.take()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(buffer_len: usize) -> ReadOptions {
        ReadOptions {
            buffers: 2,
            buffer_len,
            delimiter: b'\n',
            format: RecordFormat::Lines,
            max_record_len: 1 << 20,
        }
    }

    fn records(data: &[u8], options: ReadOptions) -> io::Result<Vec<(Vec<u8>, u64, u64)>> {
        let mut out = Vec::new();
        ChunkReader::new(io::Cursor::new(data.to_vec()), options).for_each_record(|r| {
            out.push((r.bytes().to_vec(), r.line(), r.offset()));
            Ok::<(), io::Error>(())
        })?;
        Ok(out)
    }

    #[test]
    fn records_straddling_every_edge() {
        let mut data = Vec::new();
        let mut want = Vec::new();
        for i in 0..2000u64 {
            let rec = format!("{i}:{}", "x".repeat((i % 23) as usize)).into_bytes();
            want.push((rec.clone(), i + 1, data.len() as u64));
            data.extend(&rec);
            data.extend(if i % 3 == 0 { &b"\r\n"[..] } else { b"\n" });
        }
        data.extend(b"tail");
        want.push((b"tail".to_vec(), 2001, data.len() as u64 - 4));
        for len in [1, 2, 3, 7, 64, 1000, 1 << 16] {
            assert_eq!(records(&data, small(len)).unwrap(), want, "buffer {len}");
        }
    }

    #[test]
    fn empty_input_and_lone_newline() {
        assert!(records(b"", small(8)).unwrap().is_empty());
        assert_eq!(records(b"\n", small(8)).unwrap(), vec![(vec![], 1, 0)]);
    }

    #[test]
    fn a_long_record_grows_the_buffer_then_the_limit_stops_it() {
        let mut data = vec![b'y'; 5000];
        data.extend(b"\nz\n");
        let got = records(&data, small(64)).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[1].1, got[1].2), (2, 5001));
        let mut limited = small(64);
        limited.max_record_len = 1000;
        let mut data = b"ok\n".to_vec();
        data.extend(vec![b'y'; 5000]);
        let err = records(&data, limited).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("byte offset 3"), "{err}");
    }

    #[test]
    fn the_limit_counts_the_delimiter_exactly() {
        let mut limited = small(4);
        limited.max_record_len = 10;
        // 9 bytes and a newline: exactly the limit.
        let ok = [&b"ab\n"[..], &[b'y'; 9], b"\n"].concat();
        assert_eq!(records(&ok, limited.clone()).unwrap().len(), 2);
        // 10 bytes without a newline at the end of the input: the limit.
        let last = [&b"ab\n"[..], &[b'y'; 10]].concat();
        assert_eq!(records(&last, limited.clone()).unwrap().len(), 2);
        // 10 bytes and a newline: one over.
        let over = [&b"ab\n"[..], &[b'y'; 10], b"\nz\n"].concat();
        let err = records(&over, limited.clone()).unwrap_err();
        assert!(err.to_string().contains("byte offset 3"), "{err}");
        let over_at_end = [&b"ab\n"[..], &[b'y'; 10], b"\n"].concat();
        assert!(records(&over_at_end, limited).is_err());
    }

    proptest::proptest! {
        /// With a limit of at least two buffers, a record over the limit is
        /// an error and every other input reads back whole.
        #[test]
        fn the_limit_is_exact_from_two_buffers(
            lengths in proptest::collection::vec(0usize..40, 0..30),
            last_newline: bool,
            buffer_len in 1usize..12,
            extra in 0usize..10,
        ) {
            let mut data = Vec::new();
            for (i, len) in lengths.iter().enumerate() {
                data.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, *len));
                data.push(b'\n');
            }
            if !last_newline {
                data.pop();
            }
            let mut options = small(buffer_len);
            options.max_record_len = 2 * buffer_len + extra;
            let over = data
                .split_inclusive(|&b| b == b'\n')
                .any(|r| r.len() > options.max_record_len);
            match records(&data, options) {
                Ok(got) => {
                    proptest::prop_assert!(!over);
                    let raw: Vec<u8> = got.iter().flat_map(|(r, _, _)| r.clone()).collect();
                    let stripped: Vec<u8> = data.iter().copied().filter(|&b| b != b'\n').collect();
                    proptest::prop_assert_eq!(raw, stripped);
                }
                Err(e) => proptest::prop_assert!(over, "{}", e),
            }
        }
    }

    /// An input that counts its owners: the thread holds one until it ends.
    struct Tracked {
        input: io::Cursor<Vec<u8>>,
        _owner: std::sync::Arc<()>,
    }
    impl Read for Tracked {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.input.read(buf)
        }
    }

    #[test]
    fn dropping_the_reader_joins_its_thread_even_while_blocks_live() {
        let owner = std::sync::Arc::new(());
        let data = b"abcdefg\n".repeat(1 << 16);
        let input = Tracked {
            input: io::Cursor::new(data),
            _owner: owner.clone(),
        };
        let mut reader = ChunkReader::new(input, small(4096));
        // Hold every buffer: the thread now waits for a free one.
        let first = reader.next_block().unwrap().unwrap();
        let second = reader.next_block().unwrap().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        drop(reader);
        assert_eq!(
            std::sync::Arc::strong_count(&owner),
            1,
            "the thread (and the input it owns) outlived the reader"
        );
        assert!(!first.is_empty() && !second.is_empty());
    }

    #[test]
    fn dropping_the_reader_early_stops_its_thread() {
        let data = b"abcdefg\n".repeat(1 << 20);
        let mut reader = ChunkReader::new(io::Cursor::new(data), small(4096));
        let _first = reader.next_block().unwrap();
        drop(reader); // must not hang
    }
}
