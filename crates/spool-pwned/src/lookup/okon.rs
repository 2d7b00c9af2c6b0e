//! okon-cli's command line, as `spool-okon` takes it: options come in
//! pairs `--path INDEX` and `--hash SHA1HEX`, in any order (a repeated one
//! wins; one without its value at the end counts as not given), and
//! `--help`/`-h` in an option's place asks for the usage.
//!
//! Parsing is kept apart from the binary so that it can be driven
//! in-process (the `pwned_check_batch` fuzz target) without spawning it.

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
///
/// # Examples
///
/// ```
/// use spool_pwned::lookup::okon::{parse_okon_args, OkonArgError, OkonCommand};
/// let args = ["--hash", "5BAA6", "--path", "pwned.okon"].map(String::from);
/// assert_eq!(
///     parse_okon_args(&args),
///     Ok(OkonCommand::Check { path: "pwned.okon".into(), hash: "5BAA6".into() })
/// );
/// assert_eq!(parse_okon_args(&["-h".to_string()]), Ok(OkonCommand::Help));
/// assert_eq!(parse_okon_args(&["--path".to_string()]), Err(OkonArgError::Usage));
/// ```
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
