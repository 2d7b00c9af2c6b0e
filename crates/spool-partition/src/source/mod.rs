//! Where a run's records come from: the user's inputs turned, once, into
//! an ordered list of sources, each read as records of the run's text
//! dialect.
//!
//! ```text
//!  inputs (files, directories, globs, -)
//!    │ expand: in the order given; a directory's or a glob's files by path
//!    ▼
//!  sources: path, hive keys (ROOT/k=v/…), one format for all
//!    │ detect: Parquet magic, then the name, then a first `{`
//!    │ (--input-format decides instead); gzip/zstd by magic, per file
//!    ▼
//!  open(i): text as it is ─────────────────┐
//!           NDJSON ─► records + header ────┼─► ChunkReader ─► blocks ─► router
//!           Parquet ─► records + header ───┘
//! ```
//!
//! Every later stage (the router, the key table, the text and Parquet
//! writers) sees delimited text, whatever the source. A Parquet run whose
//! inputs are Parquet is the exception: its records never become text
//! (see the `typed` module); it takes the sources' list from here.
//!
//! A new kind of location (an object store) is one more way to open a
//! source's bytes: the expansion lists it, and `open` hands its reader to
//! the same transcoders.
//!
//! | module | its job |
//! |---|---|
//! | `expand` | inputs to files, in a stated order |
//! | `detect` | a file's format from its first bytes and name |
//! | `hive` | the `NAME=VALUE` directories above a file |
//! | `json_fields`, `ndjson` | an NDJSON line's fields; NDJSON as text records |
//! | `parquet_text` | a Parquet file as text records |
//! | `text_out` | values written as one record of the run's dialect |
//! | `text_reader` | a transcoder's records as a `Read` |
//! | `blocks` | the sources read ahead, in order, errors naming the user's file |

mod blocks;
mod detect;
mod expand;
mod hive;
mod json_fields;
mod ndjson;
pub(crate) mod parquet_text;
mod text_out;
mod text_reader;

use std::io::{self, BufReader, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use blocks::SourceBlocks;
use text_out::TextDialect;

use arrow_array::RecordBatchReader;

use crate::{Options, PartitionError};

/// What the input files hold (`--input-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    /// Delimited text (CSV, TSV) in the dialect the options give.
    Text,
    /// One JSON object per line.
    Ndjson,
    /// Apache Parquet.
    Parquet,
}

impl SourceFormat {
    /// Its name in messages and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SourceFormat::Text => "text",
            SourceFormat::Ndjson => "ndjson",
            SourceFormat::Parquet => "parquet",
        }
    }
}

/// The columns of a transcoded source: names, and each name's index.
pub(crate) struct Columns {
    pub names: Vec<String>,
    pub index: foldhash::HashMap<String, usize>,
    /// The column of each hive key (past the file's own, or the file's
    /// own column of that name, whose value then wins).
    pub hive: Vec<usize>,
}

impl Columns {
    /// The file's `own` columns and then the hive keys the file has no
    /// column for.
    fn new(own: Vec<String>, hive_names: &[String]) -> Self {
        let mut names = own;
        let mut index: foldhash::HashMap<String, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        let hive = (hive_names.iter())
            .map(|name| {
                *index.entry(name.clone()).or_insert_with(|| {
                    names.push(name.clone());
                    names.len() - 1
                })
            })
            .collect();
        Columns { names, index, hive }
    }
}

/// What the transcoders of one run share.
pub(crate) struct Transcoding {
    pub paths: Vec<PathBuf>,
    pub dialect: TextDialect,
    pub skip_invalid: bool,
    /// Records skipped as invalid by the transcoders.
    pub skipped: AtomicU64,
    /// Each failed source's error, by source index, for the reader to
    /// report in place of the "transcoding failed" its read returned.
    errors: Mutex<foldhash::HashMap<usize, PartitionError>>,
    /// Set by the first source opened that has records.
    columns: OnceLock<Arc<Columns>>,
    /// The first Parquet source's schema, which the others must match.
    schema: OnceLock<arrow_schema::SchemaRef>,
}

impl Transcoding {
    /// The header record naming `columns` (their names were checked to
    /// be writable when the columns were set).
    pub fn header(&self, columns: &Columns) -> Vec<u8> {
        let mut out = Vec::new();
        let names = columns.names.iter().map(|n| n.as_bytes());
        let written = self.dialect.record(names, &mut out);
        debug_assert!(written.is_ok(), "names checked when the columns were set");
        out
    }

    /// A record of source `file` that cannot be written: counted with
    /// `--skip-invalid`, else `error()` is kept for the reader and the
    /// read fails.
    #[cold]
    pub fn invalid(&self, file: usize, error: impl FnOnce() -> PartitionError) -> io::Result<()> {
        if self.skip_invalid {
            self.skipped.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        Err(self.fail(file, error()))
    }

    /// Keeps `error` (about source `file`) for the reader; the I/O error
    /// the transcoder's read returns instead.
    pub fn fail(&self, file: usize, error: PartitionError) -> io::Error {
        let mut errors = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        errors.entry(file).or_insert(error);
        io::Error::other("transcoding failed")
    }
}

/// What a transcoder writes one source's records with.
pub(crate) struct Target {
    /// The source's index.
    pub file: usize,
    pub shared: Arc<Transcoding>,
    pub columns: Arc<Columns>,
    /// The source's hive key values, as `columns.hive`.
    pub hive: Vec<Vec<u8>>,
}

impl Target {
    /// The header record.
    fn header(&self) -> Vec<u8> {
        self.shared.header(&self.columns)
    }
}

/// One source: a file (or `-`) and its hive key values.
struct Source {
    path: PathBuf,
    hive: Vec<Vec<u8>>,
}

/// A run's sources, in order; see the module docs.
pub struct Sources {
    list: Vec<Source>,
    format: SourceFormat,
    hive_names: Vec<String>,
    shared: Arc<Transcoding>,
}

impl Sources {
    /// Expands `options.inputs` and finds their format (or takes
    /// `options.source_format`).
    ///
    /// # Errors
    ///
    /// A directory or glob with no file, a file that cannot be read, files
    /// of different formats, hive keys that differ between files, or
    /// standard input given as Parquet; each names the user's path.
    pub fn resolve(options: &Options) -> Result<Self, PartitionError> {
        let found = expand::expand(&options.inputs)?;
        let mut format = options.source_format;
        for f in &found {
            let this = match options.source_format {
                Some(forced) => forced,
                None if f.path.as_os_str() == "-" => SourceFormat::Text,
                None => detect::detect(&f.path),
            };
            match format {
                None => format = Some(this),
                Some(first) if first != this => {
                    return Err(PartitionError::Usage(format!(
                        "{} holds {}, {} {}: give inputs of one format",
                        f.path.display(),
                        this.name(),
                        found[0].path.display(),
                        first.name()
                    )))
                }
                Some(_) => {}
            }
        }
        let format = format.unwrap_or(SourceFormat::Text);
        let mut hive_names: Option<Vec<String>> = None;
        let mut list = Vec::with_capacity(found.len());
        for f in found {
            if format == SourceFormat::Parquet && f.path.as_os_str() == "-" {
                return Err(PartitionError::Usage(
                    "Parquet cannot be read from standard input (its index is at its end): give a file"
                        .into(),
                ));
            }
            let keys = match (&f.root, format) {
                (Some(root), SourceFormat::Ndjson | SourceFormat::Parquet) => {
                    hive::keys(&f.path, root)
                }
                _ => Vec::new(),
            };
            let (names, values): (Vec<String>, Vec<Vec<u8>>) = keys.into_iter().unzip();
            match &hive_names {
                None => hive_names = Some(names),
                Some(first) if *first != names => {
                    return Err(PartitionError::Usage(format!(
                        "{}: its directories name the keys [{}], the first file's [{}]: a hive dataset's files have the same keys",
                        f.path.display(),
                        names.join(", "),
                        first.join(", ")
                    )))
                }
                Some(_) => {}
            }
            list.push(Source {
                path: f.path,
                hive: values,
            });
        }
        let paths = list.iter().map(|s| s.path.clone()).collect();
        Ok(Sources {
            list,
            format,
            hive_names: hive_names.unwrap_or_default(),
            shared: Arc::new(Transcoding {
                paths,
                dialect: TextDialect {
                    delimiter: options.delimiter,
                    quote: options.quote,
                },
                skip_invalid: options.skip_invalid,
                skipped: AtomicU64::new(0),
                errors: Mutex::default(),
                columns: OnceLock::new(),
                schema: OnceLock::new(),
            }),
        })
    }

    /// The files, in order (`-` for standard input).
    pub fn paths(&self) -> &[PathBuf] {
        &self.shared.paths
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// What they hold.
    pub fn format(&self) -> SourceFormat {
        self.format
    }

    /// The hive keys their directories name, outermost first.
    pub fn hive_names(&self) -> &[String] {
        &self.hive_names
    }

    /// Source `index`'s hive key values, as [`hive_names`](Self::hive_names).
    pub fn hive_values(&self, index: usize) -> &[Vec<u8>] {
        &self.list[index].hive
    }

    /// Records the transcoders skipped as invalid (`--skip-invalid`).
    pub fn skipped(&self) -> u64 {
        self.shared.skipped.load(Ordering::Relaxed)
    }

    /// The error source `index`'s transcoder failed with, if it did.
    pub(crate) fn take_error(&self, index: usize) -> Option<PartitionError> {
        let mut errors = self.shared.errors.lock().unwrap_or_else(|e| e.into_inner());
        errors.remove(&index)
    }

    /// Opens source `index` as text records, adding the raw bytes read
    /// to `counter`. Sources are opened in order: an NDJSON source's
    /// columns are set by the first one opened that has lines.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or its first lines read.
    pub(crate) fn open(
        &self,
        index: usize,
        counter: Arc<AtomicU64>,
    ) -> Result<Box<dyn Read + Send>, PartitionError> {
        let path = &self.list[index].path;
        if self.format == SourceFormat::Parquet {
            return self.open_parquet(index, counter);
        }
        let (input, _) = spool_io::input::open_counted(path, Some(counter))?;
        match self.format {
            SourceFormat::Ndjson => self.open_ndjson(index, input),
            _ => Ok(input),
        }
    }

    /// Opens Parquet source `index` for reading in batches, checking its
    /// schema against the first source's; its size is added to `counter`.
    ///
    /// # Errors
    ///
    /// Not a Parquet file, or other columns than the first source's.
    pub(crate) fn open_batches(
        &self,
        index: usize,
        counter: &AtomicU64,
    ) -> Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader, PartitionError> {
        let path = &self.list[index].path;
        let file = std::fs::File::open(path).map_err(|e| spool_io::input::with_path(e, path))?;
        counter.fetch_add(file.metadata().map_or(0, |m| m.len()), Ordering::Relaxed);
        let reader = parquet_text::open_reader(file, path)?;
        let schema = reader.schema();
        let first = self.shared.schema.get_or_init(|| schema.clone());
        let first_path = &self.list[0].path;
        parquet_text::check_schema(first, first_path, &schema, path)?;
        Ok(reader)
    }

    /// The first Parquet source's schema (read from its footer if no
    /// source was opened yet).
    ///
    /// # Errors
    ///
    /// As [`open_batches`](Self::open_batches).
    pub(crate) fn parquet_schema(&self) -> Result<arrow_schema::SchemaRef, PartitionError> {
        if let Some(schema) = self.shared.schema.get() {
            return Ok(schema.clone());
        }
        self.open_batches(0, &AtomicU64::new(0))?;
        Ok(self.shared.schema.get().expect("set by the open").clone())
    }

    fn target(&self, index: usize, columns: Arc<Columns>) -> Target {
        Target {
            file: index,
            shared: self.shared.clone(),
            columns,
            hive: self.list[index].hive.clone(),
        }
    }

    fn open_parquet(
        &self,
        index: usize,
        counter: Arc<AtomicU64>,
    ) -> Result<Box<dyn Read + Send>, PartitionError> {
        let reader = self.open_batches(index, &counter)?;
        let columns = self.shared.columns.get_or_init(|| {
            let schema = reader.schema();
            let own = schema.fields().iter().map(|f| f.name().clone()).collect();
            Arc::new(Columns::new(own, &self.hive_names))
        });
        Ok(Box::new(parquet_text::ParquetText::reader(
            reader,
            self.target(index, columns.clone()),
        )))
    }

    fn open_ndjson(
        &self,
        index: usize,
        input: Box<dyn Read + Send>,
    ) -> Result<Box<dyn Read + Send>, PartitionError> {
        let path = &self.list[index].path;
        let mut input = BufReader::with_capacity(1 << 20, input);
        let mut sample = Vec::new();
        let columns = match self.shared.columns.get() {
            Some(columns) => columns.clone(),
            None => {
                let names = ndjson::sample_columns(&mut input, &mut sample)
                    .map_err(|e| spool_io::input::with_path(e, path))?;
                if sample.is_empty() {
                    return Ok(Box::new(io::empty()));
                }
                let columns = Columns::new(names, &self.hive_names);
                let mut probe = Vec::new();
                let names = columns.names.iter().map(|n| n.as_bytes());
                if self.shared.dialect.record(names, &mut probe).is_err() {
                    return Err(PartitionError::Usage(format!(
                        "{}: a field name {}",
                        path.display(),
                        self.shared.dialect.unwritable_hint()
                    )));
                }
                self.shared
                    .columns
                    .get_or_init(|| Arc::new(columns))
                    .clone()
            }
        };
        let input = io::Cursor::new(sample).chain(input);
        Ok(Box::new(ndjson::NdjsonText::reader(
            Box::new(input),
            self.target(index, columns),
        )))
    }
}
