//! The body of a range response, as api.pwnedpasswords.com writes it.
//!
//! For the hashes that start with the five hex digits asked for, one line
//! each, in hash order:
//!
//! ```text
//! 0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n
//! 00D4F6E8FA6EECAD2A3AA415EEC418D38EC:2\r\n
//! ...
//! FFF6E8FA6EECAD2A3AA415EEC418D38EC12:7          <- no line break after the last
//! ```
//!
//! The suffix is the hash's remaining hex digits (35 for SHA-1, 27 for
//! NTLM) in upper case, the count is decimal. Lines are separated by CRLF
//! and the last has none: that is how the official service stores and
//! sends each range, and how its downloader saves them, so a client that
//! worked against the official API parses this body unchanged. A range
//! with no hashes is an empty body (the official API has no empty range).
//!
//! Sans-IO: records in, bytes out; the handler owns the buffer. The lines
//! are written by [`range_body::encode_range_body`], which a download's
//! `--ranges` output shares.

use spool_pwned::range_body;
use spool_pwned::{HashKind, RangeEntries};

pub(crate) use spool_pwned::range_body::HEX_UPPER;

/// Hex digits of a range line's suffix: the hash's digits after the five
/// of the prefix.
pub fn suffix_len(kind: HashKind) -> usize {
    kind.hex_len() - 5
}

/// An upper bound of the bytes [`encode`] appends for `records`: a suffix,
/// a colon, up to ten count digits and a separator per record.
pub fn encoded_len_bound(records: &RangeEntries<'_>) -> usize {
    range_body::encoded_len_bound(records.kind(), records.len())
}

/// Appends the range body of `records` (all of one range prefix, in hash
/// order) to `out`.
///
/// # Examples
///
/// ```
/// use spool_pwned::{build::{build, BuildOptions, Source}, Index};
/// let dir = std::env::temp_dir().join(format!("spool-serve-range-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let text = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:10\n5BAA6FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:2\n";
/// let out = dir.join("index");
/// build(vec![Source::from_reader("doc", text.as_bytes())], &out, &BuildOptions::default()).unwrap();
/// let index = Index::open(&out).unwrap();
/// let mut body = Vec::new();
/// spool_serve::range::encode(index.range(0x5BAA6).unwrap(), &mut body);
/// assert_eq!(body, b"1E4C9B93F3F0682250B6CF8331B7EE68FD8:10\r\nFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF:2");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn encode(records: RangeEntries<'_>, out: &mut Vec<u8>) {
    out.reserve(encoded_len_bound(&records));
    range_body::encode_range_body(records.iter().map(|r| (r.key(), r.count())), out);
}

/// Parses a range prefix: exactly five hex digits, either case.
///
/// # Errors
///
/// A one-line reason, for a 400 response.
///
/// # Examples
///
/// ```
/// assert_eq!(spool_serve::range::parse_prefix(b"5baa6"), Ok(0x5BAA6));
/// assert!(spool_serve::range::parse_prefix(b"5BAA").is_err());
/// assert!(spool_serve::range::parse_prefix(b"5BAAG").is_err());
/// ```
pub fn parse_prefix(text: &[u8]) -> Result<u32, String> {
    if text.len() != 5 {
        return Err(format!(
            "the hash prefix must be 5 hex digits, not {} characters",
            text.len()
        ));
    }
    text.iter()
        .try_fold(0u32, |acc, &c| match (c as char).to_digit(16) {
            Some(d) => Ok(acc << 4 | d),
            None => Err("the hash prefix is not hexadecimal".to_string()),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_parse_in_either_case_and_nothing_else_does() {
        assert_eq!(parse_prefix(b"00000"), Ok(0));
        assert_eq!(parse_prefix(b"FFFFF"), Ok(0xFFFFF));
        assert_eq!(parse_prefix(b"aBcDe"), Ok(0xABCDE));
        for bad in [
            &b""[..],
            b"ABCD",
            b"ABCDEF",
            b"ABCDG",
            b"ABC E",
            b"+ABCD",
            b"ABCD\0",
        ] {
            assert!(parse_prefix(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            parse_prefix(b"ABCDEF").unwrap_err(),
            "the hash prefix must be 5 hex digits, not 6 characters"
        );
        // Non-ASCII bytes are not digits even where a char would be.
        assert!(parse_prefix("ABC\u{663}".as_bytes()).is_err());
    }
}
