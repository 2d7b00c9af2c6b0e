//! How a [`ChunkReader`](super::ChunkReader) reads: its ring of buffers,
//! where records end and how long one may be. Its own file because both
//! the reader (which builds the ring) and its thread's loop (`fill.rs`,
//! which cuts and limits records) read it.

use super::RecordFormat;

/// How a [`ChunkReader`](super::ChunkReader) reads.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Buffers in the ring (at least 2). Default 4.
    pub buffers: usize,
    /// Size of each buffer. Default 1 MiB.
    pub buffer_len: usize,
    /// Byte that ends a record ([`RecordFormat::Lines`] only). Default `b'\n'`.
    pub delimiter: u8,
    /// How records end: at `delimiter`, or as RFC 4180 CSV records (at a
    /// line break outside quotes). Default [`RecordFormat::Lines`].
    pub format: RecordFormat,
    /// Longest record accepted, counting its delimiter; a longer one is an
    /// error naming its byte offset. Default 64 MiB.
    ///
    /// The limit bounds how far a buffer grows for a record that does not
    /// fit in it. It is exact when it is at least `2 * buffer_len` (as by
    /// default); a smaller limit is not checked on records that sit inside
    /// one buffer.
    pub max_record_len: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            buffers: 4,
            buffer_len: 1 << 20,
            delimiter: b'\n',
            format: RecordFormat::Lines,
            max_record_len: 64 << 20,
        }
    }
}
