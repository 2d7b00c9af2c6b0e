//! An input read the way the read-ahead reader reads CSV: buffers of
//! `buffer_len` bytes, grown while no record ends in them, cut and indexed
//! by a `BlockCutter`, the tail after each cut carried into the next; each
//! block's records read off its index. Shared by the tests and the
//! `csv_split` fuzz target.

use spool::text::csv::{
    BlockCutter, BlockIndex, Dialect, IndexedRecords, Record, UnterminatedQuote,
};
use spool::text::Position;

/// `see` applied to every record (or error) of `input`, in order. Checks
/// that each cut is at or after the buffer's first record end, and the
/// line the cutter gives after it.
pub fn through_blocks<T>(
    input: &[u8],
    dialect: Dialect,
    buffer_len: usize,
    mut see: impl FnMut(Result<Record<'_>, UnterminatedQuote>) -> T,
) -> Vec<T> {
    let mut cutter = BlockCutter::new(dialect);
    let mut index = BlockIndex::for_block_len(buffer_len);
    let (mut at, mut offset, mut line) = (0, 0u64, 1u64);
    let mut buf: Vec<u8> = Vec::new();
    let mut out = Vec::new();
    loop {
        let mut want = buffer_len.max(buf.len() + 1);
        index.clear();
        let (cut, eof) = loop {
            let take = want.saturating_sub(buf.len()).min(input.len() - at);
            buf.extend_from_slice(&input[at..at + take]);
            at += take;
            let eof = at == input.len();
            match cutter.scan(&buf, eof, &mut index) {
                _ if eof => break (buf.len(), true),
                Some(end) => {
                    assert!(cutter.first_end().unwrap() <= end);
                    break (end, false);
                }
                None => want = 2 * buf.len(),
            }
        };
        let block = &buf[..cut];
        out.extend(
            IndexedRecords::new(block, &index, dialect)
                .starting_at(Position { offset, line })
                .map(&mut see),
        );
        if eof {
            return out;
        }
        cutter.cut(&buf, cut);
        let lines = block.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(
            cutter.first_line(),
            line + lines,
            "line after the cut at {cut}"
        );
        line += lines;
        offset += cut as u64;
        buf.drain(..cut);
    }
}
