//! The output files of a run: one per group, named by the [`FileLayout`],
//! written by the [`Workers`] into the run's staging directory, and
//! published or removed together (see the `commit` module).
//!
//! A group's file is created when its first block is sent, so a group
//! whose every record was filtered out or skipped leaves no file. Group
//! `g`'s blocks all go to worker `g % workers`, through one FIFO queue, so
//! they reach the file in the order they were sent.

use std::path::{Path, PathBuf};

use spool_io::write::Chunk;

use crate::file_layout::{part_path, FileLayout};
use crate::typed::Rows;
use crate::workers::{Job, Payload, Workers, WriterFormat};
use crate::{MemoryPlan, Options, PartitionError};

/// One group's output file.
struct OutputFile {
    /// The `--by` column (grouping) it belongs to.
    grouping: usize,
    /// The group's key, as read.
    key: Box<[u8]>,
    /// Its current part's first block was sent: the part exists in the
    /// staging directory.
    created: bool,
    /// The number of its current part (text rolls over at the file
    /// limits, see the `buffers` module; Parquet's writers number their
    /// own parts).
    part: u32,
}

/// Every output file of a run and the threads that write them.
pub(crate) struct Outputs {
    /// How files are named.
    pub layout: FileLayout,
    /// Group `g`'s file is `files[g]`.
    files: Vec<OutputFile>,
    workers: Workers,
    /// The staging directory (the root of [`path`](Self::path)).
    root: PathBuf,
    /// The output directory (the root of [`final_path`](Self::final_path)).
    out: PathBuf,
    /// Bytes written, from the workers' reports.
    bytes_out: u64,
    /// Times a closed file was opened again, from the workers' reports.
    reopened: u64,
    /// Part files per group for the groups with more than one: the
    /// records of each, in order (Parquet: from the workers' reports;
    /// text: from [`next_part`](Self::next_part) and
    /// [`last_parts`](Self::last_parts)); a created group not listed has
    /// one file.
    parts: foldhash::HashMap<u32, Vec<u64>>,
}

impl Outputs {
    /// Starts the `plan`'s writer threads writing `format` under the
    /// staging directory `root`.
    ///
    /// # Errors
    ///
    /// As [`Workers::start`].
    pub fn new(
        options: &Options,
        plan: &MemoryPlan,
        format: &WriterFormat,
        root: &Path,
    ) -> Result<Self, PartitionError> {
        Ok(Outputs {
            layout: FileLayout::new(options),
            files: Vec::new(),
            workers: Workers::start(options, plan, format, root)?,
            root: root.to_path_buf(),
            out: options.out.clone(),
            bytes_out: 0,
            reopened: 0,
            parts: foldhash::HashMap::default(),
        })
    }

    /// Adds the file of a new group; its number is the group's id.
    pub fn add(&mut self, grouping: usize, key: &[u8]) -> u32 {
        let gid = self.files.len() as u32;
        self.layout.add(grouping, key);
        self.files.push(OutputFile {
            grouping,
            key: key.into(),
            created: false,
            part: 0,
        });
        gid
    }

    /// Groups so far.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// The grouping (`--by` column) group `gid` belongs to.
    pub fn grouping(&self, gid: usize) -> usize {
        self.files[gid].grouping
    }

    /// Group `gid`'s key.
    pub fn key(&self, gid: usize) -> &[u8] {
        &self.files[gid].key
    }

    /// Where group `gid`'s file (its first part) is written (in the
    /// staging directory).
    pub fn path(&self, gid: usize) -> PathBuf {
        self.root.join(self.relative(gid))
    }

    /// Where group `gid`'s file is once the run is published.
    pub fn final_path(&self, gid: usize) -> PathBuf {
        self.out.join(self.relative(gid))
    }

    /// Group `gid`'s file relative to the dataset's root.
    pub fn relative(&self, gid: usize) -> PathBuf {
        let file = &self.files[gid];
        self.layout.relative(file.grouping, &file.key)
    }

    /// The root files are written under until the publish.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every file group `gid` wrote, in the staging directory: its parts,
    /// in order (none if it was never created).
    pub fn part_paths(&self, gid: usize) -> Vec<PathBuf> {
        if !self.files[gid].created {
            return Vec::new();
        }
        let first = self.path(gid);
        match self.part_records(gid) {
            Some(records) => (0..records.len() as u32)
                .map(|i| part_path(&first, i))
                .collect(),
            None => vec![first],
        }
    }

    /// The records of each part of group `gid`, for a group that has
    /// other than one part (once the workers are joined).
    pub fn part_records(&self, gid: usize) -> Option<&[u64]> {
        self.parts.get(&(gid as u32)).map(Vec::as_slice)
    }

    /// Bytes written, once the workers are joined.
    pub fn bytes_out(&self) -> u64 {
        self.bytes_out
    }

    /// Times a closed file was opened again, once the workers are joined.
    pub fn reopened(&self) -> u64 {
        self.reopened
    }

    /// Moves text group `gid` to its next part, its current one done with
    /// `records` records: the next block sent creates the next part.
    pub fn next_part(&mut self, gid: u32, records: u64) {
        let file = &mut self.files[gid as usize];
        if file.created {
            file.part += 1;
            file.created = false;
            self.parts.entry(gid).or_default().push(records);
        }
    }

    /// Lists the records of the last part of each text group that rolled
    /// over, `total(gid)` being all of the group's records (at the end of
    /// the input, before the commit).
    pub fn last_parts(&mut self, total: impl Fn(usize) -> u64) {
        for (&gid, parts) in &mut self.parts {
            let earlier: u64 = parts.iter().sum();
            if self.files[gid as usize].created {
                parts.push(total(gid as usize) - earlier);
            }
        }
    }

    /// Sends a block to group `gid`'s worker (creating the file with the
    /// group's first block, and each later part with its first).
    ///
    /// # Errors
    ///
    /// If a worker failed or stopped, or the run was cancelled.
    pub fn send(&mut self, gid: u32, data: Chunk) -> Result<(), PartitionError> {
        self.send_payload(gid, Payload::Text(data))
    }

    /// Sends rows of a Parquet input to group `gid`'s worker, as
    /// [`send`](Self::send) sends text.
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send).
    pub fn send_batches(&mut self, gid: u32, rows: Rows) -> Result<(), PartitionError> {
        self.send_payload(gid, Payload::Batches(rows))
    }

    fn send_payload(&mut self, gid: u32, data: Payload) -> Result<(), PartitionError> {
        let g = gid as usize;
        let create = (!self.files[g].created).then(|| part_path(&self.path(g), self.files[g].part));
        self.files[g].created = true;
        self.workers.send(Job {
            group: gid,
            grouping: self.files[g].grouping,
            create,
            data,
        })
    }

    /// Fails if a worker failed or the run was cancelled.
    ///
    /// # Errors
    ///
    /// As [`Workers::check`].
    pub fn check(&self) -> Result<(), PartitionError> {
        self.workers.check()
    }

    /// Closes the workers' queues and waits for them; adds up their
    /// reports. Once joined, joining again does nothing.
    ///
    /// # Errors
    ///
    /// The first error a worker reported, or one saying it panicked.
    pub fn join_workers(&mut self) -> Result<(), PartitionError> {
        let joined = self.workers.join();
        self.bytes_out += joined.bytes_out;
        self.reopened += joined.reopened;
        self.parts.extend(joined.parts);
        match joined.error {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}
