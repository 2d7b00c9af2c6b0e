//! A plain input file read through memory maps, one window of whole lines
//! at a time, instead of `read` calls.
//!
//! `read` copies every byte out of the page cache into a buffer before the
//! parser looks at it; on a 465 MB sample that copy was the largest single
//! cost of a build after the sort (see docs/perf/pwned-build-history.md). A map lets the
//! parsing threads read the page cache's own pages. Each window is its own
//! map, unmapped when its chunk is dropped, so the process holds only the
//! windows in flight (a few MiB), as with the read-ahead ring.
//!
//! ```text
//!  file:  [ ... window k: lines ... |partial line][ window k+1 ...
//!                                   ^ window k ends at its last '\n';
//!                                     window k+1 starts right after it
//! ```
//!
//! A window ends at its last newline; one holding no newline (a line
//! longer than the window) is mapped again twice as large until it holds
//! one or reaches the end of the file.
//!
//! # Soundness
//!
//! Mapping a file is `unsafe` because the bytes behind the slice change if
//! another process writes the file while it is mapped (and a shrinking
//! file turns reads past its new end into `SIGBUS`). The build's inputs
//! are files the user hands it to read, like `read` would, and the maps
//! are read-only and private: nothing in this process writes them. A file
//! rewritten during the build gives wrong or malformed lines — which `read`
//! would give as well — and only a file truncated during the build ends
//! the process instead of failing with an error, the same trade ripgrep
//! makes for its maps. Only regular files are mapped (`build.rs` streams
//! pipes, standard input and compressed files through `read`).

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use memmap2::{Advice, Mmap, MmapOptions};

/// Bytes per window (before it is cut back to its last newline). Each
/// window becomes one batch of records (24 bytes each, about half the
/// text), and a build holds a few batches per thread at the end of the
/// parse, when the arena is at its largest: 1 MiB windows put about 1 MiB
/// more on the peak of a 10M-line build than 512 KiB ones; 256 KiB ones
/// no less, but 5% more instructions (more, shorter runs per bucket).
pub const WINDOW: usize = 1 << 19;

/// One window of whole lines, mapped; unmapped on drop.
pub struct Window {
    map: Mmap,
    len: usize,
    /// Byte offset of the window's first byte in the file.
    pub offset: u64,
}

impl Window {
    /// The window's lines: whole lines, each ended by `\n` except possibly
    /// the file's last.
    pub fn bytes(&self) -> &[u8] {
        &self.map[..self.len]
    }
}

/// The windows of `file` (a regular file of `len` bytes), each about
/// `window` bytes of whole lines, in order; the bytes mapped are added to
/// `counter` (for progress).
///
/// # Errors
///
/// Each item may be an error from mapping the file (the caller adds its
/// name).
pub fn windows(
    file: File,
    len: u64,
    window: usize,
    counter: Arc<AtomicU64>,
) -> impl Iterator<Item = io::Result<Window>> {
    let mut at = 0u64;
    std::iter::from_fn(move || {
        if at >= len {
            return None;
        }
        let next = cut(&file, at, len, window.max(1));
        if let Ok(w) = &next {
            at += w.len as u64;
            counter.fetch_add(w.len as u64, Ordering::Relaxed);
        } else {
            at = len;
        }
        Some(next)
    })
}

/// Maps the window starting at `at` and cuts it back to its last newline,
/// growing it while it holds none.
fn cut(file: &File, at: u64, len: u64, mut window: usize) -> io::Result<Window> {
    loop {
        let end = len.min(at.saturating_add(window as u64));
        let map = map(file, at, (end - at) as usize)?;
        let keep = if end == len {
            Some(map.len())
        } else {
            memchr::memrchr(b'\n', &map).map(|i| i + 1)
        };
        if let Some(keep) = keep {
            return Ok(Window {
                map,
                len: keep,
                offset: at,
            });
        }
        window = window.saturating_mul(2);
    }
}

#[allow(unsafe_code)]
fn map(file: &File, offset: u64, len: usize) -> io::Result<Mmap> {
    // SAFETY: a read-only, private map of a regular file that this process
    // never writes; see the module docs for what another writer can do.
    let map = unsafe { MmapOptions::new().offset(offset).len(len).map(file)? };
    // Hints only: read the window ahead as one run, and start now.
    #[cfg(unix)]
    {
        let _ = map.advise(Advice::Sequential);
        let _ = map.advise(Advice::WillNeed);
    }
    Ok(map)
}

#[cfg(test)]
/// Checks that `got` is `text` in order, in windows that end at line
/// ends (but the last) and know their offsets: the windows of either
/// reader of plain files (this one or `direct_input`).
pub(crate) fn check_cover(got: &[(u64, Vec<u8>)], text: &[u8], what: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn all(text: &[u8], window: usize) -> Vec<(u64, Vec<u8>)> {
        let path = std::env::temp_dir().join(format!(
            "spool-mapped-{}-{window}-{}",
            std::process::id(),
            text.len()
        ));
        std::fs::File::create(&path)
            .unwrap()
            .write_all(text)
            .unwrap();
        let file = File::open(&path).unwrap();
        let counter = Arc::new(AtomicU64::new(0));
        let got: Vec<(u64, Vec<u8>)> = windows(file, text.len() as u64, window, counter.clone())
            .map(|w| {
                let w = w.unwrap();
                (w.offset, w.bytes().to_vec())
            })
            .collect();
        assert_eq!(counter.load(Ordering::Relaxed), text.len() as u64);
        std::fs::remove_file(&path).unwrap();
        got
    }

    #[test]
    fn windows_cover_the_file_in_whole_lines() {
        let text: Vec<u8> = (0..2000)
            .flat_map(|i| format!("line {i} {}\r\n", "x".repeat(i % 37)).into_bytes())
            .collect();
        for window in [1, 7, 64, 4096, 5000, 1 << 20] {
            for tail in [&b""[..], b"last line without newline"] {
                let mut text = text.clone();
                text.extend_from_slice(tail);
                let got = all(&text, window);
                check_cover(&got, &text, &format!("window {window}"));
            }
        }
    }

    #[test]
    fn a_line_longer_than_the_window_grows_it() {
        let mut text = b"short\n".to_vec();
        text.extend(std::iter::repeat_n(b'a', 10_000));
        text.extend_from_slice(b"\nafter\n");
        let got = all(&text, 16);
        assert_eq!(got[0], (0, b"short\n".to_vec()));
        // The window grew to hold the long line whole (and, grown past the
        // end of the file, whatever follows it).
        assert_eq!(got[1].0, 6);
        assert!(got[1].1.starts_with(&text[6..10_007]), "{}", got[1].1.len());
        let joined: Vec<u8> = got.iter().flat_map(|(_, b)| b.clone()).collect();
        assert_eq!(joined, text);
    }

    #[test]
    fn an_empty_file_has_no_windows() {
        assert!(all(b"", 16).is_empty());
    }
}
