//! The one way a CSV input can fail to split into records.

/// A quoted field that is never closed: everything after its opening quote
/// would be one field, so the input is refused instead.
///
/// Named by its *opening* quote, which is where a person fixing the file
/// needs to look (the end of the input, where the problem is noticed, is
/// usually far away).
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, Records, UnterminatedQuote};
/// let mut records = Records::new(b"a,b\nc,\"d\ne\n", Dialect::CSV);
/// assert_eq!(records.next().unwrap().unwrap().raw(), b"a,b\n");
/// let err = records.next().unwrap().unwrap_err();
/// assert_eq!(err, UnterminatedQuote { offset: 6, line: 2 });
/// assert_eq!(
///     err.to_string(),
///     "unterminated quote: the quoted field opened at line 2, byte offset 6 is never closed"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "unterminated quote: the quoted field opened at line {line}, byte offset {offset} is never closed"
)]
pub struct UnterminatedQuote {
    /// Byte offset of the opening quote in the input.
    pub offset: u64,
    /// Line of the opening quote, counting from 1.
    pub line: u64,
}
