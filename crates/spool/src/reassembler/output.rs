//! The reassembler's output: its two halves lent out, its error flag, and
//! the stream handed back or swapped for another. Kept apart from the
//! reordering in `mod.rs`: these only pass through to the [`ByteStream`].

use alloc::vec;
use alloc::vec::Vec;

use super::pending::PendingSet;
use super::Reassembler;
use crate::stream::{ByteStream, Reader, Writer};

impl Reassembler {
    /// The output's reading half, as [`ByteStream::reader`] hands it out.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let mut r = Reassembler::new(ByteStream::new(16));
    /// r.insert(0, b"ab", false);
    /// assert_eq!(r.reader().pop(1), 1);
    /// assert_eq!(r.reader().peek(), b"b");
    /// ```
    pub fn reader(&mut self) -> &mut Reader {
        self.output.reader()
    }

    /// The output's reading half, for queries only, as
    /// [`ByteStream::reader_ref`] hands it out.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let mut r = Reassembler::new(ByteStream::new(16));
    /// r.insert(0, b"ab", false);
    /// assert_eq!(r.reader_ref().bytes_buffered(), 2);
    /// ```
    #[must_use]
    pub fn reader_ref(&self) -> &Reader {
        self.output.reader_ref()
    }

    /// The output's writing half, for queries only, as
    /// [`ByteStream::writer_ref`] hands it out. There is no `writer()`
    /// (which on a [`ByteStream`] gives `&mut Writer`): pushing around the
    /// reassembler would overwrite its pending bytes. This is the CS144
    /// lab's `const Writer& writer() const`.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let mut r = Reassembler::new(ByteStream::new(16));
    /// r.insert(0, b"ab", true);
    /// assert_eq!(r.writer_ref().bytes_pushed(), 2);
    /// assert!(r.writer_ref().is_closed());
    /// ```
    ///
    /// A push around the reassembler does not compile:
    ///
    /// ```compile_fail
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let mut r = Reassembler::new(ByteStream::new(16));
    /// r.writer().push(b"x");
    /// ```
    #[must_use]
    pub fn writer_ref(&self) -> &Writer {
        self.output.writer_ref()
    }

    /// The output stream, for queries and copies (`r.output().clone()`
    /// saves it for [`replace_output`](Self::replace_output)).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let r = Reassembler::new(ByteStream::new(8));
    /// assert_eq!(r.output().capacity(), 8);
    /// ```
    #[must_use]
    pub fn output(&self) -> &ByteStream {
        &self.output
    }

    /// Marks the output stream as failed.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let mut r = Reassembler::new(ByteStream::new(16));
    /// r.set_error();
    /// assert!(r.reader_ref().has_error());
    /// ```
    pub fn set_error(&mut self) {
        self.output.set_error();
    }

    /// Gives back the output stream; pending bytes are discarded.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    /// let mut r = Reassembler::new(ByteStream::new(16));
    /// r.insert(0, b"ab", false);
    /// r.insert(3, b"d", false); // pending, dropped with the reassembler
    /// let mut stream = r.into_output();
    /// assert_eq!(stream.reader().peek(), b"ab");
    /// ```
    #[must_use]
    pub fn into_output(self) -> ByteStream {
        self.output
    }

    /// Puts `output` in place of the output stream and returns the old one:
    /// what the CS144 lab's `reassembler.reader() = saved_stream` does. The
    /// reassembler keeps writing into the stream it now holds: pending bytes
    /// move into its window (those outside it are dropped, those it already
    /// has are written out at once), and the known end stays.
    ///
    /// Unlike [`insert`](Self::insert) this allocates: the pending bytes are
    /// copied out of the old ring before they move, and a stream of another
    /// capacity needs a pending set of its size.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::{reassembler::Reassembler, stream::ByteStream};
    ///
    /// let mut r = Reassembler::new(ByteStream::new(8));
    /// r.insert(0, b"ab", false);
    /// r.insert(4, b"ef", false); // pending
    /// let saved = r.output().clone();
    /// r.reader().pop(2);
    /// r.replace_output(saved); // "ab" is buffered again
    /// r.insert(2, b"cd", false);
    /// assert_eq!(r.reader().peek(), b"abcdef");
    /// ```
    pub fn replace_output(&mut self, output: ByteStream) -> ByteStream {
        let map = self.ring_map();
        let window_end = map.pushed + self.output.room() as u64;
        let ring = self.output.ring();
        let mut saved = Vec::new();
        self.pending.for_each_run(&map, window_end, |a, b| {
            let mut bytes = vec![0; (b - a) as usize];
            map.read(ring, a, &mut bytes);
            saved.push((a, bytes));
        });
        if output.capacity() == self.output.capacity() {
            self.pending.clear();
        } else {
            self.pending = PendingSet::new(output.capacity());
        }
        let old = core::mem::replace(&mut self.output, output);
        for (index, bytes) in saved {
            self.insert(index, &bytes, false);
        }
        self.close_at_end();
        old
    }
}
