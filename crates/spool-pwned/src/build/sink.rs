//! Where parsed records go: straight into the index while the input is in
//! hash order, into buckets from the first record that is not.
//!
//! The official downloader writes hashes in order, so the common build is
//! one pass: no temporary files, little memory. An older, prevalence-ordered
//! archive switches to sorting at its second line; everything streamed
//! before the switch is read back from the unfinished index and dealt into
//! the buckets too, so the switch costs at most one re-read of what was
//! written. Either way equal hashes' counts are added by
//! [`MergeCounts`](super::hash_count::MergeCounts).

use std::io;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use spool_io::progress::{Phase, Progress};

use crate::format::{HashKind, Header};

use super::buckets::{drain, Buckets};
use super::hash_count::{self, sort_key, HashCount, MergeCounts};
use super::sort::BucketRun;
use super::write::encoded_run::EncodedRun;
use super::write::IndexWriter;

/// Allowance for the buckets in flight at the end, on top of the arena
/// (about 11 MiB at 100 million hashes). An input whose buckets need more
/// (near a billion hashes) has the arena spilled and given back first: one
/// more spill file, about 2% more spilled data at that size.
pub const DRAIN_HEADROOM: usize = 12 << 20;

/// Adds the counts of adjacent equal hashes and feeds the writer.
pub struct Dedup {
    writer: IndexWriter,
    merge: MergeCounts,
    kind: HashKind,
}

impl Dedup {
    /// Starts a new index at `output`.
    pub fn new(output: &Path, kind: HashKind) -> io::Result<Self> {
        Ok(Dedup {
            writer: IndexWriter::create(output, kind)?,
            merge: MergeCounts::default(),
            kind,
        })
    }

    /// Adds `r`; records must come in non-decreasing hash order.
    #[inline]
    fn push(&mut self, r: &HashCount) -> io::Result<()> {
        match self.merge.push(r) {
            Some(done) => self.write(&done),
            None => Ok(()),
        }
    }

    fn write(&mut self, r: &HashCount) -> io::Result<()> {
        self.writer
            .push(&r[..self.kind.byte_len()], hash_count::count(r))
    }

    /// Writes the last record and finishes the index; returns its header
    /// and the number of duplicates merged.
    fn finish(mut self) -> io::Result<(Header, u64)> {
        if let Some(last) = self.merge.finish() {
            self.write(&last)?;
        }
        Ok((self.writer.finish()?, self.merge.duplicates))
    }
}

/// Where parsed records go; see the module docs.
pub enum Sink {
    /// Every record so far was in hash order: they went into the index.
    Streaming(Dedup),
    /// A record came out of order: everything goes into the buckets.
    Sorting(Buckets),
}

impl Sink {
    /// Takes a batch from a parsing thread. A batch in hash order keeps
    /// streaming if it follows what was streamed; anything else goes into
    /// buckets, run by run. Returns the duplicates merged while streaming
    /// when the sink switches to sorting.
    pub fn push_batch(
        &mut self,
        records: &[HashCount],
        sorted: bool,
        runs: &[BucketRun],
        make_buckets: &dyn Fn() -> io::Result<Buckets>,
    ) -> io::Result<u64> {
        if let Sink::Streaming(dedup) = self {
            let follows = match (dedup.merge.pending(), records.first()) {
                (Some(p), Some(first)) => sort_key(p) <= sort_key(first),
                _ => true,
            };
            if sorted && follows {
                for r in records {
                    dedup.push(r)?;
                }
                return Ok(0);
            }
        }
        let duplicates = self.switch_to_sorting(make_buckets)?;
        let Sink::Sorting(store) = self else {
            unreachable!("switched")
        };
        store.push_runs(records, runs)?;
        Ok(duplicates)
    }

    /// From streaming to sorting: everything streamed so far goes into the
    /// buckets too. The duplicates merged while streaming are already
    /// single records; their number is returned.
    fn switch_to_sorting(
        &mut self,
        make_buckets: &dyn Fn() -> io::Result<Buckets>,
    ) -> io::Result<u64> {
        if let Sink::Sorting(_) = self {
            return Ok(0);
        }
        let Sink::Streaming(dedup) = std::mem::replace(self, Sink::Sorting(make_buckets()?)) else {
            unreachable!("checked above")
        };
        let Sink::Sorting(store) = self else {
            unreachable!("just replaced")
        };
        let Dedup {
            writer, mut merge, ..
        } = dedup;
        writer.into_records(|rec| store.push(rec))?;
        if let Some(p) = merge.finish() {
            store.push(p)?;
        }
        Ok(merge.duplicates)
    }
}

/// What the sink did, at the end.
pub struct Finished {
    /// The index's header.
    pub header: Header,
    /// Records merged into an equal hash before them.
    pub duplicates: u64,
    /// Spill files written.
    pub spills: usize,
}

impl Sink {
    /// A sink streaming into a new index at `output`.
    ///
    /// # Errors
    ///
    /// If the index's temporary file cannot be created.
    pub fn new(output: &Path, kind: HashKind) -> io::Result<Self> {
        Ok(Sink::Streaming(Dedup::new(output, kind)?))
    }

    /// Writes what is left and commits the index at `output`: a streaming
    /// sink finishes its index; a sorting one sorts every bucket on
    /// `threads` threads and writes them in hash order.
    ///
    /// # Errors
    ///
    /// I/O errors naming the file.
    pub fn finish(
        self,
        output: &Path,
        kind: HashKind,
        threads: usize,
        progress: Option<&Progress>,
    ) -> io::Result<Finished> {
        let mut store = match self {
            Sink::Streaming(dedup) => {
                if let Some(progress) = progress {
                    progress.set_phase(Phase::Finishing);
                }
                let (header, duplicates) = dedup.finish()?;
                return Ok(Finished {
                    header,
                    duplicates,
                    spills: 0,
                });
            }
            Sink::Sorting(store) => store,
        };
        if let Some(progress) = progress {
            progress.set_phase(Phase::Sorting);
        }
        if drain::drain_memory(&store, threads) > DRAIN_HEADROOM {
            store.release_arena()?;
        } else {
            store.release_ahead();
        }
        let spills = store.spills();
        let mut writer = IndexWriter::create(output, kind)?;
        let mut duplicates = 0;
        // Encoding buffers go back to the workers once written.
        let buffers = Mutex::new(Vec::new());
        let reuse = || buffers.lock().unwrap_or_else(PoisonError::into_inner).pop();
        drain::drain_sorted(
            &store,
            threads,
            |bucket| EncodedRun::new(bucket, kind, reuse().unwrap_or_default()),
            |run| {
                duplicates += run.duplicates;
                writer.append(&run)?;
                let mut buffers = buffers.lock().unwrap_or_else(PoisonError::into_inner);
                buffers.push(run.into_bytes());
                Ok(())
            },
        )?;
        // The arena and spill files go before the index is finished: its
        // last steps (checksums, table) then do not add to the peak.
        drop(store);
        if let Some(progress) = progress {
            progress.set_phase(Phase::Finishing);
        }
        Ok(Finished {
            header: writer.finish()?,
            duplicates,
            spills,
        })
    }
}
