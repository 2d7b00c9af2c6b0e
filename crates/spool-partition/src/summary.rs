//! What a run did: counts, every file written, the manifest, and what
//! dead runs left that the run removed — what `spool partition` prints
//! and `spool.partition` returns.

use std::path::PathBuf;
use std::time::Duration;

/// One output file.
#[derive(Clone, Debug)]
pub struct GroupSummary {
    /// The `--by` column it belongs to.
    pub column: String,
    /// The key.
    pub key: Vec<u8>,
    /// The file written (with Parquet, its first part).
    pub path: PathBuf,
    /// Records written (not counting the header).
    pub records: u64,
    /// Files written: 1, or with Parquet the number of parts.
    pub files: u32,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Records read (headers excluded).
    pub records_in: u64,
    /// Records dropped by `--where`.
    pub filtered: u64,
    /// Records skipped for too few fields or an unterminated quote
    /// (`--skip-invalid`).
    pub skipped_invalid: u64,
    /// Decompressed bytes read.
    pub bytes_in: u64,
    /// Bytes written (after compression).
    pub bytes_out: u64,
    /// Times a closed output file was opened again.
    pub reopened: u64,
    /// Chunks sent before they were full because the pool was spent.
    pub early_flushes: u64,
    /// Bookkeeping for keys that did not fit in the memory budget (so many
    /// distinct keys that their table alone outgrew it); 0 normally.
    pub over_budget_bytes: u64,
    /// Every output file, in the order its key first appeared.
    pub groups: Vec<GroupSummary>,
    /// The run's manifest, `OUT/_partitions.tsv` (`OUT/_partitions-ID.tsv`
    /// with a run id), once published.
    pub manifest: PathBuf,
    /// Staging directories of dead (killed) runs into the same output,
    /// removed at the start.
    pub stale_removed: Vec<PathBuf>,
    /// From the last input byte read to the dataset visible: the last
    /// blocks written, the writers joined, the commit (for an `s3://`
    /// output, the files' unsent rests and the commit's requests).
    pub finishing: Duration,
}
