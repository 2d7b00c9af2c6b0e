//! The user's inputs as an ordered list of files: a file as given, a
//! directory as every file under it, a glob as every file it matches,
//! `-` as standard input.
//!
//! Globs are expanded here rather than by a shell so that a pattern too
//! long for a command line (`data/**/*.csv.gz` over a million files), a
//! quoted pattern, and the Python binding all read the same files in the
//! same order. The order is stated and stable: the inputs in the order
//! given, and the files of one directory or glob sorted by path (byte
//! order), so two runs over the same tree read the records in the same
//! order whatever the file system lists first.
//!
//! Under a directory or a glob, names starting with `.` or `_` are left
//! out, files and directories alike, as Spark, PyArrow and DuckDB leave
//! them out: hidden files, `_SUCCESS`, a dataset's `_partitions.tsv`
//! manifest and its staging directories are not data.
//!
//! Remote inputs (`s3://`, `http(s)://`) follow the same rules on object
//! keys (see the `remote` module).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobMatcher};
use walkdir::WalkDir;

use super::remote::{Object, Remote};
use crate::PartitionError;

/// One file to read, and the directory it was found under (a directory
/// input, or a glob's directory part), whose subdirectories below it may
/// name hive keys.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub path: PathBuf,
    pub root: Option<PathBuf>,
    /// A remote input's object (its `path` is then its URL).
    pub object: Option<Arc<Object>>,
}

impl Found {
    /// A local file.
    fn local(path: PathBuf, root: Option<PathBuf>) -> Self {
        Found {
            path,
            root,
            object: None,
        }
    }

    /// A remote object, at `path` (its URL).
    #[cfg(feature = "s3")]
    pub fn remote(path: PathBuf, root: Option<PathBuf>, object: Object) -> Self {
        Found {
            path,
            root,
            object: Some(Arc::new(object)),
        }
    }
}

/// Every file the inputs name, in order; see the module docs.
///
/// # Errors
///
/// A directory with no file in it, or a glob that matches none, named as
/// the user wrote it; a directory that cannot be listed; as
/// [`Remote::expand`] for remote inputs.
pub(crate) fn expand(
    inputs: &[PathBuf],
    remote: &mut Remote,
) -> Result<Vec<Found>, PartitionError> {
    let mut found = Vec::with_capacity(inputs.len());
    for input in inputs {
        let before = found.len();
        if remote.expand(input, &mut found)? {
            continue;
        }
        if input.as_os_str() == "-" || input.is_file() {
            found.push(Found::local(input.clone(), None));
            continue;
        }
        if input.is_dir() {
            walk(input, input, &|_| true, &mut found)?;
            if found.len() == before {
                return Err(nothing(input, "the directory holds no file"));
            }
        } else if let Some((root, pattern)) = glob(input) {
            let matcher = matcher(input, &pattern)?;
            if root.is_dir() {
                walk(&root, &root, &|p| matcher.is_match(p), &mut found)?;
            }
            if found.len() == before {
                return Err(nothing(input, "no file matches the pattern"));
            }
        } else {
            // Neither a file, a directory nor a pattern: opened as given,
            // so the error is the system's own (not found, a pipe, …).
            found.push(Found::local(input.clone(), None));
        }
        found[before..].sort_by(|a, b| a.path.cmp(&b.path));
    }
    Ok(found)
}

/// Whether `text` holds a glob character (`*`, `?`, `[`, `{`).
pub(crate) fn is_pattern(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

/// `pattern` (from the user's `input`) compiled by the one set of glob
/// rules of every input: `*` and `?` stop at `/`, `**` crosses it.
///
/// # Errors
///
/// A pattern that does not parse, named as the user wrote it.
pub(crate) fn matcher(input: &Path, pattern: &str) -> Result<GlobMatcher, PartitionError> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| usage(input, &e.to_string()))?
        .compile_matcher())
}

/// A path holding a glob character (`*`, `?`, `[`, `{`) that is not a
/// file: the directory part before the first such component, and the
/// whole pattern.
fn glob(input: &Path) -> Option<(PathBuf, String)> {
    let text = input.to_str()?;
    let special = is_pattern;
    if !special(text) {
        return None;
    }
    let mut root = PathBuf::new();
    for part in input.components() {
        if special(&part.as_os_str().to_string_lossy()) {
            break;
        }
        root.push(part);
    }
    if root.as_os_str().is_empty() {
        root.push(".");
        // The walk's paths start with `./`; so must the pattern.
        return Some((root, format!("./{text}")));
    }
    Some((root, text.to_owned()))
}

/// Appends every regular file under `dir` that `keep` keeps, skipping
/// names that start with `.` or `_` below `dir`.
fn walk(
    dir: &Path,
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
    found: &mut Vec<Found>,
) -> Result<(), PartitionError> {
    let entries = WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !hidden(e.file_name()));
    for entry in entries {
        let entry = entry.map_err(|e| {
            let at = e.path().unwrap_or(dir).to_path_buf();
            let message = e.to_string();
            PartitionError::Io(spool_io::input::with_path(
                std::io::Error::other(message),
                &at,
            ))
        })?;
        if entry.file_type().is_file() && keep(entry.path()) {
            found.push(Found::local(entry.into_path(), Some(root.to_path_buf())));
        }
    }
    Ok(())
}

fn hidden(name: &std::ffi::OsStr) -> bool {
    hidden_name(name.as_encoded_bytes())
}

/// Whether a file or directory name is left out under a directory, a
/// glob or an object prefix (see the module docs).
pub(crate) fn hidden_name(name: &[u8]) -> bool {
    name.first().is_some_and(|b| *b == b'.' || *b == b'_')
}

fn usage(input: &Path, message: &str) -> PartitionError {
    PartitionError::Usage(format!("{}: {message}", input.display()))
}

pub(crate) fn nothing(input: &Path, message: &str) -> PartitionError {
    usage(
        input,
        &format!("{message} (names starting with . or _ are left out)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_local(inputs: &[PathBuf]) -> Result<Vec<Found>, PartitionError> {
        expand(inputs, &mut Remote::default())
    }

    #[test]
    fn directories_and_globs_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for name in [
            "b/2.csv",
            "a/10.csv",
            "a/9.csv",
            "a/_SUCCESS",
            ".hidden/x.csv",
            "a/x.tsv",
        ] {
            std::fs::create_dir_all(d.join(name).parent().unwrap()).unwrap();
            std::fs::write(d.join(name), "x\n").unwrap();
        }
        let names = |found: Vec<Found>| -> Vec<String> {
            let rel = |f: &Found| f.path.strip_prefix(d).unwrap().display().to_string();
            found.iter().map(rel).collect()
        };
        let all = expand_local(&[d.to_path_buf()]).unwrap();
        assert_eq!(names(all), ["a/10.csv", "a/9.csv", "a/x.tsv", "b/2.csv"]);
        let csv = expand_local(&[d.join("*/*.csv")]).unwrap();
        assert_eq!(names(csv), ["a/10.csv", "a/9.csv", "b/2.csv"]);
        let deep = expand_local(&[d.join("**/*.tsv"), d.join("b/2.csv")]).unwrap();
        assert_eq!(names(deep), ["a/x.tsv", "b/2.csv"]);
        let none = expand_local(&[d.join("*.parquet")])
            .unwrap_err()
            .to_string();
        assert!(none.contains("*.parquet: no file matches"), "{none}");
        std::fs::create_dir(d.join("empty")).unwrap();
        let empty = expand_local(&[d.join("empty")]).unwrap_err().to_string();
        assert!(empty.contains("holds no file"), "{empty}");
    }
}
