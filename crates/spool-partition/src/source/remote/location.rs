//! What a remote input names, from its text alone: a bucket and the keys
//! to list (`s3://BUCKET/PREFIX/`, `s3://BUCKET/GLOB`, `s3://BUCKET/KEY`),
//! or one `http(s)://` URL. Pure, so its rules are tested without a store.
//!
//! An `s3://` input is read as a local one is: a key that names an object
//! is that object; a prefix (ending in `/`, or naming no object) is every
//! object under it; a key holding a glob character is the glob matched on
//! whole keys, by the rules of local globs, below its literal directory
//! part. Under a prefix or a glob, names starting with `.` or `_` below
//! the listed directory are left out, as for local directories.

use std::path::Path;

use super::super::expand;
use crate::PartitionError;

/// A remote input; see the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Location {
    /// An `s3://` input.
    S3 {
        bucket: String,
        /// The key part as written (may be empty, end in `/`, or hold a
        /// glob).
        key: String,
    },
    /// An `http://` or `https://` URL, one object.
    Http(String),
}

/// How an `s3://` input's objects are found.
#[cfg_attr(not(feature = "s3"), allow(dead_code))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Listing {
    /// The object to look up first (a key with no glob and no trailing
    /// `/`): if it exists, it is the input.
    pub single: Option<String>,
    /// The prefix listed otherwise: empty or ending in `/`; hive keys are
    /// the directories below it.
    pub root: String,
    /// A glob every listed key must match.
    pub pattern: Option<String>,
}

impl Location {
    /// `input` as a remote location, if it starts with `s3://`,
    /// `http://` or `https://`.
    ///
    /// # Errors
    ///
    /// An `s3://` input with no bucket.
    pub fn parse(input: &Path) -> Result<Option<Location>, PartitionError> {
        let Some(text) = input.to_str() else {
            return Ok(None);
        };
        if text.starts_with("https://") || text.starts_with("http://") {
            return Ok(Some(Location::Http(text.to_owned())));
        }
        let Some(rest) = text.strip_prefix("s3://") else {
            return Ok(None);
        };
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() || bucket.contains(['*', '?', '[', '{']) {
            return Err(PartitionError::Usage(format!(
                "{text}: give s3://BUCKET/PREFIX/, s3://BUCKET/KEY or s3://BUCKET/GLOB"
            )));
        }
        Ok(Some(Location::S3 {
            bucket: bucket.to_owned(),
            key: key.to_owned(),
        }))
    }
}

/// How the objects of `key` (an `s3://` input's key part) are found; see
/// the module docs.
#[cfg_attr(not(feature = "s3"), allow(dead_code))]
pub(crate) fn listing(key: &str) -> Listing {
    if expand::is_pattern(key) {
        let literal = key.split('/').take_while(|part| !expand::is_pattern(part));
        let root: String = literal.map(|part| format!("{part}/")).collect();
        return Listing {
            single: None,
            root,
            pattern: Some(key.to_owned()),
        };
    }
    let single = (!key.is_empty() && !key.ends_with('/')).then(|| key.to_owned());
    let root = match key {
        "" => String::new(),
        k => format!("{}/", k.trim_end_matches('/')),
    };
    Listing {
        single,
        root,
        pattern: None,
    }
}

/// Whether the listed `key` (under `root`) is left out: a name below
/// `root` that starts with `.` or `_`.
#[cfg_attr(not(feature = "s3"), allow(dead_code))]
pub(crate) fn hidden(key: &str, root: &str) -> bool {
    let below = key.strip_prefix(root).unwrap_or(key);
    below
        .split('/')
        .any(|name| expand::hidden_name(name.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_parse_to_locations() {
        let parse = |s: &str| Location::parse(Path::new(s));
        let s3 = |bucket: &str, key: &str| {
            Some(Location::S3 {
                bucket: bucket.into(),
                key: key.into(),
            })
        };
        assert_eq!(parse("s3://raw/2026/").unwrap(), s3("raw", "2026/"));
        assert_eq!(parse("s3://raw").unwrap(), s3("raw", ""));
        assert_eq!(parse("s3://raw/*.csv").unwrap(), s3("raw", "*.csv"));
        let url = "https://example.com/a/b.csv?x=1";
        assert_eq!(parse(url).unwrap(), Some(Location::Http(url.into())));
        assert_eq!(parse("data/s3:/x.csv").unwrap(), None);
        assert_eq!(parse("-").unwrap(), None);
        assert!(parse("s3:///x.csv").is_err());
        assert!(parse("s3://raw*/x.csv").is_err());
    }

    #[test]
    fn keys_to_listings() {
        let l = listing("2026/*/day=*/*.csv.gz");
        assert_eq!(l.root, "2026/");
        assert_eq!(l.single, None);
        assert_eq!(l.pattern.as_deref(), Some("2026/*/day=*/*.csv.gz"));
        let l = listing("*.csv");
        assert_eq!((l.root.as_str(), l.single), ("", None));
        let l = listing("ds/part-0.parquet");
        assert_eq!(l.single.as_deref(), Some("ds/part-0.parquet"));
        assert_eq!(l.root, "ds/part-0.parquet/");
        let l = listing("ds/");
        assert_eq!((l.root.as_str(), l.single, l.pattern), ("ds/", None, None));
        assert_eq!(listing("").root, "");
    }

    #[test]
    fn names_below_the_root_starting_with_dot_or_underscore_are_hidden() {
        assert!(hidden("ds/_SUCCESS", "ds/"));
        assert!(hidden("ds/_staging-1/a.csv", "ds/"));
        assert!(hidden("ds/k=1/.part.crc", "ds/"));
        assert!(!hidden("ds/k=1/part-0.csv", "ds/"));
        assert!(!hidden("_raw/a.csv", "_raw/"), "only below the root");
    }

    #[test]
    fn globs_on_keys_follow_the_local_rules() {
        let m = expand::matcher(Path::new("x"), "2026/*.csv.gz").unwrap();
        assert!(m.is_match("2026/a.csv.gz"));
        assert!(!m.is_match("2026/05/a.csv.gz"), "* stops at /");
        let m = expand::matcher(Path::new("x"), "2026/**/*.csv.gz").unwrap();
        assert!(m.is_match("2026/05/01/a.csv.gz"));
        assert!(m.is_match("2026/a.csv.gz"));
    }
}
