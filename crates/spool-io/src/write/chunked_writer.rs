//! An `io::Write` over pool chunks and a block encoder.

use std::io::{self, Write};

use super::{BlockEncoder, Chunk, ChunkPool, Compression};

/// Buffers writes in one chunk from a shared [`ChunkPool`] and sends each
/// full chunk, encoded as one block, to `sink`.
///
/// Memory is bounded by the pool: a writer holds at most one chunk, and
/// when the pool's budget is spent a writer that has no chunk encodes the
/// bytes of each `write` straight through, a chunk's length at a time,
/// instead of waiting — so many writers on one thread can share a small
/// budget without deadlock, and the encoder's buffer stays chunk-sized.
/// Call [`finish`](ChunkedWriter::finish) to write the last partial chunk
/// and get the sink back; dropping the writer flushes on a best-effort
/// basis.
///
/// # Examples
///
/// ```
/// use std::io::Write;
/// use spool_io::write::{ChunkPool, ChunkedWriter, Compression};
/// let pool = ChunkPool::new(64 << 10, 16); // 1 MiB shared by all writers
/// let mut w = ChunkedWriter::new(Vec::new(), pool.clone(), Compression::Zstd(3))?;
/// for i in 0..10_000 {
///     writeln!(w, "line {i}")?;
/// }
/// let file = w.finish()?;
/// let text = zstd::decode_all(&file[..])?;
/// assert!(text.ends_with(b"line 9999\n"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct ChunkedWriter<W: Write> {
    sink: Option<W>,
    pool: ChunkPool,
    chunk: Option<Chunk>,
    encoder: BlockEncoder,
}

impl<W: Write> ChunkedWriter<W> {
    /// A writer into `sink` with chunks from `pool`.
    ///
    /// # Errors
    ///
    /// If the compression level is rejected.
    pub fn new(sink: W, pool: ChunkPool, compression: Compression) -> io::Result<Self> {
        Ok(ChunkedWriter {
            sink: Some(sink),
            pool,
            chunk: None,
            encoder: BlockEncoder::new(compression)?,
        })
    }

    /// Writes the buffered chunk (if any) as one block and gives the chunk
    /// back to the pool.
    fn write_chunk(&mut self) -> io::Result<()> {
        if let Some(chunk) = self.chunk.take() {
            if !chunk.is_empty() {
                let block = self.encoder.encode(&chunk)?;
                self.sink
                    .as_mut()
                    .expect("sink until finish")
                    .write_all(block)?;
            }
        }
        Ok(())
    }

    /// Writes the last block, flushes and returns the sink.
    ///
    /// # Errors
    ///
    /// Write errors from the sink.
    pub fn finish(mut self) -> io::Result<W> {
        self.write_chunk()?;
        let mut sink = self.sink.take().expect("sink until finish");
        sink.flush()?;
        Ok(sink)
    }
}

impl<W: Write> Write for ChunkedWriter<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let len = buf.len();
        while !buf.is_empty() {
            if self.chunk.is_none() {
                self.chunk = self.pool.try_take();
            }
            let Some(chunk) = self.chunk.as_mut() else {
                // Budget spent: encode straight through, no buffering, a
                // chunk's worth at a time so that a huge `write` does not
                // make a huge compressed block.
                let sink = self.sink.as_mut().expect("sink until finish");
                for piece in buf.chunks(self.pool.chunk_len()) {
                    sink.write_all(self.encoder.encode(piece)?)?;
                }
                return Ok(len);
            };
            let n = chunk.remaining().min(buf.len());
            chunk.push_slice(&buf[..n]);
            buf = &buf[n..];
            if chunk.remaining() == 0 {
                self.write_chunk()?;
            }
        }
        Ok(len)
    }

    /// Writes the partial chunk as a block and flushes the sink. Frequent
    /// flushes make many small blocks; flush only where it matters.
    fn flush(&mut self) -> io::Result<()> {
        self.write_chunk()?;
        self.sink.as_mut().expect("sink until finish").flush()
    }
}

impl<W: Write> Drop for ChunkedWriter<W> {
    fn drop(&mut self) {
        if self.sink.is_some() {
            let _ = self.write_chunk();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_write_with_the_budget_spent_is_encoded_a_chunk_at_a_time() {
        let pool = ChunkPool::new(1024, 1);
        let held = pool.try_take().unwrap(); // the whole budget
        let mut w = ChunkedWriter::new(Vec::new(), pool.clone(), Compression::Zstd(1)).unwrap();
        let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        w.write_all(&data).unwrap();
        let file = w.finish().unwrap();
        drop(held);
        assert_eq!(zstd::decode_all(&file[..]).unwrap(), data);
        // Every frame holds at most one chunk's worth.
        let mut rest = &file[..];
        let mut frames = 0;
        while !rest.is_empty() {
            let len = zstd::zstd_safe::find_frame_compressed_size(rest).unwrap();
            let content = zstd::zstd_safe::get_frame_content_size(&rest[..len]).unwrap();
            assert!(content.is_some_and(|n| n <= 1024), "{content:?}");
            rest = &rest[len..];
            frames += 1;
        }
        assert_eq!(frames, data.len().div_ceil(1024));
    }

    #[test]
    fn many_writers_share_a_tiny_budget_without_losing_bytes() {
        let pool = ChunkPool::new(16, 2);
        let mut writers: Vec<_> = (0..5)
            .map(|_| ChunkedWriter::new(Vec::new(), pool.clone(), Compression::None).unwrap())
            .collect();
        for i in 0..200u32 {
            for (k, w) in writers.iter_mut().enumerate() {
                write!(w, "{k}:{i};").unwrap();
                assert!(pool.allocated_bytes() <= 32);
            }
        }
        for (k, w) in writers.into_iter().enumerate() {
            let got = String::from_utf8(w.finish().unwrap()).unwrap();
            let want: String = (0..200u32).map(|i| format!("{k}:{i};")).collect();
            assert_eq!(got, want);
        }
    }
}
