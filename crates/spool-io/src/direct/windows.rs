//! A plain file read with `O_DIRECT` into a few reused, aligned
//! buffers, one window of whole lines at a time.
//!
//! The device writes straight into the buffers below: no page-cache
//! pages, no page faults, no copy. The same few buffers serve the whole
//! file, so their pages are faulted in once.
//!
//! ```text
//!  buffer:  [ .... HEAD .... | ...... read area (window bytes) ...... ]
//!                 [carry     |  bytes read at an aligned file offset ]
//!                  ^ the previous read's partial last line, copied in
//!  window = carry + read bytes up to their last '\n'
//! ```
//!
//! Reads start at aligned file offsets and fill the aligned read area, so
//! a partial last line cannot be read again with the next window: it is
//! copied into the room before the next read area (`HEAD` bytes, more than
//! any well-formed line of the texts this reads). A line longer than that
//! room is gathered in an owned buffer instead, however many reads it
//! takes: slower, but the same bytes.
//!
//! # When it is used
//!
//! Only on Linux, for regular files whose file system takes `O_DIRECT`
//! reads (not memory-backed ones such as tmpfs), and only if the first
//! read works: anything else hands the file back, to be read through the
//! page cache. So is a file that the page cache holds already (most of 16
//! bytes spread over it there, asked for with `RWF_NOWAIT`): reading it
//! copies those pages, while direct reads would go to the disk again. A
//! file partly cached either way gives the same bytes (the kernel writes
//! dirty pages back before a direct read).
//!
//! The reads are made on the thread that takes the windows, as it takes
//! them, not on a reader thread of their own: one would be woken twice
//! more per window (the window handed over, its buffer handed back).
//!
//! # Windows and lines
//!
//! A window knows the byte offset of its first byte in the file. It does
//! not know its lines' numbers: counting them would be a pass over every
//! byte on the reading thread. A caller that numbers lines counts them
//! as it parses, window after window, in order.
//!
//! # Bounds
//!
//! At most `buffers` buffers of `HEAD + window` bytes (anonymous maps,
//! page-aligned) are ever allocated; the reader waits for one to come back
//! before reading on, and they are unmapped when the file is done. Lines
//! longer than `HEAD` are gathered in an owned vector as long as the line.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;

use super::os::{self, ALIGN};

/// Room before the read area for a carried partial line.
const HEAD: usize = ALIGN;

/// One window of whole lines, in a pooled buffer (given back on drop) or,
/// for a line longer than the carry room, an owned one.
pub struct Window {
    bytes: Bytes,
    range: Range<usize>,
    offset: u64,
}

enum Bytes {
    Pooled(Aligned, SyncSender<Aligned>),
    Owned(Vec<u8>),
    /// Nothing (only while a pooled buffer is being given back).
    Gone,
}

impl Window {
    /// The window's lines: whole lines, each ended by `\n` except possibly
    /// the file's last.
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Pooled(buf, _) => &buf.area()[self.range.clone()],
            Bytes::Owned(v) => &v[self.range.clone()],
            Bytes::Gone => &[],
        }
    }

    /// Byte offset of the window's first byte in the file.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        if let Bytes::Pooled(buf, pool) = std::mem::replace(&mut self.bytes, Bytes::Gone) {
            // A full or closed pool means the reader is gone: free it.
            let _ = pool.try_send(buf);
        }
    }
}

/// A buffer of `HEAD + window` bytes at a page-aligned address: an
/// anonymous map of its own (so the allocator neither over-allocates to
/// align it nor keeps its pages after the build is done with it).
struct Aligned(memmap2::MmapMut);

impl Aligned {
    fn new(len: usize) -> io::Result<Self> {
        let map = memmap2::MmapMut::map_anon(len)?;
        debug_assert!(
            map.as_ptr().align_offset(ALIGN) == 0,
            "maps are page-aligned"
        );
        Ok(Aligned(map))
    }

    fn area(&self) -> &[u8] {
        &self.0
    }

    fn area_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl DirectWindows {
    /// The windows of `file` (a regular file of `len` bytes), each about
    /// `window` bytes (a multiple of [`ALIGN`]) of whole lines, in order,
    /// read with `O_DIRECT` into at most `buffers` buffers (each read made
    /// as the iterator is advanced; it waits for a buffer if all are
    /// taken); the bytes of each window are added to `counter` as it is
    /// read.
    ///
    /// Advancing the iterator while the caller's own thread holds all
    /// `buffers` windows waits forever: windows must be dropped (or handed
    /// to threads that drop them without waiting for the caller).
    ///
    /// # Errors
    ///
    /// `Err(file)` — the file given back, its flags as they were — if the
    /// page cache holds most of the file already or the file cannot be
    /// read so (not Linux, a memory-backed file system, a file system that
    /// refuses `O_DIRECT`, or a failed first read): read it another way.
    /// Later items may be read errors (the caller adds the name).
    ///
    /// # Panics
    ///
    /// If `window` is not a positive multiple of [`ALIGN`].
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_io::direct::{DirectWindows, ALIGN};
    /// let dir = std::env::temp_dir().join(format!("spool-io-doc-direct-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("lines.txt");
    /// std::fs::write(&path, b"a:1\nb:2\n")?;
    /// let file = std::fs::File::open(&path)?;
    /// let counter = std::sync::Arc::default();
    /// // Read directly where the file system allows it; else given back.
    /// let text = match DirectWindows::open(file, 8, ALIGN, 2, counter) {
    ///     Ok(windows) => windows.map(|w| w.map(|w| w.bytes().to_vec())).collect::<std::io::Result<Vec<_>>>()?.concat(),
    ///     Err(file) => std::io::read_to_string(file)?.into_bytes(),
    /// };
    /// assert_eq!(text, b"a:1\nb:2\n");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn open(
        file: File,
        len: u64,
        window: usize,
        buffers: usize,
        counter: Arc<AtomicU64>,
    ) -> Result<Self, File> {
        let mut missed = Vec::new();
        if os::cached(&file, len, &mut missed) {
            return Err(file);
        }
        Self::open_uncached(file, len, window, buffers, counter, missed)
    }

    /// [`open`](Self::open) whether or not the page cache holds the file;
    /// the pages holding `missed` are dropped from the page cache once the
    /// file is read.
    fn open_uncached(
        file: File,
        len: u64,
        window: usize,
        buffers: usize,
        counter: Arc<AtomicU64>,
        missed: Vec<u64>,
    ) -> Result<Self, File> {
        assert!(
            window > 0 && window.is_multiple_of(ALIGN),
            "window {window}"
        );
        if !os::set(&file) {
            return Err(file);
        }
        let first = Aligned::new(HEAD + window)
            .and_then(|mut first| read_area(&file, &mut first, 0, len).map(|got| (first, got)));
        let Ok((first, got)) = first else {
            os::clear(&file);
            return Err(file);
        };
        Ok(DirectWindows {
            file,
            len,
            window,
            buffers: buffers.max(2),
            allocated: 1,
            pool: mpsc::sync_channel(buffers.max(2)),
            carry: Vec::new(),
            read_at: 0,
            emitted: 0,
            counter,
            first: Some((first, got)),
            done: false,
            missed,
        })
    }
}

/// Reads the buffer's area after `HEAD` from aligned file offset `at`, as
/// much as the file (of `len` bytes) has there; returns the bytes read.
fn read_area(file: &File, buf: &mut Aligned, at: u64, len: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let area = &mut buf.area_mut()[HEAD..];
    let want = (len - at).min(area.len() as u64) as usize;
    let mut got = 0;
    while got < want {
        // The request is rounded up to the alignment; the file's end cuts
        // the last one short. (Only a file shrinking meanwhile leaves `got`
        // unaligned: the next direct read then fails, and is reported.)
        let ask = (want - got).next_multiple_of(ALIGN).min(area.len() - got);
        match file.read_at(&mut area[got..got + ask], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got.min(want))
}

/// The windows of a plain file read with `O_DIRECT`; see the module docs.
pub struct DirectWindows {
    file: File,
    len: u64,
    /// Bytes of a buffer's read area.
    window: usize,
    buffers: usize,
    allocated: usize,
    /// Buffers given back by dropped windows.
    pool: (SyncSender<Aligned>, Receiver<Aligned>),
    /// The partial line after the last window sent.
    carry: Vec<u8>,
    /// File offset of the next read (aligned).
    read_at: u64,
    /// File offset of the first byte not yet sent (the carry's first).
    emitted: u64,
    counter: Arc<AtomicU64>,
    /// The first read, done before the reader was made (to see that direct
    /// reads work), with its length.
    first: Option<(Aligned, usize)>,
    /// Whether the file's end (or an error) was reached.
    done: bool,
    /// Pages the cache check read in, to drop at the end.
    missed: Vec<u64>,
}

impl Iterator for DirectWindows {
    type Item = io::Result<Window>;

    /// The next window, reading as often as it takes (a line longer than
    /// a read takes several); `None` after the file's end or an error.
    fn next(&mut self) -> Option<io::Result<Window>> {
        while !self.done {
            let (buf, got) = match self.first.take() {
                Some(first) => first,
                None => {
                    let mut buf = self.take()?;
                    match read_area(&self.file, &mut buf, self.read_at, self.len) {
                        Ok(got) => (buf, got),
                        Err(e) => {
                            self.done = true;
                            return Some(Err(e));
                        }
                    }
                }
            };
            self.read_at += got as u64;
            self.done = self.read_at >= self.len || got == 0;
            if self.done {
                os::forget(&self.file, &std::mem::take(&mut self.missed));
            }
            match self.cut(buf, got, self.done) {
                Some(w) if !w.range.is_empty() => return Some(Ok(w)),
                _ => {}
            }
        }
        None
    }
}

impl DirectWindows {
    /// A free buffer: one given back, a new one while fewer than
    /// `buffers` exist, or the next one given back. `None` if the build
    /// stopped taking windows.
    fn take(&mut self) -> Option<Aligned> {
        match self.pool.1.try_recv() {
            Ok(buf) => return Some(buf),
            Err(TryRecvError::Empty) if self.allocated < self.buffers => {
                self.allocated += 1;
                // Out of memory for one more: wait for one instead.
                if let Ok(buf) = Aligned::new(HEAD + self.window) {
                    return Some(buf);
                }
            }
            Err(_) => {}
        }
        self.pool.1.recv().ok()
    }

    /// The window made of the carry and `got` bytes read into `buf`'s
    /// area: its whole lines (all of it at the file's `end`), the rest
    /// kept as the next carry. `None` while a long line is being gathered.
    fn cut(&mut self, mut buf: Aligned, got: usize, end: bool) -> Option<Window> {
        let carried = self.carry.len();
        if carried <= HEAD {
            let start = HEAD - carried;
            buf.area_mut()[start..HEAD].copy_from_slice(&self.carry);
            let read = &buf.area()[HEAD..HEAD + got];
            // The carry holds no newline: only the new bytes can end a line.
            let keep = if end {
                Some(got)
            } else {
                memchr::memrchr(b'\n', read).map(|i| i + 1)
            };
            let Some(keep) = keep else {
                self.carry.extend_from_slice(read);
                self.give_back(buf);
                return None;
            };
            self.carry.clear();
            self.carry.extend_from_slice(&read[keep..]);
            let range = start..HEAD + keep;
            Some(self.window(Bytes::Pooled(buf, self.pool.0.clone()), range))
        } else {
            self.carry.extend_from_slice(&buf.area()[HEAD..HEAD + got]);
            self.give_back(buf);
            let keep = if end {
                Some(self.carry.len())
            } else {
                memchr::memrchr(b'\n', &self.carry[carried..]).map(|i| carried + i + 1)
            };
            let keep = keep?;
            let rest = self.carry.split_off(keep);
            let whole = std::mem::replace(&mut self.carry, rest);
            Some(self.window(Bytes::Owned(whole), 0..keep))
        }
    }

    fn window(&mut self, bytes: Bytes, range: Range<usize>) -> Window {
        let offset = self.emitted;
        self.emitted += range.len() as u64;
        self.counter
            .fetch_add(range.len() as u64, Ordering::Relaxed);
        Window {
            bytes,
            range,
            offset,
        }
    }

    fn give_back(&self, buf: Aligned) {
        let _ = self.pool.0.try_send(buf);
    }
}

#[cfg(test)]
#[path = "windows_tests.rs"]
mod tests;
