//! A dataset written by several runs, read back as one: every run's
//! manifest (`_partitions.tsv`, `_partitions-ID.tsv`) merged into one
//! key/file/record table, and the files under the output checked against
//! it.
//!
//! A run that appends ([`AppendRun`](crate::append_run::AppendRun)) writes its
//! manifest last, so a file listed by a manifest is whole and belongs to
//! a finished run. A file under the output that no manifest lists belongs
//! to a run still writing, one that died (see [`clean`](super::clean)), or
//! to someone else; [`merge_manifests`] reports such files, and listed
//! files that are missing, without failing.
//!
//! The merged table has the manifests' own four columns (`column`, `key`,
//! `path`, `records`), so a reader of one run's manifest reads it too.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::file_layout::MANIFEST_PREFIX;
use crate::PartitionError;
use spool_io::input::with_path;

/// The manifests' header line.
const HEADER: &str = "column\tkey\tpath\trecords";

/// One row of a manifest: one group's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestRow {
    /// The `--by` column, escaped as in the manifest.
    pub column: String,
    /// The key, escaped as in the manifest (reversible with
    /// [`unescape`](super::escape::unescape)).
    pub key: String,
    /// The file (one part of a Parquet group; each part has its row),
    /// relative to the dataset.
    pub path: PathBuf,
    /// Records in the file.
    pub records: u64,
}

/// The whole dataset's table, from every manifest in it.
#[derive(Clone, Debug, Default)]
pub struct DatasetTable {
    /// The manifests read, by name.
    pub manifests: Vec<PathBuf>,
    /// Their rows: manifests in name order, each in its own order.
    pub rows: Vec<ManifestRow>,
    /// Data files under the dataset that no manifest lists (relative).
    pub unlisted: Vec<PathBuf>,
    /// Files a manifest lists that are not there (relative).
    pub missing: Vec<PathBuf>,
}

impl DatasetTable {
    /// Writes the table as a manifest: the header, then one line a row.
    ///
    /// # Errors
    ///
    /// What `out` returns.
    pub fn write_tsv(&self, out: &mut impl Write) -> io::Result<()> {
        write_manifest(out, &self.rows)
    }

    /// Records in all listed files.
    pub fn records(&self) -> u64 {
        self.rows.iter().map(|r| r.records).sum()
    }
}

/// Writes `rows` as a manifest: the header line, then one line a row
/// (what every run writes last, and what [`merge_manifests`] reads).
///
/// # Errors
///
/// What `out` returns.
pub fn write_manifest(out: &mut impl Write, rows: &[ManifestRow]) -> io::Result<()> {
    writeln!(out, "{HEADER}")?;
    for row in rows {
        writeln!(
            out,
            "{}\t{}\t{}\t{}",
            row.column,
            row.key,
            row.path.display(),
            row.records
        )?;
    }
    Ok(())
}

/// Reads every `_partitions*.tsv` in `out` into one table, and lists the
/// data files no manifest names and the named files that are missing.
/// Names starting with `_` or `.` are not data files (readers skip them):
/// manifests, staging directories, lock files.
///
/// # Errors
///
/// `out` or a manifest cannot be read; a manifest line that is not four
/// fields with a relative path and a count (`FILE:LINE: …`); or a file
/// listed by two rows.
///
/// # Examples
///
/// ```
/// use spool_partition::{dataset::merge_manifests, run, ColumnRef, Options};
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-merge-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("in.tsv"), "de\t1\nfr\t2\nde\t3\n")?;
/// let out = dir.join("out");
/// for id in ["a", "b"] {
///     let mut options = Options::new(vec![dir.join("in.tsv")], out.clone(), vec![ColumnRef("1".into())]);
///     (options.run_id, options.append) = (Some(id.into()), true);
///     run(&options)?;
/// }
/// let table = merge_manifests(&out)?;
/// assert_eq!((table.rows.len(), table.records()), (4, 6));
/// assert!(table.unlisted.is_empty() && table.missing.is_empty());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn merge_manifests(out: &Path) -> Result<DatasetTable, PartitionError> {
    let mut table = DatasetTable::default();
    let mut names: Vec<String> = std::fs::read_dir(out)
        .map_err(|e| with_path(e, out))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(MANIFEST_PREFIX) && n.ends_with(".tsv"))
        .collect();
    names.sort();
    // Which manifest listed each path, to name both on a duplicate.
    let mut listed: HashMap<PathBuf, usize> = HashMap::new();
    for name in names {
        let path = out.join(&name);
        let text = std::fs::read_to_string(&path).map_err(|e| with_path(e, &path))?;
        for (row, line) in read_manifest(&path, &text)? {
            if let Some(&other) = listed.get(&row.path) {
                return Err(bad_line(
                    &path,
                    line,
                    format!(
                        "{} is also listed by {}; each file belongs to one run",
                        row.path.display(),
                        table.manifests[other].display()
                    ),
                ));
            }
            listed.insert(row.path.clone(), table.manifests.len());
            table.rows.push(row);
        }
        table.manifests.push(PathBuf::from(name));
    }
    let mut files = Vec::new();
    walk(out, Path::new(""), &mut files).map_err(PartitionError::Io)?;
    files.sort();
    table.unlisted = files
        .into_iter()
        .filter(|f| !listed.contains_key(f))
        .collect();
    table.missing = table
        .rows
        .iter()
        .map(|r| r.path.clone())
        .filter(|p| std::fs::symlink_metadata(out.join(p)).is_err())
        .collect();
    Ok(table)
}

/// The rows of one manifest with their line numbers.
fn read_manifest(path: &Path, text: &str) -> Result<Vec<(ManifestRow, usize)>, PartitionError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, HEADER)) => {}
        _ => {
            return Err(bad_line(
                path,
                1,
                format!("not a manifest (the first line is not '{HEADER}')"),
            ))
        }
    }
    lines
        .map(|(n, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [column, key, file, records] = fields[..] else {
                return Err(bad_line(
                    path,
                    n,
                    format!("{} field(s), 4 expected", fields.len()),
                ));
            };
            let file = PathBuf::from(file);
            let inside = file
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside || file.as_os_str().is_empty() {
                return Err(bad_line(
                    path,
                    n,
                    format!("'{}' is not a path inside the dataset", file.display()),
                ));
            }
            let records = records
                .parse()
                .map_err(|_| bad_line(path, n, format!("'{records}' is not a record count")))?;
            let row = ManifestRow {
                column: column.to_owned(),
                key: key.to_owned(),
                path: file,
                records,
            };
            Ok((row, n))
        })
        .collect()
}

fn bad_line(path: &Path, line: usize, message: String) -> PartitionError {
    PartitionError::Input {
        file: path.display().to_string(),
        line: line as u64,
        offset: 0,
        message,
    }
}

/// Every file under `root/rel` whose name and whose folders' names do
/// not start with `_` or `.`, relative to `root`.
fn walk(root: &Path, rel: &Path, found: &mut Vec<PathBuf>) -> io::Result<()> {
    let dir = root.join(rel);
    for entry in std::fs::read_dir(&dir).map_err(|e| with_path(e, &dir))? {
        let entry = entry.map_err(|e| with_path(e, &dir))?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(['_', '.']) {
            continue;
        }
        let path = rel.join(&name);
        if entry.file_type().map_err(|e| with_path(e, &dir))?.is_dir() {
            walk(root, &path, found)?;
        } else {
            found.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::escape::{escape, escape_full};
    use proptest::prelude::*;

    proptest! {
        /// What a run writes, any keys and columns, reads back the same.
        #[test]
        fn manifests_read_back_what_was_written(
            rows in prop::collection::vec(
                (prop::collection::vec(any::<u8>(), 0..12), prop::collection::vec(any::<u8>(), 1..40), any::<u64>()),
                0..20,
            )
        ) {
            let rows: Vec<ManifestRow> = rows
                .iter()
                .map(|(column, key, records)| ManifestRow {
                    column: escape_full(column),
                    key: escape_full(key),
                    path: PathBuf::from(format!("{}={}", escape(column), escape(key))).join("part-00000.tsv"),
                    records: *records,
                })
                .collect();
            let mut text = Vec::new();
            write_manifest(&mut text, &rows).unwrap();
            let read = read_manifest(Path::new("m"), std::str::from_utf8(&text).unwrap()).unwrap();
            prop_assert_eq!(read.into_iter().map(|(row, _)| row).collect::<Vec<_>>(), rows);
        }

        /// Any text: rows or an error, never a panic.
        #[test]
        fn any_text_is_read_or_refused(body in "(column\tkey\tpath\trecords\n)?[a-z0-9=/.\t\n%-]{0,200}") {
            let _ = read_manifest(Path::new("m"), &body);
        }
    }

    #[test]
    fn bad_manifests_are_refused_naming_the_line() {
        let path = Path::new("m.tsv");
        let cases = [
            ("x\n", "not a manifest"),
            ("column\tkey\tpath\trecords\na\tb\tc\n", "3 field(s)"),
            (
                "column\tkey\tpath\trecords\na\tb\t../c\t1\n",
                "not a path inside",
            ),
            (
                "column\tkey\tpath\trecords\na\tb\t/c\t1\n",
                "not a path inside",
            ),
            (
                "column\tkey\tpath\trecords\na\tb\tc\tmany\n",
                "not a record count",
            ),
        ];
        for (text, want) in cases {
            let err = read_manifest(path, text).unwrap_err().to_string();
            assert!(err.starts_with("m.tsv:") && err.contains(want), "{err}");
        }
        let rows = read_manifest(
            path,
            "column\tkey\tpath\trecords\nc\tk\tc=k/part-00000.tsv\t7\n",
        )
        .unwrap();
        assert_eq!(rows[0].0.records, 7);
        assert_eq!(rows[0].1, 2);
    }

    #[test]
    fn every_part_is_listed_or_reported() {
        let dir = std::env::temp_dir().join(format!("spool-merge-parts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("c=k")).unwrap();
        for name in [
            "part-r-00000.parquet",
            "part-r-00001.parquet",
            "stray.tsv",
            "part-s-00001.parquet",
            ".hidden",
        ] {
            std::fs::write(dir.join("c=k").join(name), "").unwrap();
        }
        std::fs::write(
            dir.join("_partitions-r.tsv"),
            "column\tkey\tpath\trecords\nc\tk\tc=k/part-r-00000.parquet\t3\nc\tk\tc=k/part-r-00001.parquet\t2\nc\tj\tc=j/part-r-00000.parquet\t1\n",
        )
        .unwrap();
        let table = merge_manifests(&dir).unwrap();
        assert_eq!(table.records(), 6);
        // A part no manifest row names is someone else's, whatever its name.
        let unlisted = ["c=k/part-s-00001.parquet", "c=k/stray.tsv"];
        assert_eq!(table.unlisted, unlisted.map(PathBuf::from));
        assert_eq!(table.missing, [PathBuf::from("c=j/part-r-00000.parquet")]);
        // The same file listed twice (a merged table saved as a manifest).
        std::fs::copy(dir.join("_partitions-r.tsv"), dir.join("_partitions-s.tsv")).unwrap();
        let err = merge_manifests(&dir).unwrap_err().to_string();
        assert!(
            err.contains("_partitions-s.tsv:2:")
                && err.contains("also listed by _partitions-r.tsv"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
