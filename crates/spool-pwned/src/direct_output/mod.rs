//! The bytes of an index on their way to the file: staged in aligned
//! buffers and written with `O_DIRECT` where the file system takes it.
//!
//! An index is written once and read through a map later; written through
//! the page cache, each 4 KiB of it cost the kernel a page allocated,
//! filled by a copy, tracked dirty and written back (on a 224 MB index,
//! the largest kernel cost of a build). With `O_DIRECT` the device reads
//! the buffer below in place.
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
//!   the page cache (the index's header and table).
//! - The last bytes (not a whole page) go through the page cache at
//!   [`finish`](DirectOut::finish), `O_DIRECT` turned off first.
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

use crate::direct_input::os::direct;
use crate::direct_input::ALIGN;

use background::Background;

/// Stages bytes for a file and writes them out; see the module docs.
pub(crate) struct DirectOut {
    buf: memmap2::MmapMut,
    len: usize,
    base: u64,
    direct: bool,
    /// The thread that writes whole buffers while the next one fills
    /// (direct writes only: through the page cache a write is a copy).
    background: Option<Background>,
}

impl DirectOut {
    /// Stages the bytes of `file` from offset `start` on, in two buffers
    /// of `cap / 2` bytes (a multiple of [`ALIGN`]) when direct, one of
    /// `cap` bytes otherwise; turns `O_DIRECT` on for `file` if its file
    /// system takes it.
    ///
    /// # Errors
    ///
    /// If the buffer cannot be mapped (without the writing thread or its
    /// buffer, the bytes go through the page cache).
    pub fn new(file: &File, start: u64, cap: usize) -> io::Result<Self> {
        assert!(
            cap >= 4 * ALIGN && cap.is_multiple_of(2 * ALIGN),
            "capacity {cap}"
        );
        let mut direct = direct::set(file);
        // Without the writing thread, the page cache's writes (which
        // return once copied) keep the build from waiting on the device.
        let background = if direct {
            Background::start(file, cap / 2).ok()
        } else {
            None
        };
        if direct && background.is_none() {
            direct::clear(file);
            direct = false;
        }
        let buf = memmap2::MmapMut::map_anon(if direct { cap / 2 } else { cap })?;
        debug_assert_eq!(buf.as_ptr().align_offset(ALIGN), 0, "maps are page-aligned");
        let base = if direct {
            start / ALIGN as u64 * ALIGN as u64
        } else {
            start
        };
        Ok(DirectOut {
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
            direct::clear(file);
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

/// Writes `bytes` at `at` (the writing thread's writes); if the first
/// direct write (`proven` false) is refused with `EINVAL`, turns
/// `O_DIRECT` off (`direct` false) and writes them through the page cache.
fn write_at(
    file: &File,
    bytes: &[u8],
    at: u64,
    direct: &mut bool,
    proven: &mut bool,
) -> io::Result<()> {
    match file.write_all_at(bytes, at) {
        Err(e) if *direct && !*proven && e.raw_os_error() == Some(EINVAL) => {
            direct::clear(file);
            *direct = false;
            file.write_all_at(bytes, at)
        }
        Ok(()) => {
            *proven = true;
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// `EINVAL`: what a file system answers to a direct write it cannot do.
const EINVAL: i32 = 22;

/// See [`DirectOut::appender`].
pub(crate) struct Appender<'a> {
    out: &'a mut DirectOut,
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

mod background;

#[cfg(test)]
mod tests;
