//! Lines for the index builder, read ahead on another thread so this one
//! only splits and parses, and no line is ever copied.
//!
//! - [`for_each_line`]: one large stream through `spool_io`'s
//!   [`ChunkReader`], which fills recycled 1 MiB buffers (decompressing on
//!   the way) and cuts them at line ends.
//! - [`for_each_line_in_files`]: many small files (the downloader's range
//!   files, about 30 KB each, a million of them), each read whole into a
//!   recycled buffer by one reader thread that opens them one at a time —
//!   not a thread and a ring of 1 MiB buffers per file.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc;

use spool_io::read::{ChunkReader, ReadOptions, Records};

/// Whole files read ahead by [`for_each_line_in_files`].
const FILES_AHEAD: usize = 16;

/// Calls `f(line, line_number, byte_offset)` for every line of `input`
/// (without its `\n` but with a `\r` if it has one; a last line without a
/// newline is included), reading ahead on another thread. Stops at the
/// first error `f` returns.
///
/// # Errors
///
/// Read errors (including a line over 64 MiB), and whatever `f` returns.
pub fn for_each_line<E: From<io::Error>>(
    input: Box<dyn Read + Send>,
    mut f: impl FnMut(&[u8], u64, u64) -> Result<(), E>,
) -> Result<(), E> {
    ChunkReader::new(input, ReadOptions::default()).for_each_record(|record| {
        let raw = record.raw();
        f(
            raw.strip_suffix(b"\n").unwrap_or(raw),
            record.line(),
            record.offset(),
        )
    })
}

/// Calls `f(file, line, line_number, byte_offset)` for every line of every
/// file in `paths` (in order; `file` indexes `paths`), reading the files
/// whole, a few ahead, on one reader thread. Lines are as in
/// [`for_each_line`]. Stops at the first error.
///
/// # Errors
///
/// A file that cannot be opened or read (naming it), and whatever `f`
/// returns.
pub fn for_each_line_in_files<E: From<io::Error>>(
    paths: &[PathBuf],
    mut f: impl FnMut(usize, &[u8], u64, u64) -> Result<(), E>,
) -> Result<(), E> {
    let (full_tx, full_rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(FILES_AHEAD);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for path in paths {
                let mut buf = empty_rx.try_recv().unwrap_or_default();
                buf.clear();
                let read = crate::input::open_path(path)
                    .and_then(|mut r| r.read_to_end(&mut buf))
                    .map_err(|e| spool_io::input::with_path(e, path));
                let failed = read.is_err();
                if full_tx.send(read.map(|_| buf)).is_err() || failed {
                    return;
                }
            }
        });
        for file in 0..paths.len() {
            let buf = full_rx
                .recv()
                .map_err(|_| io::Error::other("the file reader thread stopped"))??;
            for record in Records::new(&buf, b'\n', 1, 0) {
                let raw = record.raw();
                f(
                    file,
                    raw.strip_suffix(b"\n").unwrap_or(raw),
                    record.line(),
                    record.offset(),
                )?;
            }
            // The reader may have finished: then the buffer is just freed.
            let _ = empty_tx.send(buf);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_is_left_to_the_parser_and_numbers_count_from_one() {
        let mut got = Vec::new();
        for_each_line::<io::Error>(
            Box::new(io::Cursor::new(b"a\r\nb\nc".to_vec())),
            |l, n, o| {
                got.push((l.to_vec(), n, o));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(
            got,
            [
                (b"a\r".to_vec(), 1, 0),
                (b"b".to_vec(), 2, 3),
                (b"c".to_vec(), 3, 5)
            ]
        );
    }

    #[test]
    fn files_are_read_in_order_with_their_own_line_numbers() {
        let dir = std::env::temp_dir().join(format!("spool-readahead-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let paths: Vec<PathBuf> = (0..40)
            .map(|i| {
                let p = dir.join(format!("{i}.txt"));
                std::fs::write(&p, format!("a{i}\r\nb{i}")).unwrap();
                p
            })
            .collect();
        let mut got = Vec::new();
        for_each_line_in_files::<io::Error>(&paths, |file, l, n, o| {
            got.push((file, String::from_utf8(l.to_vec()).unwrap(), n, o));
            Ok(())
        })
        .unwrap();
        assert_eq!(got.len(), 80);
        assert_eq!(got[2], (1, "a1\r".to_string(), 1, 0));
        assert_eq!(got[79], (39, "b39".to_string(), 2, 5));
        let missing = [dir.join("missing.txt")];
        let err = for_each_line_in_files::<io::Error>(&missing, |_, _, _, _| Ok(())).unwrap_err();
        assert!(err.to_string().contains("missing.txt"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
