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

use std::path::{Path, PathBuf};

use globset::GlobBuilder;
use walkdir::WalkDir;

use crate::PartitionError;

/// One file to read, and the directory it was found under (a directory
/// input, or a glob's directory part), whose subdirectories below it may
/// name hive keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub path: PathBuf,
    pub root: Option<PathBuf>,
}

/// Every file the inputs name, in order; see the module docs.
///
/// # Errors
///
/// A directory with no file in it, or a glob that matches none, named as
/// the user wrote it; a directory that cannot be listed.
pub(crate) fn expand(inputs: &[PathBuf]) -> Result<Vec<Found>, PartitionError> {
    let mut found = Vec::with_capacity(inputs.len());
    for input in inputs {
        let before = found.len();
        if input.as_os_str() == "-" || input.is_file() {
            found.push(Found {
                path: input.clone(),
                root: None,
            });
            continue;
        }
        if input.is_dir() {
            walk(input, input, &|_| true, &mut found)?;
            if found.len() == before {
                return Err(nothing(input, "the directory holds no file"));
            }
        } else if let Some((root, pattern)) = glob(input) {
            let matcher = GlobBuilder::new(&pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| usage(input, &e.to_string()))?
                .compile_matcher();
            if root.is_dir() {
                walk(&root, &root, &|p| matcher.is_match(p), &mut found)?;
            }
            if found.len() == before {
                return Err(nothing(input, "no file matches the pattern"));
            }
        } else {
            // Neither a file, a directory nor a pattern: opened as given,
            // so the error is the system's own (not found, a pipe, …).
            found.push(Found {
                path: input.clone(),
                root: None,
            });
        }
        found[before..].sort_by(|a, b| a.path.cmp(&b.path));
    }
    Ok(found)
}

/// A path holding a glob character (`*`, `?`, `[`, `{`) that is not a
/// file: the directory part before the first such component, and the
/// whole pattern.
fn glob(input: &Path) -> Option<(PathBuf, String)> {
    let text = input.to_str()?;
    let special = |s: &str| s.contains(['*', '?', '[', '{']);
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
            found.push(Found {
                path: entry.into_path(),
                root: Some(root.to_path_buf()),
            });
        }
    }
    Ok(())
}

fn hidden(name: &std::ffi::OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.first().is_some_and(|b| *b == b'.' || *b == b'_')
}

fn usage(input: &Path, message: &str) -> PartitionError {
    PartitionError::Usage(format!("{}: {message}", input.display()))
}

fn nothing(input: &Path, message: &str) -> PartitionError {
    usage(
        input,
        &format!("{message} (names starting with . or _ are left out)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let all = expand(&[d.to_path_buf()]).unwrap();
        assert_eq!(names(all), ["a/10.csv", "a/9.csv", "a/x.tsv", "b/2.csv"]);
        let csv = expand(&[d.join("*/*.csv")]).unwrap();
        assert_eq!(names(csv), ["a/10.csv", "a/9.csv", "b/2.csv"]);
        let deep = expand(&[d.join("**/*.tsv"), d.join("b/2.csv")]).unwrap();
        assert_eq!(names(deep), ["a/x.tsv", "b/2.csv"]);
        let none = expand(&[d.join("*.parquet")]).unwrap_err().to_string();
        assert!(none.contains("*.parquet: no file matches"), "{none}");
        std::fs::create_dir(d.join("empty")).unwrap();
        let empty = expand(&[d.join("empty")]).unwrap_err().to_string();
        assert!(empty.contains("holds no file"), "{empty}");
    }
}
