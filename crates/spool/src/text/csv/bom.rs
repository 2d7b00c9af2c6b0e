//! The UTF-8 byte order mark some tools (Excel among them) write before
//! the first record.

/// The UTF-8 encoding of U+FEFF.
pub const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// `input` without a UTF-8 byte order mark at its start: what to split
/// into records, so the mark is not read as part of the first field (and
/// a quote right after it still opens a quoted field).
///
/// [`RecordCutter`](super::RecordCutter) skips the mark by itself; this is
/// for the first block handed to [`Records`](super::Records).
///
/// # Examples
///
/// ```
/// use spool::text::csv::{strip_bom, Dialect, Records};
/// use spool::text::Position;
/// let input = b"\xEF\xBB\xBF\"id\",name\n";
/// let body = strip_bom(input);
/// let offset = (input.len() - body.len()) as u64;
/// let header = Records::new(body, Dialect::CSV)
///     .starting_at(Position { offset, line: 1 })
///     .next()
///     .unwrap()?;
/// let names: Vec<_> = header.fields().map(|f| f.value().into_owned()).collect();
/// assert_eq!(names, [b"id".to_vec(), b"name".to_vec()]);
/// assert_eq!(header.offset(), 3);
/// assert_eq!(strip_bom(b"id"), b"id");
/// # Ok::<(), spool::text::csv::UnterminatedQuote>(())
/// ```
pub fn strip_bom(input: &[u8]) -> &[u8] {
    input.strip_prefix(BOM).unwrap_or(input)
}
