//! Where each group's file goes: the output directory, the layout (Hive or
//! flat), keys escaped into names the file system accepts, and the
//! extension that says what the file holds.
//!
//! A path is computed when a group's file is created, renamed or listed,
//! never stored per group: a run with a million keys keeps a million keys,
//! not a million paths.

use std::path::{Path, PathBuf};

use super::escape::{escape, escape_within, MAX_NAME_LEN};
use super::{Layout, Options, OutputFormat, PartitionError};

/// Longest file name (in bytes) the common file systems allow (ext4, XFS,
/// Btrfs, ZFS; APFS and NTFS count 255 characters).
const MAX_FILE_NAME: usize = 255;

/// Names the output files of a run.
pub(super) struct FileLayout {
    out: PathBuf,
    layout: Layout,
    /// More than one `--by` column: each gets its own tree.
    several: bool,
    /// The `--by` columns' names, escaped, once resolved (after the header
    /// when there is one).
    columns: Vec<String>,
    /// `.tsv`, `.csv` or `.txt`, then `.zst` or `.gz` when compressed.
    extension: String,
}

impl FileLayout {
    /// The layout `options` ask for; columns are named by
    /// [`set_columns`](Self::set_columns).
    pub fn new(options: &Options) -> Self {
        let extension = match options.format {
            OutputFormat::Parquet(_) => ".parquet".to_owned(),
            OutputFormat::Text => format!(
                "{}{}",
                match options.delimiter {
                    b'\t' => ".tsv",
                    b',' => ".csv",
                    _ => ".txt",
                },
                options.compression.suffix()
            ),
        };
        FileLayout {
            out: options.out.clone(),
            layout: options.layout,
            several: options.by.len() > 1,
            columns: Vec::new(),
            extension,
        }
    }

    /// Names the `--by` columns, in order.
    pub fn set_columns<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        self.columns = names
            .into_iter()
            .map(|name| escape(name.as_bytes()))
            .collect();
    }

    /// The output directory.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// The file of `key` in grouping (`--by` column) `grouping`.
    pub fn path(&self, grouping: usize, key: &[u8]) -> PathBuf {
        let column = &self.columns[grouping];
        let mut path = self.out.clone();
        match self.layout {
            Layout::Hive => {
                if self.several {
                    path.push(format!("by-{column}"));
                }
                // `COLUMN=KEY` must fit in one file name.
                let room = MAX_NAME_LEN.min(MAX_FILE_NAME.saturating_sub(column.len() + 1));
                path.push(format!("{column}={}", escape_within(key, room)));
                path.push(format!("part-00000{}", self.extension));
            }
            Layout::Flat => {
                if self.several {
                    path.push(column);
                }
                path.push(format!("{}{}", escape(key), self.extension));
            }
        }
        path
    }
}

/// Checks or creates the output directory; returns whether it was created
/// (so that an aborted run removes it again).
///
/// # Errors
///
/// A directory that is not empty (without `force`), or one that cannot be
/// read or created.
pub(super) fn prepare_out_dir(out: &Path, force: bool) -> Result<bool, PartitionError> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if !force && entries.next().is_some() {
                return Err(PartitionError::Usage(format!(
                    "{}: output directory is not empty (use --force to write into it)",
                    out.display()
                )));
            }
            Ok(false)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(out).map_err(|e| crate::input::with_path(e, out))?;
            Ok(true)
        }
        Err(e) => Err(crate::input::with_path(e, out).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::{run, ColumnRef};
    use crate::write::Compression;

    #[test]
    fn compression_suffix_in_names() {
        let dir = std::env::temp_dir().join(format!("spool-router-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("in.csv"), "a,1\nb,2\n").unwrap();
        let mut options = Options::new(
            vec![dir.join("in.csv")],
            dir.join("out"),
            vec![ColumnRef("1".into())],
        );
        options.delimiter = b',';
        options.compression = Compression::Zstd(3);
        options.layout = Layout::Flat;
        run(&options).unwrap();
        let got = zstd::decode_all(&std::fs::read(dir.join("out/a.csv.zst")).unwrap()[..]).unwrap();
        assert_eq!(got, b"a,1\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_long_column_name_leaves_the_key_less_room() {
        let mut options = Options::new(Vec::new(), PathBuf::from("out"), Vec::new());
        options.by = vec![ColumnRef("c".into()), ColumnRef("d".into())];
        let mut layout = FileLayout::new(&options);
        let long = "n".repeat(150);
        layout.set_columns(["c", long.as_str()]);
        let key = vec![b'k'; 300];
        let path = layout.path(1, &key);
        let dir = path.parent().unwrap();
        assert_eq!(
            dir.parent().unwrap(),
            Path::new("out").join(format!("by-{long}"))
        );
        let name = dir.file_name().unwrap().to_str().unwrap();
        assert!(name.len() <= MAX_FILE_NAME, "{}", name.len());
        assert!(name.starts_with(&format!("{long}=")) && name.contains('~'));
        assert_eq!(
            layout.path(0, b"a/b"),
            Path::new("out/by-c/c=a%2Fb/part-00000.tsv")
        );
    }
}
