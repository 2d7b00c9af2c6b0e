//! A remote Parquet object as the `parquet` crate's [`ChunkReader`], so
//! that the same blocking reader reads it as a local file, for text
//! output and for Parquet output alike.
//!
//! The reader asks for a page header (a few bytes at an offset), then the
//! page, column after column, each column's pages in order. Asking the
//! store for each would be a request per page; instead each request
//! fetches a *window* — from the offset asked for, cut at the end of the
//! column chunk it falls in — and the following pages of that column are
//! served from it. A window is [`CACHE_BYTES`] shared among a row
//! group's columns (so that each column's window stays held while the
//! reader goes round them), between [`MIN_WINDOW`] and [`WINDOW_BYTES`]. The footer is read once: the
//! object's last [`TAIL_BYTES`] are fetched when it is opened.
//!
//! # Bounds
//!
//! The windows held stay under [`CACHE_BYTES`] (the least recently used
//! dropped first; one window asked for larger than that is held alone),
//! plus the pages the decoder holds.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use bytes::{Buf, Bytes};
use parquet::errors::ParquetError;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{ChunkReader, Length};

use super::object::Object;

/// The bytes a window holds at most (unless one read asks for more).
pub(crate) const WINDOW_BYTES: u64 = 8 << 20;
/// The least a window is made (unless the column chunk ends first).
pub(crate) const MIN_WINDOW: u64 = 256 << 10;
/// The windows of one object held at once.
pub(crate) const CACHE_BYTES: usize = super::REMOTE_READ_BYTES;
/// The end of the object fetched when it is opened: the footer, for most
/// files whole.
const TAIL_BYTES: u64 = 64 << 10;

/// A remote Parquet object's bytes; see the module docs.
#[derive(Clone)]
pub(crate) struct ParquetChunks(Arc<Inner>);

struct Inner {
    object: Arc<Object>,
    cache: Mutex<Windows>,
}

#[derive(Default)]
struct Windows {
    /// Each window's start and bytes, the most recently used last.
    held: VecDeque<(u64, Bytes)>,
    bytes: usize,
    /// The ends of the column chunks, sorted (windows stop there).
    chunk_ends: Vec<u64>,
    /// The size of a new window (until the layout is known, the most).
    window: u64,
}

impl ParquetChunks {
    /// Opens `object`, fetching its tail.
    ///
    /// # Errors
    ///
    /// The tail cannot be read (the message does not name the object).
    pub fn open(object: Arc<Object>) -> io::Result<Self> {
        let start = object.size.saturating_sub(TAIL_BYTES);
        let tail = object.fetch_now(start..object.size)?;
        let mut windows = Windows {
            window: WINDOW_BYTES,
            ..Windows::default()
        };
        windows.keep(start, tail);
        Ok(ParquetChunks(Arc::new(Inner {
            object,
            cache: Mutex::new(windows),
        })))
    }

    /// Cuts later windows at the column chunks' ends `metadata` gives.
    pub fn set_layout(&self, metadata: &ParquetMetaData) {
        let mut ends: Vec<u64> = (metadata.row_groups().iter())
            .flat_map(|group| group.columns().iter())
            .map(|column| {
                let (start, length) = column.byte_range();
                start + length
            })
            .collect();
        ends.sort_unstable();
        let columns = (metadata.row_groups().iter())
            .map(|group| group.columns().len())
            .max()
            .unwrap_or(1)
            .max(1);
        let mut cache = self.cache();
        cache.chunk_ends = ends;
        cache.window = (CACHE_BYTES as u64 / columns as u64).clamp(MIN_WINDOW, WINDOW_BYTES);
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Windows> {
        self.0.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The object's bytes from `start`: at least `least` of them (fewer
    /// only at the object's end), and as many more as a window holds.
    fn from(&self, start: u64, least: u64) -> io::Result<Bytes> {
        let size = self.0.object.size;
        let least = least.min(size.saturating_sub(start));
        if let Some(held) = self.cache().find(start, least) {
            return Ok(held);
        }
        let (chunk_end, window) = {
            let cache = self.cache();
            let after = cache.chunk_ends.partition_point(|&end| end <= start);
            let chunk_end = cache.chunk_ends.get(after).copied().unwrap_or(size);
            (chunk_end, cache.window)
        };
        let end = (start + window).min(chunk_end).max(start + least);
        let bytes = self.0.object.fetch_now(start..end.min(size))?;
        self.cache().keep(start, bytes.clone());
        Ok(bytes)
    }
}

impl Windows {
    /// The held bytes from `start`, if a window holds `least` of them.
    fn find(&mut self, start: u64, least: u64) -> Option<Bytes> {
        let at = (self.held.iter()).position(|(from, bytes)| {
            *from <= start && start + least <= from + bytes.len() as u64
        })?;
        let window = self.held.remove(at)?;
        let skip = (start - window.0) as usize;
        let found = window.1.slice(skip..);
        self.held.push_back(window);
        Some(found)
    }

    /// Holds `bytes` (from `start`), dropping the least recently used
    /// windows beyond [`CACHE_BYTES`].
    fn keep(&mut self, start: u64, bytes: Bytes) {
        self.bytes += bytes.len();
        self.held.push_back((start, bytes));
        while self.bytes > CACHE_BYTES && self.held.len() > 1 {
            let (_, dropped) = self.held.pop_front().expect("more than one");
            self.bytes -= dropped.len();
        }
    }
}

impl Length for ParquetChunks {
    fn len(&self) -> u64 {
        self.0.object.size
    }
}

impl ChunkReader for ParquetChunks {
    type T = ChunkRead;

    fn get_read(&self, start: u64) -> Result<ChunkRead, ParquetError> {
        Ok(ChunkRead {
            chunks: self.clone(),
            at: start,
            held: Bytes::new(),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        let bytes = self.from(start, length as u64)?;
        if bytes.len() < length {
            return Err(ParquetError::EOF(format!(
                "asked for {length} bytes at {start}, the object has {}",
                self.0.object.size
            )));
        }
        Ok(bytes.slice(..length))
    }
}

/// A [`ParquetChunks`] read from an offset on (a page header's reader).
pub(crate) struct ChunkRead {
    chunks: ParquetChunks,
    /// The offset of `held`'s end.
    at: u64,
    held: Bytes,
}

impl Read for ChunkRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.held.is_empty() {
            self.held = self.chunks.from(self.at, 1)?;
            self.at += self.held.len() as u64;
        }
        let n = buf.len().min(self.held.len());
        buf[..n].copy_from_slice(&self.held[..n]);
        self.held.advance(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_serve_what_they_hold_and_stay_bounded() {
        let mut w = Windows::default();
        w.keep(100, Bytes::from(vec![1u8; 50]));
        assert_eq!(w.find(120, 30).map(|b| b.len()), Some(30));
        assert!(w.find(120, 31).is_none(), "past the window's end");
        assert!(w.find(99, 1).is_none(), "before its start");
        let big = CACHE_BYTES / 2 + 1;
        w.keep(1000, Bytes::from(vec![2u8; big]));
        w.keep(1 << 40, Bytes::from(vec![3u8; big]));
        assert!(w.bytes <= CACHE_BYTES);
        assert!(w.find(120, 1).is_none() && w.find(1000, 1).is_none());
        assert_eq!(w.find(1 << 40, 1).map(|b| b[0]), Some(3));
    }
}
