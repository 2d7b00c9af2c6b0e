//! A place in a text input, for error messages and for numbering records
//! that start mid-input.

/// A place in the input: byte offset and line (counting from 1).
///
/// Every splitter here starts at [`Position::START`] unless told where its
/// bytes begin (`starting_at`), and names the places it reports this way.
///
/// # Examples
///
/// ```
/// use spool::text::{PlainRecords, Position};
///
/// // A block read from the middle of a file: its first record is line 10,
/// // at byte 512.
/// let block = b"ten\neleven\n";
/// let start = Position { offset: 512, line: 10 };
/// let records: Vec<_> = PlainRecords::new(block, b'\n')
///     .starting_at(start)
///     .map(|r| (r.line(), r.offset()))
///     .collect();
/// assert_eq!(records, [(10, 512), (11, 516)]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Byte offset from the start of the input.
    pub offset: u64,
    /// Line of the byte at `offset`, counting from 1 (lines end at LF).
    pub line: u64,
}

impl Position {
    /// The start of an input: offset 0, line 1.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::Position;
    /// assert_eq!(Position::START, Position { offset: 0, line: 1 });
    /// ```
    pub const START: Position = Position { offset: 0, line: 1 };
}
