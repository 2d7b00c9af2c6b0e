//! What travels around the reader's ring: a [`Buffer`] goes from the
//! free list to the reader thread, comes back filled as a [`Message`], and
//! is handed to the caller as a [`Block`], whose drop puts the buffer back
//! on the free list. Apart from the reader (`chunk_reader.rs`) and its
//! thread (`fill.rs`) because both pass these along: with them in one of
//! the two, each would import the other.

use std::io;

use crossbeam_channel::Sender;

use spool::text::csv::{self, strip_bom, BlockIndex};
use spool::text::{PlainRecords, Position};

use super::RecordFormat;

/// A chunk of whole records, borrowed from the reader's ring; dropping it
/// gives the buffer back.
///
/// # Examples
///
/// ```
/// use spool_io::read::{ChunkReader, ReadOptions};
/// let mut reader = ChunkReader::new(&b"a\tb\nc\td\n"[..], ReadOptions::default());
/// let block = reader.next_block()?.expect("one block");
/// assert_eq!(block.bytes(), b"a\tb\nc\td\n");
/// assert_eq!((block.offset(), block.first_line()), (0, 1));
/// let keys: Vec<&[u8]> = block
///     .records()
///     .map(|r| spool_io::read::fields::field(r.bytes(), b'\t', 0).unwrap())
///     .collect();
/// assert_eq!(keys, [&b"a"[..], b"c"]);
/// assert!(reader.next_block()?.is_none());
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Block {
    pub(super) data: Vec<u8>,
    /// The CSV records of `data[..len]`, as the reader thread found them
    /// (empty for lines).
    pub(super) index: BlockIndex,
    pub(super) len: usize,
    pub(super) offset: u64,
    pub(super) first_line: u64,
    pub(super) delimiter: u8,
    pub(super) format: RecordFormat,
    /// Where dropping the block sends its buffer.
    pub(super) free: Sender<Buffer>,
}

impl Block {
    /// The block's bytes: whole records, each ended by the delimiter except
    /// possibly the last record of the input.
    pub fn bytes(&self) -> &[u8] {
        &self.data[..self.len]
    }

    /// Byte offset of the block's first byte in the (decompressed) input.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Line (record) number of the block's first record, counting from 1.
    pub fn first_line(&self) -> u64 {
        self.first_line
    }

    /// How the block was cut into records.
    pub fn format(&self) -> RecordFormat {
        self.format
    }

    /// The block's records, split at the delimiter, with their line numbers
    /// and offsets; for a block of [`RecordFormat::Lines`]. A UTF-8 byte order
    /// mark at the start of the input is not part of the first record.
    pub fn records(&self) -> PlainRecords<'_> {
        let (bytes, offset) = self.body();
        let start = Position {
            offset,
            line: self.first_line,
        };
        PlainRecords::new(bytes, self.delimiter).starting_at(start)
    }

    /// The block's CSV records, with their line numbers and offsets; for a
    /// block of [`RecordFormat::Csv`] (a block of lines is read as unquoted CSV
    /// of [`Dialect::TSV`](csv::Dialect::TSV)). A UTF-8 byte order mark at
    /// the start of the input is not part of the first record.
    ///
    /// The last record of the input may be an
    /// [`UnterminatedQuote`](csv::UnterminatedQuote) error; every other
    /// block ends at a record end, outside quotes.
    ///
    /// The reader thread found the records while it looked for where to
    /// cut the block, and kept their places: they are read off that index,
    /// without a second pass over the bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::Dialect;
    /// use spool_io::read::{ChunkReader, RecordFormat, ReadOptions};
    /// let input = &b"\xEF\xBB\xBFcity,n\n\"New York, NY\",1\nParis,\"2\n3\"\n"[..];
    /// let options = ReadOptions { buffer_len: 8, format: RecordFormat::Csv(Dialect::CSV), ..ReadOptions::default() };
    /// let mut reader = ChunkReader::new(input, options);
    /// let mut rows = Vec::new();
    /// while let Some(block) = reader.next_block()? {
    ///     for record in block.csv_records() {
    ///         let record = record.expect("quotes closed");
    ///         rows.push((record.value(0).unwrap().into_owned(), record.line()));
    ///     }
    /// }
    /// assert_eq!(rows, [(b"city".to_vec(), 1), (b"New York, NY".to_vec(), 2), (b"Paris".to_vec(), 3)]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn csv_records(&self) -> csv::IndexedRecords<'_> {
        let dialect = match self.format {
            RecordFormat::Csv(dialect) => dialect,
            RecordFormat::Lines => csv::Dialect::TSV,
        };
        let start = Position {
            offset: self.offset,
            line: self.first_line,
        };
        csv::IndexedRecords::new(self.bytes(), &self.index, dialect).starting_at(start)
    }

    /// The block's bytes without a byte order mark at the start of the
    /// input, and the offset of the first of them.
    fn body(&self) -> (&[u8], u64) {
        let bytes = self.bytes();
        if self.offset != 0 {
            return (bytes, self.offset);
        }
        let body = strip_bom(bytes);
        (body, (bytes.len() - body.len()) as u64)
    }
}

impl std::ops::Deref for Block {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.bytes()
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // If the reader is gone the buffer is simply freed.
        let _ = self.free.try_send(Buffer {
            data: std::mem::take(&mut self.data),
            index: std::mem::take(&mut self.index),
        });
    }
}

/// A buffer of the ring, and the index of the CSV records in it.
pub(super) struct Buffer {
    pub data: Vec<u8>,
    pub index: BlockIndex,
}

/// What the reader thread sends: a block's buffer, its filled length,
/// offset and first line.
pub(super) type Message = io::Result<(Buffer, usize, u64, u64)>;
