//! Byte counts in the units people type them in: read from `512M` or `2G`
//! ([`parse`]) and shown back the same way ([`Size`]).
//!
//! A memory budget of `1K` printed as "0 MiB" hides what was given. [`Size`]
//! prints a count exactly in the largest binary unit that divides it (so
//! `--memory 1K` reads back as `1 KiB`, `41M` as `41 MiB`), or in MiB with
//! one decimal when no unit divides it.

use std::fmt;

/// A byte count that displays as `512 MiB`, `1 KiB`, `1.5 MiB` or `100 bytes`.
///
/// # Examples
///
/// ```
/// use spool_io::size::Size;
/// assert_eq!(Size(1 << 10).to_string(), "1 KiB");
/// assert_eq!(Size(41 << 20).to_string(), "41 MiB");
/// assert_eq!(Size(3 << 29).to_string(), "1536 MiB");
/// assert_eq!(Size(2 << 30).to_string(), "2 GiB");
/// assert_eq!(Size((3 << 20) / 2 + 1).to_string(), "1.5 MiB");
/// assert_eq!(Size(100).to_string(), "100 bytes");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub usize);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        const UNITS: [(usize, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
        if n == 0 {
            return write!(f, "0 bytes");
        }
        for (unit, name) in UNITS {
            if n.is_multiple_of(unit) {
                return write!(f, "{} {name}", n / unit);
            }
        }
        if n < 1 << 20 {
            write!(f, "{n} bytes")
        } else {
            write!(f, "{:.1} MiB", n as f64 / f64::from(1 << 20))
        }
    }
}

/// Parses a byte size with an optional K, M or G suffix (powers of 1024;
/// a trailing `B` or `iB` is accepted).
///
/// # Errors
///
/// A message naming the text, for a number or unit that cannot be read or a
/// size past `usize`.
///
/// # Examples
///
/// ```
/// assert_eq!(spool_io::size::parse("512M"), Ok(512 << 20));
/// assert!(spool_io::size::parse("12X").is_err());
/// ```
pub fn parse(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => {
            let mult = match s[i..].to_ascii_uppercase().trim_end_matches(['B', 'I']) {
                "" => 1,
                "K" => 1 << 10,
                "M" => 1 << 20,
                "G" => 1 << 30,
                other => return Err(format!("unknown size unit '{other}' (use K, M or G)")),
            };
            (&s[..i], mult)
        }
        None => (s, 1),
    };
    let n: usize = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a size like 512M"))?;
    n.checked_mul(mult)
        .ok_or_else(|| format!("size '{s}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse("512M"), Ok(512 << 20));
        assert_eq!(parse("2GiB"), Ok(2 << 30));
        assert_eq!(parse("64k"), Ok(64 << 10));
        assert_eq!(parse("1000"), Ok(1000));
        assert!(parse("12X").is_err());
        assert!(parse("M").is_err());
    }
}
