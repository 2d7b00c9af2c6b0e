//! The index written on the build's disk and on tmpfs is the same and
//! reads back, whatever the length of its last page and whether its body
//! fits the write buffer, and a failed write leaves nothing under the
//! final name.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::format::HashKind;
use crate::lookup::Index;

use super::super::full::IndexWriter;

/// A directory on the build's disk (the test binary's), not a tmpfs.
fn disk_dir() -> tempfile::TempDir {
    let exe = std::env::current_exe().unwrap();
    tempfile::tempdir_in(exe.parent().unwrap()).unwrap()
}

fn hash(i: u32) -> [u8; 20] {
    let mut h = [0u8; 20];
    // Spread over the prefixes, ascending in `i`.
    h[..4].copy_from_slice(&i.wrapping_mul(65_537).to_be_bytes());
    h[4..8].copy_from_slice(&i.to_be_bytes());
    h
}

/// An index of `n` hashes at `dir/name`; its bytes.
fn write(dir: &Path, name: &str, n: u32) -> (PathBuf, Vec<u8>) {
    let path = dir.join(name);
    let mut w = IndexWriter::create(&path, HashKind::Sha1).unwrap();
    for i in 0..n {
        w.push(&hash(i), i + 1).unwrap();
    }
    w.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

#[test]
fn same_bytes_on_disk_and_tmpfs_whatever_the_tail() {
    let disk = disk_dir();
    let shm = tempfile::tempdir_in("/dev/shm").ok();
    // 0 (an empty index), a body ending on a page boundary or not, one
    // longer than the write buffer.
    for n in [0, 1, 185, 186, 187, 4_000, 60_000] {
        let (path, on_disk) = write(disk.path(), &format!("d{n}"), n);
        assert_ne!(
            on_disk.len() % 4096,
            0,
            "n {n}: the tail is not a whole page"
        );
        let index = Index::open(&path).unwrap();
        index.verify().unwrap();
        for i in [0, n / 2, n.saturating_sub(1)]
            .into_iter()
            .filter(|&i| i < n)
        {
            assert_eq!(
                index.lookup(&hash(i)).unwrap(),
                Some(i + 1),
                "n {n}, hash {i}"
            );
        }
        if let Some(shm) = &shm {
            let (_, in_memory) = write(shm.path(), &format!("m{n}"), n);
            assert!(
                on_disk == in_memory,
                "n {n}: the bytes on disk and on tmpfs differ"
            );
        }
    }
}

#[test]
fn a_write_error_leaves_no_file() {
    let dir = disk_dir();
    let target = dir.path().join("idx");
    let mut w = super::BodyWriter::create(&target, 64 + 8, 8).unwrap();
    for _ in 0..1_000_000 {
        w.write(&[7u8; 3]).unwrap();
    }
    // The temporary file's descriptor swapped for a read-only one: the
    // staged bytes, written through it, fail.
    let read_only = dir.path().join("ro");
    std::fs::write(&read_only, b"").unwrap();
    *w.file.file() = File::open(&read_only).unwrap();
    let temp = w.temp().to_path_buf();
    assert!(
        w.flush().is_err(),
        "a write to a read-only descriptor fails"
    );
    drop(w);
    assert!(!target.exists(), "nothing under the final name");
    assert!(!temp.exists(), "the temporary file is removed");
}
