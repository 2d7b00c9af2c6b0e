//! A run's sources: the user's inputs resolved once (expanded, their
//! format and hive keys found), then opened one by one as text records or
//! Arrow batches.

use std::io::{self, BufReader, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use arrow_array::{RecordBatch, RecordBatchReader};

use super::ndjson_batches::{NdjsonBatches, NdjsonTable, Opener};
use super::parquet_text::not_parquet;
use super::text_out::TextDialect;
use super::*;
use crate::{Options, PartitionError};

/// One source: a file (or `-`, or a remote object at its URL) and its
/// hive key values.
struct Source {
    path: PathBuf,
    hive: Vec<Vec<u8>>,
    object: Option<Arc<remote::Object>>,
}

/// A source read as record batches ([`Sources::open_batches`]).
pub(crate) struct SourceBatches {
    /// How many of the run's columns are the source's own (the hive keys
    /// follow).
    pub own: usize,
    /// Its batches, in order; an error ends them.
    pub batches: Box<dyn Iterator<Item = Result<RecordBatch, PartitionError>> + Send>,
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
    /// A directory, glob or object prefix with no file, a file that
    /// cannot be read, a bucket or URL that cannot be, files of different
    /// formats, hive keys that differ between files, or standard input
    /// given as Parquet; each names the user's path.
    pub fn resolve(options: &Options) -> Result<Self, PartitionError> {
        let mut remote = remote::Remote::new(options.verbose);
        let found = expand::expand(&options.inputs, &mut remote)?;
        let objects: Vec<_> = match options.source_format {
            Some(_) => Vec::new(),
            None => found.iter().filter_map(|f| f.object.as_ref()).collect(),
        };
        let mut remote_formats = remote::detect(&objects).into_iter();
        let mut format = options.source_format;
        for f in &found {
            let this = match (options.source_format, &f.object) {
                (Some(forced), _) => forced,
                (None, Some(_)) => remote_formats.next().expect("one per object"),
                (None, None) if f.path.as_os_str() == "-" => SourceFormat::Text,
                (None, None) => detect::detect(&f.path),
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
                object: f.object,
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
                spec: match &options.format {
                    crate::OutputFormat::Parquet(parquet) => parquet.schema.clone(),
                    crate::OutputFormat::Text => Default::default(),
                },
                ndjson: OnceLock::new(),
            }),
        })
    }

    /// The files, in order (`-` for standard input, a remote object's URL).
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

    /// Source `index`'s object, if it is remote.
    pub(crate) fn object(&self, index: usize) -> Option<&remote::Object> {
        self.list[index].object.as_deref()
    }

    /// The column types `--schema` gives (none for text output).
    pub(crate) fn spec(&self) -> &crate::parquet::SchemaSpec {
        &self.shared.spec
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
        if self.format == SourceFormat::Parquet {
            return self.open_parquet(index, counter);
        }
        let input = self.open_raw(index, counter)?;
        match self.format {
            SourceFormat::Ndjson => self.open_ndjson(index, input),
            _ => Ok(input),
        }
    }

    /// Opens Parquet source `index` as record batches of the
    /// [`batch_schema`](Self::batch_schema)'s own columns, adding the
    /// file's size to `counter`.
    ///
    /// # Errors
    ///
    /// A file that cannot be opened, is not Parquet, or has other columns
    /// than the first source's; each batch's error names the file.
    pub(crate) fn open_batches(
        &self,
        index: usize,
        counter: &Arc<AtomicU64>,
    ) -> Result<SourceBatches, PartitionError> {
        let reader = self.open_parquet_reader(index, counter)?;
        let own = reader.schema().fields().len();
        let path = self.list[index].path.clone();
        let mut rows = 0u64;
        let batches = reader.map(move |batch| {
            let batch = batch.map_err(|e| not_parquet(&path, format!("after row {rows}: {e}")))?;
            rows += batch.num_rows() as u64;
            Ok(batch)
        });
        Ok(SourceBatches {
            own,
            batches: Box::new(batches),
        })
    }

    /// The columns of the batches [`open_batches`](Self::open_batches)
    /// reads: the first Parquet source's (read from its footer if none
    /// was opened yet), or the NDJSON sources' fields (those of the first
    /// lines of the first source that has lines) in the types `--schema`
    /// gives.
    ///
    /// # Errors
    ///
    /// As [`open_batches`](Self::open_batches); for NDJSON, no source with
    /// a JSON object among its first lines, or a `--schema` name that is
    /// not a field.
    pub(crate) fn batch_schema(&self) -> Result<arrow_schema::SchemaRef, PartitionError> {
        if self.format == SourceFormat::Ndjson {
            return Ok(self.ndjson_table()?.schema().clone());
        }
        if let Some(schema) = self.shared.schema.get() {
            return Ok(schema.clone());
        }
        self.open_parquet_reader(0, &AtomicU64::new(0))?;
        Ok(self.shared.schema.get().expect("set by the open").clone())
    }

    /// Starts reading the NDJSON sources as record batches of the
    /// [`batch_schema`](Self::batch_schema), in order, decoding on
    /// `workers` threads and adding the raw bytes read to `counter`.
    ///
    /// # Errors
    ///
    /// As [`batch_schema`](Self::batch_schema), or a thread cannot be
    /// started; a source that cannot be opened or read, or an invalid
    /// line, is the error of the batches' reading, naming the file.
    pub(crate) fn ndjson_batches(
        &self,
        workers: usize,
        counter: &Arc<AtomicU64>,
    ) -> Result<NdjsonBatches, PartitionError> {
        let table = self.ndjson_table()?;
        let inputs: Vec<Opener> = (self.list.iter())
            .map(|source| {
                let (path, object) = (source.path.clone(), source.object.clone());
                let counter = counter.clone();
                let open: Opener = Box::new(move || open_raw(&path, object.as_ref(), counter));
                open
            })
            .collect();
        NdjsonBatches::start(inputs, table, self.shared.clone(), workers)
    }

    /// The NDJSON sources' columns and types, found once.
    fn ndjson_table(&self) -> Result<Arc<NdjsonTable>, PartitionError> {
        if let Some(table) = self.shared.ndjson.get() {
            return Ok(table.clone());
        }
        for (index, source) in self.list.iter().enumerate() {
            let input = self.open_raw(index, Arc::new(AtomicU64::new(0)))?;
            let mut input = BufReader::with_capacity(1 << 20, input);
            let Some(names) = ndjson::input_columns(&mut input, &mut Vec::new(), &source.path)?
            else {
                continue;
            };
            // The hive keys the objects do not hold are typed apart (the
            // typed run's schema).
            let added: Vec<&str> = (self.hive_names.iter())
                .filter(|h| !names.contains(h))
                .map(String::as_str)
                .collect();
            let types = self.shared.spec.without(&added).types_of(&names)?;
            let table = Arc::new(NdjsonTable::new(names, types));
            return Ok(self.shared.ndjson.get_or_init(|| table).clone());
        }
        Err(PartitionError::Usage(
            "every input is blank, so none names the columns for --by (NDJSON needs one object per line)"
                .into(),
        ))
    }

    /// Opens source `index`'s bytes (decompressed), adding the raw bytes
    /// read to `counter`.
    fn open_raw(
        &self,
        index: usize,
        counter: Arc<AtomicU64>,
    ) -> Result<Box<dyn Read + Send>, PartitionError> {
        let source = &self.list[index];
        open_raw(&source.path, source.object.as_ref(), counter)
    }

    /// Opens Parquet source `index` for reading in batches, checking its
    /// schema against the first source's; its size is added to `counter`.
    ///
    /// # Errors
    ///
    /// Not a Parquet file, or other columns than the first source's.
    fn open_parquet_reader(
        &self,
        index: usize,
        counter: &AtomicU64,
    ) -> Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader, PartitionError> {
        let path = &self.list[index].path;
        let reader = match &self.list[index].object {
            Some(object) => remote::open_parquet(object, counter)?,
            None => {
                let file =
                    std::fs::File::open(path).map_err(|e| spool_io::input::with_path(e, path))?;
                counter.fetch_add(file.metadata().map_or(0, |m| m.len()), Ordering::Relaxed);
                parquet_text::open_reader(file, path, |_| ())?
            }
        };
        let schema = reader.schema();
        let first = self.shared.schema.get_or_init(|| schema.clone());
        let first_path = &self.list[0].path;
        parquet_text::check_schema(first, first_path, &schema, path)?;
        Ok(reader)
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
        let reader = self.open_parquet_reader(index, &counter)?;
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
                let Some(names) = ndjson::input_columns(&mut input, &mut sample, path)? else {
                    return Ok(Box::new(io::empty()));
                };
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

/// Opens the bytes (decompressed) of the file at `path`, or of `object`,
/// adding the raw bytes read to `counter`.
fn open_raw(
    path: &std::path::Path,
    object: Option<&Arc<remote::Object>>,
    counter: Arc<AtomicU64>,
) -> Result<Box<dyn Read + Send>, PartitionError> {
    Ok(match object {
        Some(object) => remote::open_text(object, counter)?,
        None => spool_io::input::open_counted(path, Some(counter))?.0,
    })
}
