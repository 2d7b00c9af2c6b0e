//! The bytes of a file on their way to it: staged in aligned buffers and
//! written with `O_DIRECT` where the file system takes it.
//!
//! A file written once (an index, read through a map later) gains nothing
//! from passing through the page cache: each 4 KiB of it costs the kernel
//! a page allocated, filled by a copy, tracked dirty and written back, and
//! the final `fsync` waits for all of it. With `O_DIRECT` the device reads
//! the buffer below in place while the writer goes on.
//!
//! ```text
//!  file:   … ─┼──── written ────┼──────── buf ────────┼
//!             0                 base        base + len
//!  buf:   [ whole pages: written out on `write_out` | tail < 4096 ]
//!           the tail moves to the front of the buffer and waits
//! ```
//!
//! A direct write returns only once the device has the bytes, so when
//! direct the buffer is one of two: full, it goes to a writing thread
//! (`background.rs`) and the other, written already, is filled meanwhile.
//!
//! # Invariants
//!
//! - `buf[..len]` are the file's bytes from `base` on, not yet written;
//!   everything before `base` that was staged has been written (or handed
//!   to the writing thread, which writes it before any later buffer).
//! - While `direct`, `base` is a multiple of [`ALIGN`] and only whole
//!   pages are written (from the page-aligned buffer, at aligned offsets).
//!   The bytes between the last page boundary before the first staged
//!   byte and that byte are zeros: the caller writes them later, through
//!   the page cache (an index's header and table).
//! - The last bytes (not a whole page) go through the page cache at
//!   [`finish`](DirectWriter::finish), `O_DIRECT` turned off first.
//!
//! A file system that lives in memory (tmpfs) or refuses the flag, or a
//! first direct write that fails with `EINVAL` (a device whose logical
//! blocks are larger than a page), gets the same bytes written through
//! the page cache instead. The data being on the device does not make the
//! file's size and blocks durable: the caller still syncs before the
//! rename.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use super::background::Background;
use super::os::{self, ALIGN};

/// Stages bytes for a file and writes them out; see the module docs.
///
/// # Examples
///
/// ```
/// use std::io::Write;
/// use spool_io::direct::{DirectWriter, ALIGN};
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-writer-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("out");
/// let file = std::fs::File::options().create(true).truncate(true).read(true).write(true).open(&path)?;
/// // The body from offset 10 on; the first 10 bytes are the caller's.
/// let mut out = DirectWriter::new(&file, 10, 4 * ALIGN)?;
/// out.appender(&file).write_all(b"body")?;
/// assert_eq!(out.finish(&file)?, 14);
/// std::os::unix::fs::FileExt::write_all_at(&file, b"front.....", 0)?;
/// assert_eq!(std::fs::read(&path)?, b"front.....body");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct DirectWriter {
    buf: memmap2::MmapMut,
    len: usize,
    base: u64,
    direct: bool,
    /// The thread that writes whole buffers while the next one fills
    /// (direct writes only: through the page cache a write is a copy).
    background: Option<Background>,
}

impl DirectWriter {
    /// Stages the bytes of `file` from offset `start` on, in two buffers
    /// of `cap / 2` bytes (a multiple of [`ALIGN`]) when direct, one of
    /// `cap` bytes otherwise; turns `O_DIRECT` on for `file` if its file
    /// system takes it.
    ///
    /// # Errors
    ///
    /// If the buffer cannot be mapped (without the writing thread or its
    /// buffer, the bytes go through the page cache).
    ///
    /// # Panics
    ///
    /// If `cap` is not a multiple of `2 * ALIGN` of at least `4 * ALIGN`.
    pub fn new(file: &File, start: u64, cap: usize) -> io::Result<Self> {
        assert!(
            cap >= 4 * ALIGN && cap.is_multiple_of(2 * ALIGN),
            "capacity {cap}"
        );
        let mut direct = os::set(file);
        // Without the writing thread, the page cache's writes (which
        // return once copied) keep the build from waiting on the device.
        let background = if direct {
            Background::start(file, cap / 2).ok()
        } else {
            None
        };
        if direct && background.is_none() {
            os::clear(file);
            direct = false;
        }
        let buf = memmap2::MmapMut::map_anon(if direct { cap / 2 } else { cap })?;
        debug_assert_eq!(buf.as_ptr().align_offset(ALIGN), 0, "maps are page-aligned");
        let base = if direct {
            start / ALIGN as u64 * ALIGN as u64
        } else {
            start
        };
        Ok(DirectWriter {
            buf,
            len: (start - base) as usize,
            base,
            direct,
            background,
        })
    }

    /// Whether writes go around the page cache.
    #[cfg(test)]
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    /// Bytes staged.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no bytes are staged.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Room left in the buffer.
    #[inline]
    pub fn room(&self) -> usize {
        self.buf.len() - self.len
    }

    /// The staged bytes.
    pub fn staged(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Stages `bytes`.
    ///
    /// # Panics
    ///
    /// If they do not fit ([`room`](Self::room)).
    #[inline]
    pub fn extend(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    /// Writes the staged whole pages (every staged byte, when not direct),
    /// or hands them to the writing thread; the rest moves to the front of
    /// the buffer.
    ///
    /// # Errors
    ///
    /// I/O errors (of this write, or of the writing thread's last one).
    pub fn write_out(&mut self, file: &File) -> io::Result<()> {
        let n = if self.direct {
            self.len / ALIGN * ALIGN
        } else {
            self.len
        };
        if n == 0 {
            return Ok(());
        }
        if let Some(background) = &mut self.background {
            let mut next = background.take_spare()?;
            next[..self.len - n].copy_from_slice(&self.buf[n..self.len]);
            let full = std::mem::replace(&mut self.buf, next);
            background.write(full, n, self.base)?;
        } else {
            // Without the thread the writes go through the page cache
            // (`new` and `finish` clear `direct` when they drop the thread).
            debug_assert!(!self.direct, "direct writes go through the thread");
            file.write_all_at(&self.buf[..n], self.base)?;
            self.buf.copy_within(n..self.len, 0);
        }
        self.base += n as u64;
        self.len -= n;
        Ok(())
    }

    /// Writes everything staged, the last partial page through the page
    /// cache (`O_DIRECT` turned off for good), and returns the offset of
    /// the end of the bytes written.
    ///
    /// # Errors
    ///
    /// I/O errors.
    pub fn finish(&mut self, file: &File) -> io::Result<u64> {
        self.write_out(file)?;
        if let Some(background) = self.background.take() {
            background.finish()?;
        }
        if self.direct {
            os::clear(file);
            self.direct = false;
        }
        self.write_out(file)?;
        Ok(self.base)
    }

    /// An [`io::Write`] that stages into this buffer, writing it out as it
    /// fills.
    pub fn appender<'a>(&'a mut self, file: &'a File) -> Appender<'a> {
        Appender { out: self, file }
    }
}

/// An [`io::Write`] staging into a [`DirectWriter`]; see
/// [`DirectWriter::appender`].
pub struct Appender<'a> {
    out: &'a mut DirectWriter,
    file: &'a File,
}

impl io::Write for Appender<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.out.room() == 0 {
            self.out.write_out(self.file)?;
        }
        let n = bytes.len().min(self.out.room());
        self.out.extend(&bytes[..n]);
        if self.out.room() == 0 {
            self.out.write_out(self.file)?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
#[path = "writer_tests.rs"]
mod tests;
