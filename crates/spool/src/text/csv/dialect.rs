//! Which bytes separate fields and quote them.

/// A dialect's bytes cannot work together; see [`Dialect::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidDialect {
    /// The delimiter or quote is CR or LF, which always end records.
    #[error("{0:?} ends records and cannot be a field delimiter or quote")]
    LineBreak(char),
    /// The quote and the delimiter are the same byte.
    #[error("the quote {0:?} cannot also be the field delimiter")]
    QuoteIsDelimiter(char),
}

/// How fields are separated and quoted.
///
/// Records always end at LF, CRLF or a lone CR (as in the `csv` crate);
/// a quoted field may hold all three as data. With `quote` set, a field
/// that *starts* with the quote byte is quoted: it runs to the next quote
/// that is not doubled, and `""` inside stands for one quote. See the
/// [module docs](super) for every other placement of a quote.
///
/// The fields are private so that every `Dialect` is valid: the delimiter
/// and quote differ and neither is CR or LF.
///
/// # Examples
///
/// ```
/// use spool::text::csv::Dialect;
/// assert_eq!(Dialect::CSV.delimiter(), b',');
/// assert_eq!(Dialect::CSV.quote(), Some(b'"'));
/// assert_eq!(Dialect::TSV.quote(), None); // IANA's TSV has no quoting
/// let semicolons = Dialect::new(b';', Some(b'"'))?;
/// assert_eq!(semicolons.delimiter(), b';');
/// assert!(Dialect::new(b',', Some(b',')).is_err());
/// # Ok::<(), spool::text::csv::InvalidDialect>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    delimiter: u8,
    quote: Option<u8>,
}

impl Dialect {
    /// RFC 4180: comma-separated, fields quoted with `"`.
    pub const CSV: Dialect = Dialect {
        delimiter: b',',
        quote: Some(b'"'),
    };

    /// Tab-separated without quoting: a `"` is data like any other byte.
    pub const TSV: Dialect = Dialect {
        delimiter: b'\t',
        quote: None,
    };

    /// Fields separated by `delimiter` and quoted with `quote` (`None`: no
    /// quoting).
    ///
    /// # Errors
    ///
    /// If either byte is CR or LF, or the two are equal.
    pub const fn new(delimiter: u8, quote: Option<u8>) -> Result<Dialect, InvalidDialect> {
        if delimiter == b'\r' || delimiter == b'\n' {
            return Err(InvalidDialect::LineBreak(delimiter as char));
        }
        if let Some(q) = quote {
            if q == b'\r' || q == b'\n' {
                return Err(InvalidDialect::LineBreak(q as char));
            }
            if q == delimiter {
                return Err(InvalidDialect::QuoteIsDelimiter(q as char));
            }
        }
        Ok(Dialect { delimiter, quote })
    }

    /// The byte between fields.
    #[inline]
    pub const fn delimiter(&self) -> u8 {
        self.delimiter
    }

    /// The byte that encloses a quoted field, if quoting is on.
    #[inline]
    pub const fn quote(&self) -> Option<u8> {
        self.quote
    }
}

impl Default for Dialect {
    /// [`Dialect::CSV`].
    fn default() -> Self {
        Dialect::CSV
    }
}
