//! The direct writer against the bytes it was given: the same file
//! whatever the offsets and the tail, direct where the file system takes
//! it, through the page cache elsewhere, and errors reported.

use std::io::Write as _;

use super::*;

/// Stages `bytes` from `start` on, in pieces of `piece` bytes, as an
/// index writer does, and finishes.
fn write_through(file: &File, start: u64, bytes: &[u8], piece: usize) -> (bool, u64) {
    let mut out = DirectWriter::new(file, start, 4 * ALIGN).unwrap();
    let direct = out.is_direct();
    for chunk in bytes.chunks(piece) {
        out.appender(file).write_all(chunk).unwrap();
    }
    (direct, out.finish(file).unwrap())
}

/// A directory on the build's disk (the test binary's), not a tmpfs.
fn disk_dir() -> tempfile::TempDir {
    let exe = std::env::current_exe().unwrap();
    tempfile::tempdir_in(exe.parent().unwrap()).unwrap()
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 31 % 251) as u8 + 1).collect()
}

#[test]
fn writes_the_same_bytes_whatever_the_tail() {
    let dir = disk_dir();
    for (start, len) in [
        (0, 0),
        (100, 0),
        (0, 4096),
        (700, 5000),
        (4096, 3 * 4096 + 1),
        (5000, 70_001),
    ] {
        let path = dir.path().join("f");
        let file = File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let body = bytes(len);
        let (_, end) = write_through(&file, start, &body, 333);
        assert_eq!(end, start + len as u64);
        // What precedes `start` is the caller's to write: here, ones.
        file.write_all_at(&vec![1u8; start as usize], 0).unwrap();
        let got = std::fs::read(&path).unwrap();
        let mut want = vec![1u8; start as usize];
        want.extend_from_slice(&body);
        assert_eq!(got.len(), want.len(), "start {start} len {len}");
        assert!(got == want, "start {start} len {len}");
    }
}

#[test]
#[cfg(target_os = "linux")]
fn is_direct_on_a_disk_file_system() {
    // Direct wherever the file system takes the flag (a probe file in the
    // same directory says whether it does), and the flag set then.
    let dir = disk_dir();
    let probe = tempfile::tempfile_in(dir.path()).unwrap();
    let takes_it = os::set(&probe);
    let file = tempfile::tempfile_in(dir.path()).unwrap();
    let out = DirectWriter::new(&file, 0, 4 * ALIGN).unwrap();
    assert_eq!(out.is_direct(), takes_it);
    let flags = rustix::fs::fcntl_getfl(&file).unwrap();
    assert_eq!(out.is_direct(), flags.contains(rustix::fs::OFlags::DIRECT));
}

#[test]
#[cfg(target_os = "linux")]
fn falls_back_on_tmpfs() {
    let Ok(dir) = tempfile::tempdir_in("/dev/shm") else {
        return;
    };
    let path = dir.path().join("f");
    let file = File::create(&path).unwrap();
    let body = bytes(10_000);
    let (direct, end) = write_through(&file, 10, &body, 1000);
    assert!(!direct, "tmpfs takes the page-cache path");
    assert_eq!(end, 10_010);
    assert_eq!(&std::fs::read(&path).unwrap()[10..], &body[..]);
}

#[test]
fn a_write_error_is_reported() {
    // A file opened read-only refuses every write.
    let dir = disk_dir();
    let path = dir.path().join("f");
    std::fs::write(&path, b"").unwrap();
    let file = File::open(&path).unwrap();
    let mut out = DirectWriter::new(&file, 0, 4 * ALIGN).unwrap();
    out.extend(&bytes(ALIGN + 5));
    // Direct, the error comes from the writing thread, at the latest when
    // the writes are finished.
    let written = out.write_out(&file).and_then(|()| out.finish(&file));
    assert!(written.is_err());
}
