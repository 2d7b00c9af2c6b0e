//! A plain input file read with `O_DIRECT` into a few reused, aligned
//! buffers, one window of whole lines at a time.
//!
//! Read through maps ([`mapped_input`](crate::mapped_input)), a cold file
//! costs the kernel a page-cache page for every 4 KiB of input (allocated,
//! filled by readahead, faulted into the process, and dropped later): on
//! a 465 MB sample that was most of a build's system time after the
//! arena's zeroing. With `O_DIRECT` the device writes straight into the
//! buffers below: no page-cache folios, no page faults, no copy. The same
//! few buffers serve the whole file, so their pages are faulted in once.
//!
//! ```text
//!  buffer:  [ .... HEAD .... | ...... read area (WINDOW bytes) ...... ]
//!                 [carry     |  bytes read at an aligned file offset ]
//!                  ^ the previous read's partial last line, copied in
//!  window = carry + read bytes up to their last '\n'
//! ```
//!
//! Reads start at aligned file offsets and fill the aligned read area, so
//! a partial last line cannot be read again with the next window: it is
//! copied into the room before the next read area (`HEAD` bytes, more than
//! any well-formed line). A line longer than that room (malformed input,
//! or a line longer than a window) is gathered in an owned buffer instead,
//! however many reads it takes: slower, but the same bytes.
//!
//! # When it is used
//!
//! Only on Linux, for regular files whose file system takes `O_DIRECT`
//! reads (not memory-backed ones such as tmpfs, where a map reads the
//! pages in place), and only if the first read works: anything else hands
//! the file back for the mapped path. So is a file that the page cache
//! holds already (most of 16 bytes spread over it there, asked for with
//! `RWF_NOWAIT`): mapping it reads those pages in place, while direct reads
//! would go to the disk again (measured: twice the wall time and more CPU
//! on a warm 465 MB sample). A file partly cached either way gives the
//! same bytes (the kernel writes dirty pages back before a direct read).
//!
//! The reads are made on the thread that takes the windows (the build's
//! main thread, which hands them to the parsing threads), not on a reader
//! thread of their own: that one woke a thread twice more per window (the
//! window handed over, its buffer handed back), and on this kind of
//! machine the wake-ups cost more CPU than the overlap of reading and
//! dealing saved in wall time (see BENCHMARKS.md).
//!
//! # Bounds
//!
//! At most `buffers` buffers of `HEAD + window` bytes (anonymous maps,
//! page-aligned) are ever allocated; the reader waits for one to come back
//! before reading on, and they are unmapped when the file is done. Lines
//! longer than `HEAD` are gathered in an owned vector as long as the line
//! (as the mapped path maps a window as long as the line).

use std::fs::File;
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;

/// Alignment of buffers, file offsets and read lengths: the largest
/// logical block size of common devices (512 and 4096 bytes).
pub const ALIGN: usize = 4096;
/// Room before the read area for a carried partial line.
const HEAD: usize = ALIGN;

/// One window of whole lines, in a pooled buffer (given back on drop) or,
/// for a line longer than the carry room, an owned one.
pub struct Window {
    bytes: Bytes,
    range: Range<usize>,
    /// Byte offset of the window's first byte in the file.
    pub offset: u64,
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

/// The windows of `file` (a regular file of `len` bytes), each about
/// `window` bytes (a multiple of [`ALIGN`]) of whole lines, in order, read
/// with `O_DIRECT` into at most `buffers` buffers (each read made as the
/// iterator is advanced; it waits for a buffer if all are taken); the
/// bytes of each window are added to `counter` as it is read.
///
/// Advancing the iterator while the caller's own thread holds all
/// `buffers` windows waits forever: windows must be dropped (or handed to
/// threads that drop them without waiting for the caller).
///
/// # Errors
///
/// `Err(file)` — the file given back, its flags as they were — if the
/// page cache holds most of the file already (mapping it then reads those
/// pages in place, while a direct read would go to the disk again) or the
/// file cannot be read so (not Linux, a memory-backed file system, a file
/// system that refuses `O_DIRECT`, or a failed first read): read it
/// another way. Later items may be read errors (the caller adds the name).
pub fn windows(
    file: File,
    len: u64,
    window: usize,
    buffers: usize,
    counter: Arc<AtomicU64>,
) -> Result<impl Iterator<Item = io::Result<Window>>, File> {
    let mut missed = Vec::new();
    if direct::cached(&file, len, &mut missed) {
        return Err(file);
    }
    uncached_windows(file, len, window, buffers, counter, missed)
}

/// [`windows`] read with `O_DIRECT` whether or not the page cache holds
/// the file; the pages holding `missed` are dropped from the page cache
/// once the file is read.
fn uncached_windows(
    file: File,
    len: u64,
    window: usize,
    buffers: usize,
    counter: Arc<AtomicU64>,
    missed: Vec<u64>,
) -> Result<impl Iterator<Item = io::Result<Window>>, File> {
    assert!(
        window > 0 && window.is_multiple_of(ALIGN),
        "window {window}"
    );
    let file = direct::enable(file)?;
    let Ok(mut first) = Aligned::new(HEAD + window) else {
        return Err(direct::disable(file));
    };
    let got = match read_area(&file, &mut first, 0, len) {
        Ok(got) => got,
        Err(_) => return Err(direct::disable(file)),
    };
    let mut reader = Reader {
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
    };
    Ok(std::iter::from_fn(move || reader.next_window()))
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

/// The reads' state.
struct Reader {
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

impl Reader {
    /// The next window, reading as often as it takes (a line longer than
    /// a read takes several); `None` after the file's end or an error.
    fn next_window(&mut self) -> Option<io::Result<Window>> {
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
                direct::forget(&self.file, &std::mem::take(&mut self.missed));
            }
            match self.cut(buf, got, self.done) {
                Some(w) if !w.range.is_empty() => return Some(Ok(w)),
                _ => {}
            }
        }
        None
    }

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

#[cfg(target_os = "linux")]
mod direct {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, fstatfs, OFlags};
    use std::fs::File;

    /// File systems whose pages live in memory: a map reads them in place.
    const MEMORY_BACKED: [i64; 2] = [0x0102_1994 /* tmpfs */, 0x8584_58f6 /* ramfs */];

    /// Places sampled for [`cached`].
    const SAMPLES: u64 = 16;

    /// Whether the page cache holds most of `file` (of `len` bytes): most
    /// of [`SAMPLES`] bytes spread over it are there, asked for with
    /// `RWF_NOWAIT` (which fails rather than wait for the disk). Read
    /// ahead is turned off meanwhile, so a miss reads at most its page;
    /// the offsets missed are added to `missed`, for [`forget`] to drop
    /// those pages again once read (else the next build would find them).
    pub fn cached(file: &File, len: u64, missed: &mut Vec<u64>) -> bool {
        use rustix::fs::{fadvise, Advice};
        use rustix::io::{preadv2, ReadWriteFlags};
        let _ = fadvise(file, 0, None, Advice::Random);
        let mut byte = [0u8; 1];
        let mut hits = 0;
        for i in 0..SAMPLES {
            let at = len / SAMPLES * i + len / (2 * SAMPLES);
            let mut bufs = [std::io::IoSliceMut::new(&mut byte)];
            match preadv2(file, &mut bufs, at, ReadWriteFlags::NOWAIT) {
                Ok(1) => hits += 1,
                _ => missed.push(at),
            }
        }
        let _ = fadvise(file, 0, None, Advice::Normal);
        hits * 2 > SAMPLES
    }

    /// Drops the pages holding `offsets` from the page cache (see
    /// [`cached`]); pages still being read stay, which costs nothing but
    /// their memory.
    pub fn forget(file: &File, offsets: &[u64]) {
        let page = super::ALIGN as u64;
        for &at in offsets {
            let len = std::num::NonZeroU64::new(page);
            let _ = rustix::fs::fadvise(file, at / page * page, len, rustix::fs::Advice::DontNeed);
        }
    }

    /// Turns `O_DIRECT` on for `file`, or gives it back.
    pub fn enable(file: File) -> Result<File, File> {
        // `f_type`'s integer type differs between targets.
        #[allow(clippy::unnecessary_cast)]
        let in_memory = fstatfs(&file).map_or(true, |s| MEMORY_BACKED.contains(&(s.f_type as i64)));
        let Ok(flags) = fcntl_getfl(&file) else {
            return Err(file);
        };
        if in_memory || fcntl_setfl(&file, flags | OFlags::DIRECT).is_err() {
            return Err(file);
        }
        Ok(file)
    }

    /// Turns `O_DIRECT` off again (for the fallback path).
    pub fn disable(file: File) -> File {
        if let Ok(flags) = fcntl_getfl(&file) {
            let _ = fcntl_setfl(&file, flags - OFlags::DIRECT);
        }
        file
    }
}

#[cfg(not(target_os = "linux"))]
mod direct {
    use std::fs::File;

    pub fn cached(_: &File, _: u64, _: &mut Vec<u64>) -> bool {
        false
    }

    pub fn forget(_: &File, _: &[u64]) {}

    pub fn enable(file: File) -> Result<File, File> {
        Err(file)
    }

    pub fn disable(file: File) -> File {
        file
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// A file name in `dir` no other test uses (tests run in parallel).
    fn unique(dir: &Path, what: &str) -> PathBuf {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        dir.join(format!("spool-direct-{what}-{}-{n}", std::process::id()))
    }

    /// A directory whose file system takes `O_DIRECT` reads: the temporary
    /// directory, or else the one the test binary is in (on the build's
    /// disk); `None` if neither does (then the direct path cannot be tested
    /// here, and the tests say so).
    fn direct_dir() -> Option<PathBuf> {
        let exe_dir = std::env::current_exe().ok()?.parent()?.to_path_buf();
        [std::env::temp_dir(), exe_dir].into_iter().find(|dir| {
            let path = unique(dir, "probe");
            let ok = std::fs::write(&path, b"x\n").is_ok()
                && uncached_windows(
                    File::open(&path).unwrap(),
                    2,
                    ALIGN,
                    2,
                    Arc::default(),
                    Vec::new(),
                )
                .is_ok();
            let _ = std::fs::remove_file(&path);
            ok
        })
    }

    /// The windows of `text` written to a file in `dir`, as (offset,
    /// bytes), checking the progress counter.
    fn all(
        dir: &std::path::Path,
        text: &[u8],
        window: usize,
        buffers: usize,
    ) -> Vec<(u64, Vec<u8>)> {
        let path = unique(dir, "windows");
        std::fs::write(&path, text).unwrap();
        let file = File::open(&path).unwrap();
        let counter = Arc::new(AtomicU64::new(0));
        let got: Vec<(u64, Vec<u8>)> = uncached_windows(
            file,
            text.len() as u64,
            window,
            buffers,
            counter.clone(),
            Vec::new(),
        )
        .unwrap_or_else(|_| panic!("no direct reads in {}", dir.display()))
        .map(|w| {
            let w = w.unwrap();
            (w.offset, w.bytes().to_vec())
        })
        .collect();
        assert_eq!(counter.load(Ordering::Relaxed), text.len() as u64);
        std::fs::remove_file(&path).unwrap();
        got
    }

    /// Checks that `got` is `text` in order, in windows that end at line
    /// ends (but the last) and know their offsets.
    fn check_cover(got: &[(u64, Vec<u8>)], text: &[u8], what: &str) {
        let mut joined = Vec::new();
        for (offset, bytes) in got {
            assert_eq!(*offset, joined.len() as u64, "{what}");
            assert!(!bytes.is_empty(), "{what}");
            joined.extend_from_slice(bytes);
            if joined.len() < text.len() {
                assert_eq!(bytes.last(), Some(&b'\n'), "{what}");
            }
        }
        assert!(
            joined == text,
            "{what}: {} bytes of {}",
            joined.len(),
            text.len()
        );
    }

    #[test]
    fn windows_cover_the_file_in_whole_lines() {
        let Some(dir) = direct_dir() else {
            eprintln!("no file system here takes O_DIRECT: direct reads not tested");
            return;
        };
        let lines: Vec<u8> = (0..3000)
            .flat_map(|i| format!("line {i} {}\r\n", "x".repeat(i % 61)).into_bytes())
            .collect();
        // Lines cross every read's end; sizes that are and are not
        // multiples of the alignment; a tail without a newline.
        for len in [lines.len(), 3 * ALIGN, 3 * ALIGN + 1, 2 * ALIGN - 1] {
            for tail in [&b""[..], b"last line without newline"] {
                let mut text = lines[..len].to_vec();
                text.extend_from_slice(tail);
                for (window, buffers) in [(ALIGN, 2), (2 * ALIGN, 3), (5 * ALIGN, 4)] {
                    let got = all(&dir, &text, window, buffers);
                    check_cover(&got, &text, &format!("len {len}, window {window}"));
                }
            }
        }
    }

    #[test]
    fn short_and_empty_files() {
        let Some(dir) = direct_dir() else {
            return;
        };
        assert!(all(&dir, b"", ALIGN, 2).is_empty());
        // Shorter than one read, with and without a last newline.
        for text in [&b"a:1\n"[..], b"a:1\nb:2", b"\n", b"x"] {
            assert_eq!(all(&dir, text, 4 * ALIGN, 2), [(0, text.to_vec())]);
        }
    }

    #[test]
    fn lines_longer_than_the_carry_room_or_the_window() {
        let Some(dir) = direct_dir() else {
            return;
        };
        let mut text = b"short\n".to_vec();
        for long in [HEAD + 1, 3 * ALIGN + 17, 40_000] {
            text.extend(std::iter::repeat_n(b'a', long));
            text.extend_from_slice(b"\nafter\r\n");
        }
        let mut unended = text.clone();
        unended.extend(std::iter::repeat_n(b'z', 3 * ALIGN));
        for text in [&text, &unended] {
            for window in [ALIGN, 2 * ALIGN, 16 * ALIGN] {
                let got = all(&dir, text, window, 2);
                check_cover(&got, text, &format!("window {window}"));
            }
        }
    }

    #[test]
    fn a_build_that_stops_early_ends_the_reader() {
        let Some(dir) = direct_dir() else {
            return;
        };
        let text: Vec<u8> = (0..100_000)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let path = unique(&dir, "stop");
        std::fs::write(&path, &text).unwrap();
        let mut windows = uncached_windows(
            File::open(&path).unwrap(),
            text.len() as u64,
            ALIGN,
            2,
            Arc::default(),
            Vec::new(),
        )
        .unwrap_or_else(|_| panic!("no direct reads"));
        // Holding windows while taking more would wait for a free buffer;
        // dropping them gives their buffers back.
        for _ in 0..5 {
            let w = windows.next().unwrap().unwrap();
            assert_eq!(w.bytes().last(), Some(&b'\n'));
        }
        drop(windows);
        std::fs::remove_file(&path).unwrap();
    }

    /// A memory-backed file is handed back, readable as before.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_file_in_memory_is_handed_back() {
        let dir = Path::new("/dev/shm");
        if !dir.is_dir() {
            return;
        }
        let path = unique(dir, "shm");
        std::fs::write(&path, b"a:1\nb:2\n").unwrap();
        let file = File::open(&path).unwrap();
        let Err(file) = windows(file, 8, ALIGN, 2, Arc::default()) else {
            panic!("tmpfs read with O_DIRECT");
        };
        let flags = rustix::fs::fcntl_getfl(&file).unwrap();
        assert!(!flags.contains(rustix::fs::OFlags::DIRECT));
        let mut back = String::new();
        io::Read::read_to_string(&mut &file, &mut back).unwrap();
        assert_eq!(back, "a:1\nb:2\n");
        std::fs::remove_file(&path).unwrap();
    }

    /// The fallback after a failed first read turns `O_DIRECT` off again.
    #[test]
    #[cfg(target_os = "linux")]
    fn disabling_restores_the_flags() {
        let Some(dir) = direct_dir() else {
            return;
        };
        let path = unique(&dir, "flags");
        std::fs::write(&path, b"a:1\n").unwrap();
        let file = direct::enable(File::open(&path).unwrap()).unwrap_or_else(|_| panic!());
        assert!(rustix::fs::fcntl_getfl(&file)
            .unwrap()
            .contains(rustix::fs::OFlags::DIRECT));
        let file = direct::disable(file);
        assert!(!rustix::fs::fcntl_getfl(&file)
            .unwrap()
            .contains(rustix::fs::OFlags::DIRECT));
        std::fs::remove_file(&path).unwrap();
    }

    /// A file the page cache holds is handed back (a map reads it in
    /// place); once dropped from the cache, it is read directly.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_cached_file_is_handed_back() {
        let Some(dir) = direct_dir() else {
            return;
        };
        let path = unique(&dir, "cached");
        let text: Vec<u8> = (0..200_000)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        std::fs::write(&path, &text).unwrap();
        let file = File::open(&path).unwrap();
        let len = text.len() as u64;
        assert!(direct::cached(&file, len, &mut Vec::new()));
        assert!(windows(file, len, ALIGN, 2, Arc::default()).is_err());
        // Written back and dropped from the cache, the file is read directly.
        let file = File::open(&path).unwrap();
        file.sync_all().unwrap();
        let dropped = rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed);
        if dropped.is_ok() && !direct::cached(&file, len, &mut Vec::new()) {
            let got: Vec<u8> = windows(file, len, ALIGN, 2, Arc::default())
                .unwrap_or_else(|_| panic!("an uncached file is read directly"))
                .flat_map(|w| w.unwrap().bytes().to_vec())
                .collect();
            assert!(got == text);
        }
        std::fs::remove_file(&path).unwrap();
    }
}
