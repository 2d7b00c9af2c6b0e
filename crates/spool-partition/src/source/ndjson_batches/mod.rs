//! NDJSON read as typed Arrow record batches, for Parquet output: the
//! lines never become delimited text, so nothing is split and parsed a
//! second time by the writers (see the `typed` module).
//!
//! arrow-json's [`Decoder`](arrow_json::reader::Decoder) reads the lines
//! into string columns, one per field the first lines named
//! ([`NdjsonTable`], the `decode` module); a column given a type by
//! `--schema` is then parsed with the same value parsers as a CSV field of
//! that type (the `parquet::values` module), so a value means the same
//! whatever the input format: a JSON number or string `"42"` in an `int64`
//! column is 42, a number in a string column is its text as written.
//! Unlike text, JSON tells an empty string from a missing value: in a
//! string column `""` stays an empty string and `null` or a missing field
//! is NULL; in a typed column both are NULL.
//!
//! ```text
//!  reading thread ──► pieces of whole lines ──► decoding threads ──► batches,
//!  (the sources in     (PIECE_BYTES each, with     (one arrow-json       put back in
//!   order)              its first line number)       decoder each)         piece order
//! ```
//!
//! Pieces are independent (a line never spans two), so they are decoded
//! on as many threads as the run reads inputs at once, and the batches
//! handed out in input order whatever thread finished first.
//!
//! A piece that does not decode is read again more slowly to find out
//! why: first with every nested object or array written as its JSON text
//! (the value of a string column, as the text output writes it), then line
//! by line — a line that is not one JSON object, names a field outside the
//! columns, or holds a value its column's type does not accept is an
//! invalid record, named by file, line and byte offset (or counted and
//! skipped with `--skip-invalid`). Once a decoder needed a piece's nested
//! values written as text, it writes later pieces so before their first
//! try.
//!
//! # Bounds
//!
//! At most `workers + 3` pieces are read and not yet handed out (the
//! reading thread holds one while it waits for room), each [`PIECE_BYTES`] bytes
//! of lines (or one longer line) or its batches of at most `BATCH_ROWS`
//! rows.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use crossbeam_channel::{Receiver, Sender};

use super::Transcoding;
use crate::PartitionError;
use decode::{blank, PieceDecoder};

mod decode;

pub(crate) use decode::NdjsonTable;

/// Bytes of whole lines decoded at a time: a piece.
pub(crate) const PIECE_BYTES: usize = 1 << 20;
/// Bytes asked of the input per read.
const READ: usize = 256 << 10;

/// A piece of a source: whole lines.
pub(super) struct Lines {
    /// The source's index.
    pub(super) file: usize,
    /// Lines and bytes of the source before it.
    pub(super) lines: u64,
    pub(super) offset: u64,
    pub(super) bytes: Vec<u8>,
    /// Its lines that are not blank: the rows it decodes to, one each.
    pub(super) records: usize,
}

/// One source cut into pieces of whole lines.
struct LinePieces {
    input: Box<dyn Read + Send>,
    file: usize,
    /// Bytes read and not handed out yet, from the start of a line.
    pending: Vec<u8>,
    /// How far `pending` is known to hold no line break.
    searched: usize,
    at_end: bool,
    /// Lines and bytes before `pending`.
    lines: u64,
    offset: u64,
}

impl LinePieces {
    fn new(input: Box<dyn Read + Send>, file: usize) -> Self {
        LinePieces {
            input,
            file,
            pending: Vec::new(),
            searched: 0,
            at_end: false,
            lines: 0,
            offset: 0,
        }
    }

    /// The next piece: [`PIECE_BYTES`] bytes of whole lines or more (one long
    /// line), or the rest of the input at its end.
    fn next_piece(&mut self) -> io::Result<Option<Lines>> {
        let cut = self.fill()?;
        if cut == 0 {
            return Ok(None);
        }
        let rest = self.pending.split_off(cut);
        let bytes = std::mem::replace(&mut self.pending, rest);
        let (mut lines, mut records, mut start) = (0, 0, 0);
        for end in memchr::memchr_iter(b'\n', &bytes).chain([bytes.len()]) {
            lines += u64::from(end < bytes.len());
            records += usize::from(!blank(&bytes[start..end]));
            start = end + 1;
        }
        let piece = Lines {
            file: self.file,
            lines: self.lines,
            offset: self.offset,
            bytes,
            records,
        };
        self.lines += lines;
        self.offset += cut as u64;
        self.searched = 0;
        Ok(Some(piece))
    }

    /// Reads until `pending` holds a piece: the length of its whole lines
    /// (all of it at the end of the input; 0 once nothing is left).
    fn fill(&mut self) -> io::Result<usize> {
        loop {
            if self.pending.len() >= PIECE_BYTES || self.at_end {
                let unsearched = &self.pending[self.searched..];
                if let Some(i) = memchr::memrchr(b'\n', unsearched) {
                    return Ok(self.searched + i + 1);
                }
                if self.at_end {
                    return Ok(self.pending.len());
                }
                self.searched = self.pending.len();
            }
            let old = self.pending.len();
            self.pending.resize(old + READ, 0);
            let read = loop {
                match self.input.read(&mut self.pending[old..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other,
                }
            };
            self.pending.truncate(old + *read.as_ref().unwrap_or(&0));
            if read? == 0 {
                self.at_end = true;
            }
        }
    }
}

/// How to open one source's bytes (decompressed).
pub(crate) type Opener = Box<dyn FnOnce() -> Result<Box<dyn Read + Send>, PartitionError> + Send>;

/// A piece's source and batches (or why it has none); `None` after the
/// last piece, so that an end without it (a thread that panicked) is an
/// error, not a shorter output.
type Decoded = Option<(usize, Result<Vec<RecordBatch>, PartitionError>)>;

/// The NDJSON sources' batches, in order; see the module docs.
pub(crate) struct NdjsonBatches {
    /// Each piece's batches by the piece's number in input order.
    results: Receiver<(u64, Decoded)>,
    /// Pieces decoded ahead of the next one in order.
    waiting: BTreeMap<u64, Decoded>,
    next: u64,
    ready: VecDeque<(usize, RecordBatch)>,
    /// Given back once a piece's batches are taken, so that the reader
    /// starts one more.
    room: Option<Sender<()>>,
    threads: Vec<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    done: bool,
}

impl NdjsonBatches {
    /// Starts reading the sources `inputs` (opened in order) as batches
    /// of `table`, on one reading thread and `workers` decoding ones.
    ///
    /// # Errors
    ///
    /// A thread cannot be started.
    pub fn start(
        inputs: Vec<Opener>,
        table: Arc<NdjsonTable>,
        shared: Arc<Transcoding>,
        workers: usize,
    ) -> Result<Self, PartitionError> {
        let workers = workers.max(1);
        let in_flight = workers + 2;
        let (room, room_rx) = crossbeam_channel::bounded(in_flight);
        for _ in 0..in_flight {
            room.send(()).expect("room for every token");
        }
        let (pieces, pieces_rx) = crossbeam_channel::bounded::<(u64, Lines)>(workers);
        let (results_tx, results) = crossbeam_channel::unbounded();
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::with_capacity(workers + 1);
        let (to, stopped, paths) = (results_tx.clone(), stop.clone(), shared.clone());
        threads.push(spawn("spool-partition-ndjson-reader", move || {
            let mut seq = 0u64;
            for (file, open) in inputs.into_iter().enumerate() {
                let mut lines = match open() {
                    Ok(input) => LinePieces::new(input, file),
                    Err(e) => {
                        let _ = to.send((seq, Some((file, Err(e)))));
                        return;
                    }
                };
                loop {
                    let piece = match lines.next_piece() {
                        Ok(Some(piece)) => piece,
                        Ok(None) => break,
                        Err(e) => {
                            let e = spool_io::input::with_path(e, &paths.paths[file]);
                            let _ = to.send((seq, Some((file, Err(e.into())))));
                            return;
                        }
                    };
                    let stopped = stopped.load(Ordering::Relaxed);
                    if stopped || room_rx.recv().is_err() || pieces.send((seq, piece)).is_err() {
                        return;
                    }
                    seq += 1;
                }
            }
            let _ = to.send((seq, None));
        })?);
        for _ in 0..workers {
            let (pieces, to) = (pieces_rx.clone(), results_tx.clone());
            let mut decoder = PieceDecoder::new(table.clone(), shared.clone());
            threads.push(spawn("spool-partition-ndjson-decoder", move || {
                for (seq, piece) in pieces {
                    // A panic is this piece's error: the reader would wait
                    // for its room, and the batches for it, for ever.
                    let decoded =
                        std::panic::catch_unwind(AssertUnwindSafe(|| decoder.batches(&piece)));
                    let panicked = decoded.is_err();
                    let batches = decoded.unwrap_or_else(|_| {
                        Err(PartitionError::Io(io::Error::other(format!(
                            "{}: decoding its lines failed (an internal error)",
                            decoder.shared.paths[piece.file].display()
                        ))))
                    });
                    if to.send((seq, Some((piece.file, batches)))).is_err() || panicked {
                        return;
                    }
                }
            })?);
        }
        Ok(NdjsonBatches {
            results,
            waiting: BTreeMap::new(),
            next: 0,
            ready: VecDeque::new(),
            room: Some(room),
            threads,
            stop,
            done: false,
        })
    }

    /// The next batch and its source's index, or `None` after the last.
    ///
    /// # Errors
    ///
    /// A source that cannot be read, or an invalid line (without
    /// `--skip-invalid`), naming the file.
    pub fn next_batch(&mut self) -> Result<Option<(usize, RecordBatch)>, PartitionError> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Ok(Some(batch));
            }
            if self.done {
                return Ok(None);
            }
            let decoded = match self.waiting.remove(&self.next) {
                Some(decoded) => decoded,
                None => match self.results.recv() {
                    Ok((seq, decoded)) => {
                        self.waiting.insert(seq, decoded);
                        continue;
                    }
                    Err(_) => {
                        self.done = true;
                        return Err(PartitionError::Io(io::Error::other(
                            "the NDJSON inputs' reading stopped before their end (a thread failed)",
                        )));
                    }
                },
            };
            self.next += 1;
            if let Some(room) = &self.room {
                let _ = room.send(());
            }
            let Some((file, batches)) = decoded else {
                self.done = true;
                continue;
            };
            match batches {
                Ok(batches) => self.ready.extend(batches.into_iter().map(|b| (file, b))),
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            }
        }
    }
}

impl Drop for NdjsonBatches {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.room = None; // a reader waiting for room returns
        let (_, results) = crossbeam_channel::bounded(0);
        drop(std::mem::replace(&mut self.results, results)); // so does a blocked send
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>, PartitionError> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map_err(PartitionError::Io)
}
