//! Counts on the command line (`--threads`, `--max-open`, ...): whole
//! numbers of at least 1.
//!
//! clap would take `--threads 0` as a valid `usize`, and a run with no
//! threads or no open files cannot make progress, so 0 is refused here,
//! where the message can still say which flag was wrong and what to give.

/// Parses a count of at least 1; 0, negative numbers and words are
/// refused with a message saying what to give.
pub fn parse_count(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err(
            "0 is not allowed here: give 1 or more (or leave the option out for its default)"
                .into(),
        ),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a whole number of 1 or more")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_start_at_one() {
        assert_eq!(parse_count("1"), Ok(1));
        assert_eq!(parse_count(" 64 "), Ok(64));
        assert!(parse_count("0").unwrap_err().contains("1 or more"));
        assert!(parse_count("-1").unwrap_err().contains("'-1'"));
        assert!(parse_count("two").is_err());
    }
}
