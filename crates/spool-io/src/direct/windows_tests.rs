//! The direct reader against the file it reads: windows that cover it in
//! whole lines, whatever the window, the buffers and the line lengths;
//! files handed back where direct reads do not pay or cannot work.

use super::*;
use std::path::{Path, PathBuf};

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
            && DirectWindows::open_uncached(
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
fn all(dir: &std::path::Path, text: &[u8], window: usize, buffers: usize) -> Vec<(u64, Vec<u8>)> {
    let path = unique(dir, "windows");
    std::fs::write(&path, text).unwrap();
    let file = File::open(&path).unwrap();
    let counter = Arc::new(AtomicU64::new(0));
    let got: Vec<(u64, Vec<u8>)> = DirectWindows::open_uncached(
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
        (w.offset(), w.bytes().to_vec())
    })
    .collect();
    assert_eq!(counter.load(Ordering::Relaxed), text.len() as u64);
    std::fs::remove_file(&path).unwrap();
    got
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
    let mut windows = DirectWindows::open_uncached(
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
    let Err(file) = DirectWindows::open(file, 8, ALIGN, 2, Arc::default()) else {
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
    let file = File::open(&path).unwrap();
    assert!(os::set(&file));
    assert!(rustix::fs::fcntl_getfl(&file)
        .unwrap()
        .contains(rustix::fs::OFlags::DIRECT));
    os::clear(&file);
    assert!(!rustix::fs::fcntl_getfl(&file)
        .unwrap()
        .contains(rustix::fs::OFlags::DIRECT));
    std::fs::remove_file(&path).unwrap();
}

/// A file the page cache holds is handed back (reading it copies the
/// cached pages); once dropped from the cache, it is read directly.
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
    assert!(os::cached(&file, len, &mut Vec::new()));
    assert!(DirectWindows::open(file, len, ALIGN, 2, Arc::default()).is_err());
    // Written back and dropped from the cache, the file is read directly.
    // Asking whether a page is cached may start reading it ahead, and a
    // sample read ahead before the check makes the file look cached: so
    // the cache is dropped again before each of a few tries.
    let mut read_directly = false;
    for _ in 0..5 {
        let file = File::open(&path).unwrap();
        file.sync_all().unwrap();
        if rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed).is_err() {
            std::fs::remove_file(&path).unwrap();
            return; // the cache cannot be dropped here
        }
        if let Ok(windows) = DirectWindows::open(file, len, ALIGN, 2, Arc::default()) {
            let got: Vec<u8> = windows.flat_map(|w| w.unwrap().bytes().to_vec()).collect();
            assert!(got == text);
            read_directly = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(read_directly, "an uncached file is read directly");
    std::fs::remove_file(&path).unwrap();
}
