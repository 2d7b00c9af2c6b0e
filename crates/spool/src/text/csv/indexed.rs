//! The records of a block read off its [`BlockIndex`], without looking at
//! the bytes again; see [`block`](super::block) for why.

use core::slice;

use super::block::{BlockIndex, Entry};
use super::record::Record;
use super::records::Records;
use super::{Dialect, UnterminatedQuote, BOM};
use crate::text::Position;

/// Iterator over the records of a block that a [`BlockCutter`] cut and
/// indexed: the same records, lines and offsets [`Records`] finds in it.
///
/// The records the index holds come out of it; the ones after its last
/// entry (past its capacity, or the input's last record when it has no
/// line break or an unterminated quote) are found by scanning, as
/// [`Records`] does.
///
/// [`BlockCutter`]: super::BlockCutter
///
/// # Examples
///
/// See [`BlockCutter`](super::BlockCutter).
#[derive(Clone, Debug)]
pub struct IndexedRecords<'a> {
    data: &'a [u8],
    entries: slice::Iter<'a, Entry>,
    dialect: Dialect,
    first_line: u64,
    offset: u64,
    /// The index's last entry: the records not in the index follow it.
    last: Option<Entry>,
    /// The records after the index's last entry, once reached (possibly
    /// none: then an iterator over no bytes).
    rest: Option<Records<'a>>,
}

impl<'a> IndexedRecords<'a> {
    /// The records of `data`, a block that was indexed into `index` (an
    /// empty index works too: every record is then scanned), numbered as
    /// the start of an input ([`Position::START`]); a block from the
    /// middle of one says where it starts with
    /// [`starting_at`](Self::starting_at). At offset 0 a UTF-8 byte order
    /// mark is not part of the first record.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::{BlockIndex, Dialect, IndexedRecords};
    /// let empty = BlockIndex::for_block_len(0);
    /// let records = IndexedRecords::new(b"a\nb\n", &empty, Dialect::CSV);
    /// assert_eq!(records.count(), 2);
    /// ```
    #[must_use]
    pub fn new(data: &'a [u8], index: &'a BlockIndex, dialect: Dialect) -> Self {
        IndexedRecords {
            data,
            entries: index.entries.iter(),
            dialect,
            first_line: Position::START.line,
            offset: Position::START.offset,
            last: index.entries.last().copied(),
            rest: None,
        }
    }

    /// Numbers the records as if the block began at `start` in the input:
    /// its offset and the line there ([`BlockCutter::first_line`]). Set it
    /// before iterating.
    ///
    /// [`BlockCutter::first_line`]: super::BlockCutter::first_line
    ///
    /// # Examples
    ///
    /// See [`BlockCutter`](super::BlockCutter).
    #[must_use]
    pub fn starting_at(mut self, start: Position) -> Self {
        debug_assert!(self.rest.is_none(), "starting_at after iterating");
        self.first_line = start.line;
        self.offset = start.offset;
        self
    }

    /// The records after the index, scanned.
    #[cold]
    #[inline(never)]
    fn rest(&mut self) -> Option<Result<Record<'a>, UnterminatedQuote>> {
        if self.rest.is_none() {
            let (from, line) = self.after_index();
            let from = from.min(self.data.len());
            let start = Position {
                offset: self.offset + from as u64,
                line,
            };
            self.rest = Some(Records::new(&self.data[from..], self.dialect).starting_at(start));
        }
        self.rest.as_mut()?.next()
    }

    /// Where the records not in the index start, and their line: after the
    /// last entry, or at the block's first record if there is none.
    fn after_index(&self) -> (usize, u64) {
        match self.last {
            Some(e) => {
                let raw = &self.data[e.start as usize..e.end as usize];
                let lines = memchr::memchr_iter(b'\n', raw).count() as u64;
                (e.end as usize, self.first_line + u64::from(e.line) + lines)
            }
            None if self.offset == 0 && self.data.starts_with(BOM) => (BOM.len(), self.first_line),
            None => (0, self.first_line),
        }
    }
}

impl<'a> Iterator for IndexedRecords<'a> {
    type Item = Result<Record<'a>, UnterminatedQuote>;

    // Always inlined: see `Records::next`.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        match self.entries.next() {
            Some(e) => Some(Ok(Record::indexed(
                &self.data[e.start as usize..e.end as usize],
                self.first_line + u64::from(e.line),
                self.offset + u64::from(e.start),
                self.dialect,
                e.delims,
                e.quotes,
            ))),
            None => self.rest(),
        }
    }
}

impl core::iter::FusedIterator for IndexedRecords<'_> {}
