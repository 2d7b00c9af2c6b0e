//! The engine of `spool partition`: many inputs in (delimited text,
//! NDJSON, Parquet; local files or objects), one output file per key out,
//! in input order, in bounded memory, with a bounded number of open files.
//!
//! ```text
//!  inputs ─SourceBlocks─► router (this thread)         workers (one per core)
//!  (read ahead,           key = field(record)          own group g when
//!   decompressed)         append record to the  ──►    g % workers == i:
//!                         group's pool chunk;          encode block (plain,
//!                         full chunk → its worker      zstd frame, gzip member),
//!                                                      append to the group's
//!                                                      file in the staging dir
//!                                                      (LRU of open files);
//!                                                      publish: one rename
//! ```
//!
//! Order: one router reads the inputs in order and each group has exactly
//! one worker, fed through a FIFO queue, so a group's records reach its file
//! in input order (file order, then line order) without any lock.
//!
//! Memory: one [`MemoryPlan`] divides `--memory` before the run starts;
//! what it leaves after the read-ahead, the writer threads and the program
//! is the budget of one [`ChunkPool`] that every group's buffer draws from.
//! A group starts with a small chunk and moves up a size class as it
//! fills; a full largest chunk goes to the group's worker. When the pool's
//! budget is spent, the router sends the quarter of the buffers that hold
//! the most bytes and waits for memory to come back. The number of
//! distinct keys changes how large the written blocks are, never how much
//! memory is used.
//!
//! Files: the run holds an exclusive lock on the output and writes the
//! whole dataset into a hidden staging directory beside it, which is
//! published as the output with one rename once every input was read and
//! every block and the manifest written. On an error, an interruption or a
//! kill, no part of the dataset is ever visible under the output's name.
//!
//! # Examples
//!
//! ```
//! use spool_partition::{ColumnRef, Options, Run};
//! let dir = std::env::temp_dir().join(format!("spool-partition-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! std::fs::write(dir.join("in.csv"), "city,n\nBerlin,1\nParis,2\nBerlin,3\n")?;
//! let mut options = Options::new(vec![dir.join("in.csv")], dir.join("out"), vec![ColumnRef("city".into())]);
//! (options.delimiter, options.quote, options.header) = (b',', Some(b'"'), true);
//! let run = Run::new(&options)?; // checked and planned; nothing written yet
//! assert_eq!(run.memory().total(), options.memory);
//! let summary = run.execute()?;
//! assert_eq!((summary.records_in, summary.groups.len()), (3, 2));
//! let berlin = std::fs::read_to_string(dir.join("out/city=Berlin/part-00000.csv"))?;
//! assert_eq!(berlin, "city,n\nBerlin,1\nBerlin,3\n");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The parts, one job each
//!
//! | module | its job |
//! |---|---|
//! | `options` | what a run is asked to do ([`Options`]) |
//! | `typed` | a Parquet run whose inputs are Parquet: record batches routed by key, the input's types kept |
//! | `source` | the inputs as an ordered list of files, their format, each read as text records ([`Sources`]) |
//! | [`memory_plan`] | where each byte of `--memory` goes ([`MemoryPlan`]) |
//! | [`open_files`] | how many output files fit the process's open-file limit |
//! | `run` | the whole run, in order: check, plan, choose the path (text, typed, S3), publish or abort ([`Run`]) |
//! | `text_run` | the text path under way: writer threads, buffers and router started together, the inputs read through them, finish or abort |
//! | `router` | a record's keys to its groups: columns, filters, the header, new groups |
//! | `invalid_records` | records that cannot be routed: an error naming the line, or a count |
//! | `rescan` | a Parquet record error found by a writer thread, located by reading again |
//! | `key_table` | the router's table from a key's bytes to its group, short keys compared in registers |
//! | `buffers` | the groups' buffers under the pool's budget: growing, early flushes, waiting for memory |
//! | `outputs` | one output file per group: its name, its path, its worker |
//! | `workers` | the writer threads: encode each block, append it, keep at most `max_open` files open |
//! | `file_layout` | file names: Hive or flat layout, escaped keys within name limits, extensions, no two alike |
//! | [`destination`] | where the finished files go, chosen once: a local dataset or an S3 prefix, new, replacing or one append run |
//! | `staging` | where the files are written until published: a whole new dataset, or one run's files appended |
//! | [`append_run`] | one run's files added to a dataset other runs add to at the same time: its own lock and staging, moved in without replacing, its manifest last, dead runs undone |
//! | `commit` | the end: manifest, `--fsync`, one publish ([`StagedDir`]) or one rename per file ([`AppendRun`]) |
//! | `columns` | `--by` and `--where` columns resolved against the header |
//! | [`dataset`] | a dataset of several runs read back as one: the manifests merged, unlisted files found |
//! | [`clean`] | what dead appending runs left, removed |
//! | [`s3`] | `--out s3://…`: the dataset uploaded and committed to a bucket; `clean` there (the `s3` feature, on by default) |
//! | [`escape`] | keys as file names, reversibly |
//! | [`choices`] | delimiters, quotes and compressions by name, as the CLI and Python take them |
//! | [`parquet`] | `--format parquet`: the table, typed values, Parquet writers |
//! | `writer_memory` | the Parquet writers' row groups charged to the budget |
//! | `summary`, `error` | what a run did; why it failed |
//!
//! [`ChunkPool`]: spool_io::write::ChunkPool
//! [`StagedDir`]: spool_io::write::StagedDir
//! [`AppendRun`]: crate::append_run::AppendRun
#![deny(missing_docs, unsafe_code)]
#![doc(test(attr(deny(warnings))))]

pub mod append_run;
mod buffers;
pub mod choices;
pub mod clean;
mod columns;
mod commit;
pub mod dataset;
pub mod destination;
mod error;
pub mod escape;
mod file_layout;
mod invalid_records;
mod key_table;
pub mod memory_plan;
pub mod open_files;
mod options;
mod outputs;
pub mod parquet;
mod rescan;
mod router;
mod run;
pub mod s3;
mod source;
mod staging;
mod summary;
mod text_run;
mod typed;
mod workers;
mod writer_memory;

pub use columns::{Column, ColumnRef, Filter};
pub use error::PartitionError;
pub use file_layout::MANIFEST_PREFIX;
pub use memory_plan::MemoryPlan;
pub use options::{BufferSizes, DatasetLayout, Options, OutputFormat, DEFAULT_MEMORY};
pub use run::{run, Run};
pub use source::{SourceFormat, Sources};
pub use summary::{GroupSummary, Summary};
