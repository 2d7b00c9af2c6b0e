//! Where each group's file goes: the layout (Hive or flat), keys escaped
//! into names the file system accepts, the extension that says what the
//! file holds — and a check that no two groups share a name.
//!
//! # Run ids
//!
//! With a run id (`--run-id ID`) every name the run writes carries it, so
//! that runs appending into one dataset never write the same name:
//!
//! | | without | with `--run-id ID` |
//! |---|---|---|
//! | Hive | `COL=KEY/part-00000.tsv` | `COL=KEY/part-ID-00000.tsv` |
//! | Parquet parts | `COL=KEY/part-00001.parquet` | `COL=KEY/part-ID-00001.parquet` |
//! | flat | `KEY.tsv` | `KEY.ID.tsv` |
//! | manifest | `_partitions.tsv` | `_partitions-ID.tsv` |
//!
//! An id holds no `.`, so in a flat name it is what lies between the last
//! `.` before the extension and the extension. In the flat layout a key
//! then has room for fewer bytes (as if the id were the longest allowed),
//! so a long key is shortened to the same name by every run, whatever its
//! id.
//!
//! Paths are relative to the dataset's root: the run writes under its
//! staging directory ([`StagedDir`](spool_io::write::StagedDir)) and reports
//! them under the output directory they are published as. A path is
//! computed when a group's file is created or listed, never stored per
//! group: a run with a million keys keeps a million keys, not a million
//! paths.
//!
//! # Distinct names
//!
//! Escaping is reversible, so two keys kept whole never share a name, and
//! no key takes a reserved one (a leading `_` is escaped). A shortened
//! name (`~` and a 128-bit hash) could in principle be shared: every
//! shortened name is recorded when its group is added, and a key whose
//! name is taken gets the next of [`escape_within_nth`]'s names. Only
//! shortened names are recorded, so the check costs nothing for ordinary
//! keys.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::append_run::MAX_RUN_ID_LEN;
use crate::escape::{escape, escape_within_nth, MAX_NAME_LEN};
use crate::{DatasetLayout, Options, OutputFormat, PartitionError};

/// Longest file name (in bytes) the common file systems allow (ext4, XFS,
/// Btrfs, ZFS; APFS and NTFS count 255 characters).
const MAX_FILE_NAME: usize = 255;

/// The manifest's name, in the dataset's root (a run without a run id).
pub(super) const MANIFEST: &str = "_partitions.tsv";
/// What every manifest's name starts with (`_partitions-ID.tsv` with a
/// run id).
pub const MANIFEST_PREFIX: &str = "_partitions";

/// The manifest of a run: `_partitions.tsv`, or `_partitions-ID.tsv`.
pub(super) fn manifest_name(run_id: Option<&str>) -> String {
    match run_id {
        None => MANIFEST.to_owned(),
        Some(id) => format!("{MANIFEST_PREFIX}-{id}.tsv"),
    }
}

/// The name of part `n` of a group whose first part is `first`
/// (`part-[ID-]00000.EXT`, Hive layout): the same name with the number
/// `n` (the number is the last `00000.` in the name: an id comes before
/// it, the extension after).
pub(crate) fn part_path(first: &Path, n: u32) -> PathBuf {
    if n == 0 {
        return first.to_path_buf();
    }
    let name = first.file_name().unwrap_or_default().to_string_lossy();
    match name.rfind("00000.") {
        Some(at) => first.with_file_name(format!("{}{n:05}{}", &name[..at], &name[at + 5..])),
        None => first.with_file_name(format!("part-{n:05}.parquet")),
    }
}

/// Names the output files of a run.
pub(super) struct FileLayout {
    layout: DatasetLayout,
    /// More than one `--by` column: each gets its own tree.
    several: bool,
    /// The `--by` columns' names, escaped, once resolved (after the header
    /// when there is one).
    columns: Vec<String>,
    /// `.tsv`, `.csv` or `.txt`, then `.zst` or `.gz` when compressed.
    extension: String,
    /// `--run-id`, in every file's name.
    run_id: Option<String>,
    /// Every shortened name given out, per grouping, and its key.
    shortened: HashMap<(usize, String), Box<[u8]>>,
    /// Keys whose shortened name was taken, and which other name they got.
    renamed: HashMap<(usize, Box<[u8]>), u32>,
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
            layout: options.layout,
            several: options.by.len() > 1,
            columns: Vec::new(),
            extension,
            run_id: options.run_id.clone(),
            shortened: HashMap::new(),
            renamed: HashMap::new(),
        }
    }

    /// The run's manifest: `_partitions.tsv` or `_partitions-ID.tsv`.
    pub fn manifest(&self) -> String {
        manifest_name(self.run_id.as_deref())
    }

    /// Names the `--by` columns, in order.
    ///
    /// # Errors
    ///
    /// Two columns with the same name: their trees would be one.
    pub fn set_columns<'a>(
        &mut self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), PartitionError> {
        self.columns.clear();
        for name in names {
            let escaped = escape(name.as_bytes());
            if self.columns.contains(&escaped) {
                return Err(PartitionError::Usage(format!(
                    "--by {name} is given twice (each --by column must be a different column)"
                )));
            }
            self.columns.push(escaped);
        }
        Ok(())
    }

    /// Records the name of a new group's key, giving it another if its
    /// shortened name is taken by a different key.
    pub fn add(&mut self, grouping: usize, key: &[u8]) {
        let room = self.room(grouping);
        for n in 0.. {
            let name = escape_within_nth(key, room, n);
            if !name.contains('~') {
                return; // kept whole: unique by construction
            }
            match self.shortened.entry((grouping, name)) {
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(key.into());
                    if n > 0 {
                        self.renamed.insert((grouping, key.into()), n);
                    }
                    return;
                }
                std::collections::hash_map::Entry::Occupied(slot) if **slot.get() == *key => return,
                std::collections::hash_map::Entry::Occupied(_) => {}
            }
        }
    }

    /// Room for the key's part of a name: `COLUMN=KEY` must fit in one
    /// file name in the Hive layout.
    fn room(&self, grouping: usize) -> usize {
        match self.layout {
            DatasetLayout::Hive => {
                let column = &self.columns[grouping];
                MAX_NAME_LEN.min(MAX_FILE_NAME.saturating_sub(column.len() + 1))
            }
            DatasetLayout::Flat if self.run_id.is_some() => {
                MAX_NAME_LEN.min(MAX_FILE_NAME - 1 - MAX_RUN_ID_LEN - self.extension.len())
            }
            DatasetLayout::Flat => MAX_NAME_LEN,
        }
    }

    /// The file of `key` in grouping (`--by` column) `grouping`, relative
    /// to the dataset's root.
    pub fn relative(&self, grouping: usize, key: &[u8]) -> PathBuf {
        let column = &self.columns[grouping];
        let n = if self.renamed.is_empty() {
            0
        } else {
            self.renamed
                .get(&(grouping, Box::from(key)))
                .copied()
                .unwrap_or(0)
        };
        let name = escape_within_nth(key, self.room(grouping), n);
        let mut path = PathBuf::new();
        match self.layout {
            DatasetLayout::Hive => {
                if self.several {
                    path.push(format!("by-{column}"));
                }
                path.push(format!("{column}={name}"));
                path.push(match &self.run_id {
                    Some(id) => format!("part-{id}-00000{}", self.extension),
                    None => format!("part-00000{}", self.extension),
                });
            }
            DatasetLayout::Flat => {
                if self.several {
                    path.push(column);
                }
                path.push(match &self.run_id {
                    Some(id) => format!("{name}.{id}{}", self.extension),
                    None => format!("{name}{}", self.extension),
                });
            }
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ColumnRef;
    use spool_io::write::Compression;

    #[test]
    fn a_long_column_name_leaves_the_key_less_room() {
        let mut options = Options::new(Vec::new(), PathBuf::from("out"), Vec::new());
        options.by = vec![ColumnRef("c".into()), ColumnRef("d".into())];
        let mut layout = FileLayout::new(&options);
        let long = "n".repeat(150);
        layout.set_columns(["c", long.as_str()]).unwrap();
        let key = vec![b'k'; 300];
        let path = Path::new("out").join(layout.relative(1, &key));
        let dir = path.parent().unwrap();
        assert_eq!(
            dir.parent().unwrap(),
            Path::new("out").join(format!("by-{long}"))
        );
        let name = dir.file_name().unwrap().to_str().unwrap();
        assert!(name.len() <= MAX_FILE_NAME, "{}", name.len());
        assert!(name.starts_with(&format!("{long}=")) && name.contains('~'));
        assert_eq!(
            layout.relative(0, b"a/b"),
            Path::new("by-c/c=a%2Fb/part-00000.tsv")
        );
    }

    #[test]
    fn a_key_whose_shortened_name_is_taken_gets_another() {
        let mut options = Options::new(Vec::new(), PathBuf::from("out"), Vec::new());
        options.layout = DatasetLayout::Flat;
        let mut layout = FileLayout::new(&options);
        layout.set_columns(["c"]).unwrap();
        let key = vec![b'k'; 300];
        let first = layout.relative(0, &key);
        // Another key already holds the name `key` would get.
        let name = escape_within_nth(&key, MAX_NAME_LEN, 0);
        layout.shortened.insert((0, name), Box::from(&b"other"[..]));
        layout.add(0, &key);
        let second = layout.relative(0, &key);
        assert_ne!(first, second);
        assert!(second.to_str().unwrap().contains('~'));
        layout.add(0, &key); // adding again keeps the name
        assert_eq!(layout.relative(0, &key), second);
    }

    #[test]
    fn a_run_id_is_in_every_name() {
        let mut options = Options::new(Vec::new(), PathBuf::from("out"), Vec::new());
        options.by = vec![ColumnRef("1".into())];
        options.run_id = Some("t-7".into());
        let mut layout = FileLayout::new(&options);
        layout.set_columns(["c"]).unwrap();
        assert_eq!(
            layout.relative(0, b"de"),
            Path::new("c=de/part-t-7-00000.tsv")
        );
        assert_eq!(layout.manifest(), "_partitions-t-7.tsv");
        let first = Path::new("c=de/part-t-7-00000.parquet");
        let twelfth = part_path(first, 12);
        assert_eq!(twelfth, Path::new("c=de/part-t-7-00012.parquet"));
        assert_eq!(part_path(first, 0), first);
        let text = Path::new("c=de/part-a00000.b-00000.tsv.zst");
        assert_eq!(
            part_path(text, 3),
            Path::new("c=de/part-a00000.b-00003.tsv.zst")
        );

        options.layout = DatasetLayout::Flat;
        options.compression = Compression::Zstd(3);
        let name_with = |id: &str| {
            let mut options = options.clone();
            options.run_id = Some(id.into());
            let mut layout = FileLayout::new(&options);
            layout.set_columns(["c"]).unwrap();
            move |key: &[u8]| layout.relative(0, key)
        };
        assert_eq!(name_with("t-7")(b"a.b"), Path::new("a.b.t-7.tsv.zst"));
        // A long key is shortened to the same name whatever the id, and the
        // longest id still fits in a file name.
        let key = vec![b'k'; 300];
        let short = name_with("x")(&key);
        let long = name_with(&"x".repeat(MAX_RUN_ID_LEN))(&key);
        assert!(
            long.as_os_str().len() <= MAX_FILE_NAME,
            "{}",
            long.display()
        );
        let stem = |p: &Path| p.to_str().unwrap().split('.').next().unwrap().to_owned();
        assert_eq!(stem(&short), stem(&long));
    }

    #[test]
    fn the_same_column_twice_is_refused() {
        let mut options = Options::new(Vec::new(), PathBuf::from("out"), Vec::new());
        options.by = vec![ColumnRef("1".into()), ColumnRef("1".into())];
        let mut layout = FileLayout::new(&options);
        assert!(layout.set_columns(["col1", "col1"]).is_err());
    }
}
