//! Sizes on the command line: `512M`, `2G`, `64KiB`, `1000`.

/// Parses a byte size with an optional K, M or G suffix (powers of 1024;
/// a trailing `B` or `iB` is accepted).
pub fn parse_size(s: &str) -> Result<usize, String> {
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
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("12X").is_err());
        assert!(parse_size("M").is_err());
    }
}
