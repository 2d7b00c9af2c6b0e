//! Where a run's records come from: the user's inputs turned, once, into
//! an ordered list of sources, each read as records of the run's text
//! dialect.
//!
//! ```text
//!  inputs (files, directories, globs, -, s3://…, https://…)
//!    │ expand: in the order given; a directory's or a glob's files by
//!    │ path, a prefix's or a key glob's objects by key
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
//! inputs are Parquet or NDJSON is the exception: its records never become
//! text (see the `typed` module); it takes the sources' list, and their
//! record batches, from here.
//!
//! A remote location (an object store, a web server) is one more way to
//! open a source's bytes: the expansion lists it, and `open` hands its
//! reader to the same transcoders (see the `remote` module).
//!
//! | module | its job |
//! |---|---|
//! | `expand` | inputs to files, in a stated order |
//! | `detect` | a file's format from its first bytes and name |
//! | `hive` | the `NAME=VALUE` directories above a file |
//! | `json_fields`, `ndjson` | an NDJSON line's fields; NDJSON as text records |
//! | `ndjson_batches` | NDJSON as typed record batches, decoded on several threads |
//! | `parquet_text` | a Parquet file as text records |
//! | `text_out` | values written as one record of the run's dialect |
//! | `text_reader` | a transcoder's records as a `Read` |
//! | `remote` | `s3://` and `http(s)://` inputs: listed, read by ranges |
//! | `sources` | the run's sources: resolved once, opened one by one |
//! | `blocks` | the sources read ahead, in order, errors naming the user's file |

mod blocks;
mod detect;
mod expand;
mod hive;
mod json_fields;
mod ndjson;
mod ndjson_batches;
pub(crate) mod parquet_text;
mod remote;
mod sources;
mod text_out;
mod text_reader;

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use blocks::SourceBlocks;
pub(crate) use ndjson_batches::NdjsonBatches;
pub(crate) use remote::{is_remote, remote_reads_at_once, EARLY_READS, REMOTE_READ_BYTES};
pub(crate) use sources::SourceBatches;
pub use sources::Sources;
use text_out::TextDialect;

use crate::PartitionError;

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
    /// The types `--schema` gives (NDJSON sources read as batches).
    spec: crate::parquet::SchemaSpec,
    /// NDJSON sources' columns read as batches, found once.
    ndjson: OnceLock<Arc<ndjson_batches::NdjsonTable>>,
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
        self.skip_or(error).map_err(|e| self.fail(file, e))
    }

    /// An invalid record: counted with `--skip-invalid`, else `error()`.
    #[cold]
    pub fn skip_or(&self, error: impl FnOnce() -> PartitionError) -> Result<(), PartitionError> {
        if self.skip_invalid {
            self.skipped.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        Err(error())
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
