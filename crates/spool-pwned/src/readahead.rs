//! Lines for the index builder, from `spool_io`'s read-ahead
//! [`ChunkReader`]: a reader thread fills recycled 1 MiB buffers
//! (decompressing on the way) and cuts them at line ends, so this thread
//! only splits and parses, and no line is ever copied.

use std::io::{self, Read};

use spool_io::read::{ChunkReader, ReadOptions};

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
}
