//! A transcoder's records handed out through [`Read`], so that a
//! [`ChunkReader`](spool_io::read::ChunkReader) reads an NDJSON or Parquet
//! source as it reads a text file, on its own thread.

use std::io::{self, Read};

/// What makes a source's text records, a batch at a time.
pub(crate) trait Records {
    /// Appends the next records to `out`; `false` once the source has
    /// no more (with or without records appended by this call).
    fn more(&mut self, out: &mut Vec<u8>) -> io::Result<bool>;
}

/// A [`Records`] as a [`Read`]: its header, then each batch of records.
pub(crate) struct TextReader<R> {
    records: R,
    out: Vec<u8>,
    /// Bytes of `out` handed out.
    given: usize,
    ended: bool,
}

impl<R: Records> TextReader<R> {
    /// Reads `header` (one record), then what `records` make.
    pub fn new(records: R, header: Vec<u8>) -> Self {
        TextReader {
            records,
            out: header,
            given: 0,
            ended: false,
        }
    }
}

impl<R: Records> Read for TextReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.given == self.out.len() {
            if self.ended {
                return Ok(0);
            }
            self.out.clear();
            self.given = 0;
            self.ended = !self.records.more(&mut self.out)?;
        }
        let n = buf.len().min(self.out.len() - self.given);
        buf[..n].copy_from_slice(&self.out[self.given..self.given + n]);
        self.given += n;
        Ok(n)
    }
}
