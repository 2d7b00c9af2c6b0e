//! okon-cli's command line, as `spool-okon` takes it: options come in
//! pairs `--path INDEX` and `--hash SHA1HEX`, in any order (a repeated one
//! wins; one without its value at the end counts as not given), and
//! `--help`/`-h` in an option's place asks for the usage.
//!
//! Parsing is kept apart from `main.rs` so that it can be driven
//! in-process without spawning the binary: the `pwned_check_batch` fuzz
//! target compiles this file alone (it needs nothing but `std`), so the
//! fuzz build does not compile the command's other dependencies.

use std::fmt;

/// What a `spool-okon` command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OkonCommand {
    /// Print the usage and exit 0.
    Help,
    /// Look `hash` up in the index at `path`.
    Check {
        /// The index file.
        path: String,
        /// The hash as given (hex; surrounding blanks are the caller's to
        /// trim).
        hash: String,
    },
}

/// A command line `spool-okon` refuses (it exits 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OkonArgError {
    /// An option in an option's place that is none of `spool-okon`'s.
    Unknown(String),
    /// `--path` or `--hash` missing.
    Usage,
}

/// The usage line.
pub const OKON_USAGE: &str = "usage: spool-okon --path INDEX --hash SHA1HEX";

impl fmt::Display for OkonArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OkonArgError::Unknown(arg) => write!(f, "unknown argument '{arg}'"),
            OkonArgError::Usage => f.write_str(OKON_USAGE),
        }
    }
}

impl std::error::Error for OkonArgError {}

/// Parses `spool-okon`'s arguments (without the program name).
///
/// # Errors
///
/// [`OkonArgError::Unknown`] for the first option that is not
/// `--path`, `--hash`, `--help` or `-h` (unless help came first),
/// [`OkonArgError::Usage`] if the path or the hash is missing.
pub fn parse_okon_args(args: &[String]) -> Result<OkonCommand, OkonArgError> {
    let mut path = None;
    let mut hash = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--path" => path = args.get(i + 1).cloned(),
            "--hash" => hash = args.get(i + 1).cloned(),
            "--help" | "-h" => return Ok(OkonCommand::Help),
            other => return Err(OkonArgError::Unknown(other.to_string())),
        }
        i += 2;
    }
    match (path, hash) {
        (Some(path), Some(hash)) => Ok(OkonCommand::Check { path, hash }),
        _ => Err(OkonArgError::Usage),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn options_in_any_order_a_lone_one_at_the_end_counts_as_missing() {
        assert_eq!(
            parse_okon_args(&args(&["--hash", "5BAA6", "--path", "pwned.okon"])),
            Ok(OkonCommand::Check {
                path: "pwned.okon".into(),
                hash: "5BAA6".into()
            })
        );
        assert_eq!(parse_okon_args(&args(&["-h"])), Ok(OkonCommand::Help));
        assert_eq!(
            parse_okon_args(&args(&["--path"])),
            Err(OkonArgError::Usage)
        );
        assert_eq!(
            parse_okon_args(&args(&["--path", "a", "--path", "b", "--hash", "h"])),
            Ok(OkonCommand::Check {
                path: "b".into(),
                hash: "h".into()
            })
        );
        assert_eq!(
            parse_okon_args(&args(&["--verbose", "--help"])),
            Err(OkonArgError::Unknown("--verbose".into()))
        );
    }
}
