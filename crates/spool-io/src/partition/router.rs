//! The router: reads blocks in input order, finds each record's keys and
//! appends the record to its groups' chunks; see the [parent docs](super).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use regex::bytes::Regex;

use super::escape::{escape, escape_full, escape_within, MAX_NAME_LEN};
use super::workers::{self, Job, Worker};
use super::{Column, GroupSummary, Layout, Options, PartitionError, Summary};
use crate::read::{fields::field, Block, FileBlocks, Record, Records};
use crate::write::{Chunk, ChunkPool, PartialFile};

/// Longest file name (in bytes) the common file systems allow (ext4, XFS,
/// Btrfs, ZFS; APFS and NTFS count 255 characters).
const MAX_FILE_NAME: usize = 255;

/// Most `--by` columns in one run.
pub const MAX_GROUPINGS: usize = 16;

/// Memory charged per group besides its key: the group record, two
/// hash-table entries (router and writer) and the writer's path.
const GROUP_OVERHEAD: usize = 192;

/// One output group.
struct Group {
    grouping: usize,
    key: Box<[u8]>,
    chunk: Option<Chunk>,
    /// The file was created (its first block sent).
    created: bool,
    /// The header went into the group's first block.
    header_done: bool,
    records: u64,
}

struct ResolvedFilter {
    index: usize,
    regex: Regex,
    negate: bool,
}

struct Router<'a> {
    options: &'a Options,
    columns: Vec<Column>,
    filters: Vec<ResolvedFilter>,
    /// Raw header line (ends with a newline) once seen.
    header: Option<Vec<u8>>,
    keys: Vec<HashMap<Box<[u8]>, u32, foldhash::fast::RandomState>>,
    groups: Vec<Group>,
    /// Bytes of the chunks the groups hold (not in flight, not free).
    held: usize,
    /// Bytes of group bookkeeping charged to the pool for good.
    charged: usize,
    /// The run created the output directory (so an abort removes it).
    created_out: bool,
    pool: ChunkPool,
    workers: Vec<Worker>,
    failed: Arc<AtomicBool>,
    extension: String,
    summary: Summary,
}

/// Partitions `options.inputs` into `options.out`.
///
/// # Errors
///
/// Bad options, an unreadable input, a record with too few fields (unless
/// `skip_invalid`), a header that differs between inputs, a write error,
/// or cancellation. On every error the partial output is removed.
///
/// # Examples
///
/// ```
/// use spool_io::partition::{run, ColumnRef, Options};
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-partition-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("in.tsv"), "de\tBerlin\nfr\tParis\nde\tBonn\n")?;
/// let out = dir.join("out");
/// let options = Options::new(vec![dir.join("in.tsv")], out.clone(), vec![ColumnRef("1".into())]);
/// let summary = run(&options)?;
/// assert_eq!(summary.groups.len(), 2);
/// let de = std::fs::read_to_string(out.join("col1=de/part-00000.tsv"))?;
/// assert_eq!(de, "de\tBerlin\nde\tBonn\n");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(options: &Options) -> Result<Summary, PartitionError> {
    if options.by.is_empty() || options.by.len() > MAX_GROUPINGS {
        return Err(PartitionError::Usage(format!(
            "give between 1 and {MAX_GROUPINGS} --by columns"
        )));
    }
    if options.inputs.is_empty() {
        return Err(PartitionError::Usage("no input files".into()));
    }
    let created_out = prepare_out_dir(&options.out, options.force)?;
    let mut router = match Router::new(options, created_out) {
        Ok(router) => router,
        Err(e) => {
            if created_out {
                let _ = std::fs::remove_dir(&options.out);
            }
            return Err(e);
        }
    };
    let result = router.route_all();
    let result = match result {
        Ok(()) => router.finish(),
        Err(e) => {
            // A worker's own error says more than the router's "write failed".
            Err(router.abort().map_or(e, PartitionError::Io))
        }
    };
    result.map(|()| router.summary)
}

/// Checks or creates the output directory; returns whether it was created.
fn prepare_out_dir(out: &Path, force: bool) -> Result<bool, PartitionError> {
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

impl<'a> Router<'a> {
    fn new(options: &'a Options, created_out: bool) -> Result<Self, PartitionError> {
        let failed = Arc::new(AtomicBool::new(false));
        // Each writer keeps at least one file open, so more writers than
        // `max_open` would open more files than allowed.
        let n = options.workers.clamp(1, options.max_open.max(1));
        let per_worker_open = (options.max_open / n).max(1);
        let workers = (0..n)
            .map(|_| workers::spawn(options.compression, per_worker_open, 256, failed.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        let extension = format!(
            "{}{}",
            match options.delimiter {
                b'\t' => ".tsv",
                b',' => ".csv",
                _ => ".txt",
            },
            options.compression.suffix()
        );
        let mut router = Router {
            options,
            columns: Vec::new(),
            filters: Vec::new(),
            header: None,
            keys: (0..options.by.len()).map(|_| HashMap::default()).collect(),
            groups: Vec::new(),
            held: 0,
            charged: 0,
            created_out,
            pool: ChunkPool::with_classes(
                options.min_chunk_len.min(options.chunk_len),
                options.chunk_len,
                options.chunk_budget,
            ),
            workers,
            failed,
            extension,
            summary: Summary::default(),
        };
        if !options.header {
            router.resolve_columns(None)?;
        }
        Ok(router)
    }

    fn resolve_columns(&mut self, header: Option<&[&str]>) -> Result<(), PartitionError> {
        self.columns = self
            .options
            .by
            .iter()
            .map(|c| c.resolve(header))
            .collect::<Result<_, _>>()?;
        self.filters = self
            .options
            .filters
            .iter()
            .map(|f| {
                Ok(ResolvedFilter {
                    index: f.column.resolve(header)?.index,
                    regex: f.regex.clone(),
                    negate: f.negate,
                })
            })
            .collect::<Result<_, PartitionError>>()?;
        Ok(())
    }

    fn route_all(&mut self) -> Result<(), PartitionError> {
        let mut blocks = FileBlocks::new(
            self.options.inputs.clone(),
            self.options.read.clone(),
            self.options.parallel_inputs,
        );
        let raw_counter = Arc::new(std::sync::atomic::AtomicU64::new(0));
        blocks = blocks.count_raw_bytes(raw_counter.clone());
        if let Some(cancel) = &self.options.cancel {
            blocks = blocks.cancel_on(cancel.clone());
        }
        loop {
            let next = match blocks.next_block() {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    return Err(PartitionError::Interrupted)
                }
                next => next?,
            };
            let Some((file, block)) = next else { break };
            self.check_workers()?;
            let before = self.summary.records_in;
            self.route_block(file, &block)?;
            self.summary.bytes_in += block.len() as u64;
            if let Some(progress) = &self.options.progress {
                progress
                    .raw_bytes
                    .store(raw_counter.load(Ordering::Relaxed), Ordering::Relaxed);
                progress
                    .records
                    .fetch_add(self.summary.records_in - before, Ordering::Relaxed);
                progress
                    .groups
                    .store(self.groups.len() as u64, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    fn route_block(&mut self, file: usize, block: &Block) -> Result<(), PartitionError> {
        let delimiter = self.options.delimiter;
        let groupings = self.options.by.len();
        let mut gids = [0u32; MAX_GROUPINGS];
        // Outside the loop: filling a fresh array for every record cost
        // more than the rest of the routing (measured).
        let mut keys: [&[u8]; MAX_GROUPINGS] = [&[]; MAX_GROUPINGS];
        'records: for record in block.records() {
            if self.options.header && record.line() == 1 {
                self.take_header(file, &record)?;
                continue;
            }
            self.summary.records_in += 1;
            let body = record.bytes();
            for f in &self.filters {
                let Some(value) = field(body, delimiter, f.index) else {
                    self.invalid(file, &record, f.index)?;
                    continue 'records;
                };
                if f.regex.is_match(value) == f.negate {
                    self.summary.filtered += 1;
                    continue 'records;
                }
            }
            // Every key first: a record skipped for a missing column must
            // not leave a group (with no file) behind in another grouping.
            for (g, key) in keys.iter_mut().enumerate().take(groupings) {
                let index = self.columns[g].index;
                let Some(value) = field(body, delimiter, index) else {
                    self.invalid(file, &record, index)?;
                    continue 'records;
                };
                *key = value;
            }
            for (g, gid) in gids.iter_mut().enumerate().take(groupings) {
                *gid = self.group_of(g, keys[g])?;
            }
            for &gid in &gids[..groupings] {
                self.append(gid, record.raw())?;
            }
        }
        Ok(())
    }

    /// Handles line 1 of an input in header mode.
    fn take_header(&mut self, file: usize, record: &Record<'_>) -> Result<(), PartitionError> {
        let body = record.bytes();
        match &self.header {
            None => {
                let text = std::str::from_utf8(body).map_err(|e| {
                    self.input_error(file, record, format!("header is not valid UTF-8: {e}"))
                })?;
                let names: Vec<&str> = text.split(self.options.delimiter as char).collect();
                self.resolve_columns(Some(&names))?;
                // Written as read, so a CRLF header stays CRLF like the
                // records under it.
                let mut line = record.raw().to_vec();
                if line.last() != Some(&self.options.read.delimiter) {
                    line.push(self.options.read.delimiter);
                }
                self.header = Some(line);
            }
            Some(first) => {
                let delimiter = self.options.read.delimiter;
                let first_body = Records::new(first, delimiter, 1, 0)
                    .next()
                    .map(|r| r.bytes());
                if first_body != Some(body) {
                    return Err(self.input_error(
                        file,
                        record,
                        format!(
                            "header differs from the first input's header ({})",
                            self.options.inputs[0].display()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn input_error(&self, file: usize, record: &Record<'_>, message: String) -> PartitionError {
        PartitionError::Input {
            file: self.options.inputs[file].display().to_string(),
            line: record.line(),
            offset: record.offset(),
            message,
        }
    }

    fn invalid(
        &mut self,
        file: usize,
        record: &Record<'_>,
        index: usize,
    ) -> Result<(), PartitionError> {
        if self.options.skip_invalid {
            self.summary.skipped_invalid += 1;
            return Ok(());
        }
        let fields = crate::read::fields::count(record.bytes(), self.options.delimiter);
        Err(self.input_error(
            file,
            record,
            format!(
                "record has {fields} field(s), column {} is needed (use --skip-invalid to skip such records)",
                index + 1
            ),
        ))
    }

    #[inline]
    fn group_of(&mut self, grouping: usize, key: &[u8]) -> Result<u32, PartitionError> {
        match self.keys[grouping].get(key) {
            Some(&gid) => Ok(gid),
            None => self.new_group(grouping, key),
        }
    }

    /// Adds a group, charging its bookkeeping (key table entry, group
    /// record, the writer's path) to the memory budget so that a run with
    /// a million keys stays as bounded as one with ten.
    #[cold]
    fn new_group(&mut self, grouping: usize, key: &[u8]) -> Result<u32, PartitionError> {
        let cost = GROUP_OVERHEAD + 5 * key.len() + self.options.out.as_os_str().len();
        // Bookkeeping never takes the room of the largest chunk, so the
        // buffers can always make progress. Past that, keys are counted as
        // over the budget instead of stalling the run.
        if self.charged + cost + self.pool.chunk_len() <= self.pool.budget() {
            while !self.pool.try_charge(cost) {
                self.make_room(cost)?;
            }
            self.charged += cost;
        } else {
            self.summary.over_budget_bytes += cost as u64;
        }
        let gid = self.groups.len() as u32;
        self.groups.push(Group {
            grouping,
            key: key.into(),
            chunk: None,
            created: false,
            header_done: false,
            records: 0,
        });
        self.keys[grouping].insert(key.into(), gid);
        Ok(gid)
    }

    fn group_path(&self, gid: usize) -> PathBuf {
        let group = &self.groups[gid];
        self.path_for(group.grouping, &group.key)
    }

    /// Puts a chunk into a group's buffer slot (dropping any chunk there).
    fn put_chunk(&mut self, g: usize, chunk: Chunk) {
        self.held += chunk.capacity();
        if let Some(old) = self.groups[g].chunk.replace(chunk) {
            self.held -= old.capacity();
        }
    }

    /// Takes a group's chunk out of its slot.
    fn take_group_chunk(&mut self, g: usize) -> Option<Chunk> {
        let chunk = self.groups[g].chunk.take();
        if let Some(c) = &chunk {
            self.held -= c.capacity();
        }
        chunk
    }

    fn path_for(&self, grouping: usize, key: &[u8]) -> PathBuf {
        let column = escape(self.columns[grouping].name.as_bytes());
        let several = self.options.by.len() > 1;
        let mut path = self.options.out.clone();
        match self.options.layout {
            Layout::Hive => {
                if several {
                    path.push(format!("by-{column}"));
                }
                // `COLUMN=KEY` must fit in one file name.
                let room = MAX_NAME_LEN.min(MAX_FILE_NAME.saturating_sub(column.len() + 1));
                path.push(format!("{column}={}", escape_within(key, room)));
                path.push(format!("part-00000{}", self.extension));
            }
            Layout::Flat => {
                if several {
                    path.push(&column);
                }
                path.push(format!("{}{}", escape(key), self.extension));
            }
        }
        path
    }

    /// Appends one record (adding a newline if it has none) to a group.
    #[inline]
    fn append(&mut self, gid: u32, raw: &[u8]) -> Result<(), PartitionError> {
        let group = &mut self.groups[gid as usize];
        group.records += 1;
        let newline = !raw.ends_with(&[self.options.read.delimiter]);
        let need = raw.len() + usize::from(newline);
        if let Some(chunk) = &mut group.chunk {
            if chunk.remaining() >= need {
                chunk.push_slice(raw);
                if newline {
                    chunk.push_slice(&[self.options.read.delimiter]);
                }
                return Ok(());
            }
        }
        self.append_slow(gid, raw, newline)
    }

    #[cold]
    fn append_slow(&mut self, gid: u32, raw: &[u8], newline: bool) -> Result<(), PartitionError> {
        let need = raw.len() + usize::from(newline);
        let max = self.pool.chunk_len();
        let g = gid as usize;
        if let Some(chunk) = &self.groups[g].chunk {
            // Move up a class while the group's buffer is below the largest.
            let len = chunk.len();
            if len + need <= max {
                let want = (2 * chunk.capacity()).max(len + need);
                if let Some(mut bigger) = self.pool.try_take_at_least(want) {
                    bigger.push_slice(chunk);
                    self.put_chunk(g, bigger); // the old one goes back
                    self.push_record(g, raw, newline);
                    return Ok(());
                }
            }
            // Full, or no memory to grow: write it out.
            let chunk = self.take_group_chunk(g).expect("checked");
            self.send(gid, chunk)?;
        }
        let header_len = match &self.header {
            Some(h) if !self.groups[g].header_done => h.len(),
            _ => 0,
        };
        let total = header_len + need;
        if total > max {
            return self.append_long(gid, header_len > 0, raw, newline);
        }
        let mut chunk = self.take_chunk(total)?;
        if let Some(h) = &self.header {
            if !self.groups[g].header_done {
                chunk.push_slice(h);
            }
        }
        self.groups[g].header_done = true;
        self.put_chunk(g, chunk);
        self.push_record(g, raw, newline);
        Ok(())
    }

    /// Appends a record (and the header, if it is the group's first)
    /// larger than the largest chunk: it goes out in chunk-sized pieces —
    /// blocks are only concatenated, so a record may span several — and
    /// memory stays within the pool's budget whatever the record's length.
    /// The last piece stays as the group's buffer.
    #[cold]
    fn append_long(
        &mut self,
        gid: u32,
        with_header: bool,
        raw: &[u8],
        newline: bool,
    ) -> Result<(), PartitionError> {
        let header = match &self.header {
            Some(h) if with_header => h.clone(),
            _ => Vec::new(),
        };
        let delimiter = [self.options.read.delimiter];
        let tail: &[u8] = if newline { &delimiter } else { &[] };
        self.groups[gid as usize].header_done = true;
        let max = self.pool.chunk_len();
        let mut chunk = self.take_chunk(max)?;
        for mut part in [&header[..], raw, tail] {
            while !part.is_empty() {
                if chunk.remaining() == 0 {
                    self.send(gid, chunk)?;
                    chunk = self.take_chunk(max)?;
                }
                let n = chunk.remaining().min(part.len());
                chunk.push_slice(&part[..n]);
                part = &part[n..];
            }
        }
        self.put_chunk(gid as usize, chunk);
        Ok(())
    }

    #[inline]
    fn push_record(&mut self, g: usize, raw: &[u8], newline: bool) {
        let delimiter = self.options.read.delimiter;
        let chunk = self.groups[g].chunk.as_mut().expect("a chunk with room");
        let fits = chunk.push_slice(raw) && (!newline || chunk.push_slice(&[delimiter]));
        debug_assert!(fits, "room was checked");
    }

    /// A chunk for at least `len` bytes. When the budget is spent and the
    /// memory not held by groups (in flight to the workers, or free in
    /// other size classes) cannot cover it, sends the quarter of the groups'
    /// buffers holding the most bytes to their workers; then waits for
    /// memory to come back.
    fn take_chunk(&mut self, len: usize) -> Result<Chunk, PartitionError> {
        let capacity = self.pool.capacity_for(len);
        loop {
            if let Some(chunk) = self.pool.try_take_at_least(len) {
                return Ok(chunk);
            }
            self.make_room(capacity)?;
        }
    }

    /// Makes sure `bytes` of memory will come back: if what is in flight to
    /// the workers (or free in other size classes) cannot cover it, sends
    /// the largest buffers; then waits a little for memory to return.
    fn make_room(&mut self, bytes: usize) -> Result<(), PartitionError> {
        let coming_back = self
            .pool
            .allocated_bytes()
            .saturating_sub(self.held + self.charged);
        let unallocated = self
            .pool
            .budget()
            .saturating_sub(self.pool.allocated_bytes());
        if coming_back + unallocated < bytes {
            self.flush_largest()?;
        }
        self.check_workers()?;
        self.pool.wait_returned(Duration::from_millis(50));
        Ok(())
    }

    /// Sends the quarter (at least one) of the groups' buffers that hold the
    /// most bytes.
    fn flush_largest(&mut self) -> Result<(), PartitionError> {
        let mut held: Vec<(usize, u32)> = self
            .groups
            .iter()
            .enumerate()
            .filter_map(|(i, g)| g.chunk.as_ref().map(|c| (c.len(), i as u32)))
            .collect();
        if held.is_empty() {
            return Err(PartitionError::Io(std::io::Error::other(
                "internal error: buffer budget spent with no buffer to write",
            )));
        }
        let flush = (held.len() / 4).max(1);
        held.select_nth_unstable_by(flush - 1, |a, b| b.0.cmp(&a.0));
        for &(_, i) in &held[..flush] {
            let chunk = self.take_group_chunk(i as usize).expect("held");
            self.send(i, chunk)?;
            self.summary.early_flushes += 1;
        }
        Ok(())
    }

    fn send(&mut self, gid: u32, data: Chunk) -> Result<(), PartitionError> {
        let create = (!self.groups[gid as usize].created).then(|| self.group_path(gid as usize));
        self.groups[gid as usize].created = true;
        let worker = &self.workers[gid as usize % self.workers.len()];
        let job = Job {
            group: gid,
            create,
            data,
        };
        if worker.jobs.send(job).is_err() {
            self.check_workers()?;
            return Err(PartitionError::Usage("a writer thread stopped".into()));
        }
        Ok(())
    }

    /// Fails if a worker failed or the run was cancelled.
    fn check_workers(&self) -> Result<(), PartitionError> {
        if self
            .options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(PartitionError::Interrupted);
        }
        if self.failed.load(Ordering::Relaxed) {
            // The error itself is collected when the workers are joined.
            return Err(PartitionError::Io(std::io::Error::other("write failed")));
        }
        Ok(())
    }

    /// Sends what is left, waits for the workers, writes the manifest and
    /// renames every file into place (the manifest last).
    fn finish(&mut self) -> Result<(), PartitionError> {
        let pending: Vec<u32> = (0..self.groups.len() as u32)
            .filter(|&i| self.groups[i as usize].chunk.is_some())
            .collect();
        for gid in pending {
            let chunk = self.take_group_chunk(gid as usize).expect("pending");
            if let Err(e) = self.send(gid, chunk) {
                self.abort();
                return Err(e);
            }
        }
        if let Err(e) = self.join_workers() {
            self.abort();
            return Err(e);
        }
        // Memory the chunks held is not needed any more.
        self.pool = ChunkPool::new(1, 1);
        self.summary.groups = self
            .groups
            .iter()
            .map(|g| GroupSummary {
                column: self.columns[g.grouping].name.clone(),
                key: g.key.to_vec(),
                path: self.path_for(g.grouping, &g.key),
                records: g.records,
            })
            .collect();
        // The manifest is written (not yet renamed) first, so that a full
        // disk fails the run before any output appears under its name.
        let manifest = match self.write_manifest() {
            Ok(manifest) => manifest,
            Err(e) => {
                self.abort();
                return Err(e);
            }
        };
        if self.options.fsync {
            if let Err(e) = self.sync_files(&manifest) {
                self.abort();
                return Err(e.into());
            }
        }
        for gid in 0..self.groups.len() {
            if !self.groups[gid].created {
                continue;
            }
            let path = self.group_path(gid);
            let temp = PartialFile::temp_path(&path);
            if let Err(e) = std::fs::rename(&temp, &path) {
                let err = crate::input::with_path(e, &path);
                self.remove_renamed(gid);
                self.abort();
                return Err(err.into());
            }
        }
        if let Err(e) = manifest.commit() {
            self.remove_renamed(self.groups.len());
            self.abort();
            return Err(e.into());
        }
        if self.options.fsync {
            // The renames themselves are made durable by syncing the
            // directories that hold them.
            self.sync_directories()?;
        }
        Ok(())
    }

    /// Flushes every output file (still under its temporary name) and the
    /// manifest to disk.
    fn sync_files(&self, manifest: &PartialFile) -> std::io::Result<()> {
        for gid in 0..self.groups.len() {
            if self.groups[gid].created {
                let temp = PartialFile::temp_path(&self.group_path(gid));
                std::fs::File::open(&temp)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| crate::input::with_path(e, &temp))?;
            }
        }
        manifest.sync()
    }

    /// Flushes the directories of the output files and the output
    /// directory itself (their entries: the renames).
    fn sync_directories(&self) -> Result<(), PartitionError> {
        let mut dirs: Vec<PathBuf> = (0..self.groups.len())
            .filter(|&gid| self.groups[gid].created)
            .filter_map(|gid| self.group_path(gid).parent().map(Path::to_path_buf))
            .collect();
        dirs.push(self.options.out.clone());
        dirs.sort();
        dirs.dedup();
        for dir in dirs {
            sync_directory(&dir).map_err(|e| crate::input::with_path(e, &dir))?;
        }
        Ok(())
    }

    /// Removes the output files of groups `..upto`, renamed into place by a
    /// run that then failed: a part of the output must not look complete.
    fn remove_renamed(&self, upto: usize) {
        for gid in 0..upto {
            if self.groups[gid].created {
                let _ = std::fs::remove_file(self.group_path(gid));
            }
        }
    }

    fn join_workers(&mut self) -> Result<(), PartitionError> {
        let mut first_error = None;
        for worker in self.workers.drain(..) {
            drop(worker.jobs);
            match worker.thread.join() {
                Ok(report) => {
                    self.summary.bytes_out += report.bytes_out;
                    self.summary.reopened += report.reopened;
                    if first_error.is_none() {
                        first_error = report.error;
                    }
                }
                Err(_) => {
                    first_error
                        .get_or_insert_with(|| std::io::Error::other("a writer thread panicked"));
                }
            }
        }
        match first_error {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    /// `_partitions.tsv`: column, full key (escaped, always reversible),
    /// path relative to the output directory, records. Readers of Hive
    /// datasets skip names starting with `_`.
    /// Written under its temporary name; the caller commits it.
    fn write_manifest(&self) -> Result<PartialFile, PartitionError> {
        let path = self.options.out.join("_partitions.tsv");
        let mut file = PartialFile::create(&path)?;
        let mut text = String::from("column\tkey\tpath\trecords\n");
        for g in &self.summary.groups {
            let relative = g.path.strip_prefix(&self.options.out).unwrap_or(&g.path);
            text.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                escape_full(g.column.as_bytes()),
                if g.key.is_empty() {
                    super::escape::EMPTY_KEY_NAME.to_owned()
                } else {
                    escape_full(&g.key)
                },
                relative.display(),
                g.records
            ));
        }
        file.file()
            .write_all(text.as_bytes())
            .map_err(|e| crate::input::with_path(e, &path))?;
        Ok(file)
    }

    /// Stops the workers and removes every temporary file and every
    /// directory this run created that is left empty.
    /// Returns the first error a worker reported, if any.
    fn abort(&mut self) -> Option<std::io::Error> {
        for group in &mut self.groups {
            group.chunk = None;
        }
        let worker_error = match self.join_workers() {
            Err(PartitionError::Io(e)) => Some(e),
            _ => None,
        };
        for gid in 0..self.groups.len() {
            if self.groups[gid].created {
                let path = self.group_path(gid);
                let _ = std::fs::remove_file(PartialFile::temp_path(&path));
                let mut dir = path.parent();
                while let Some(d) = dir {
                    if d == self.options.out || std::fs::remove_dir(d).is_err() {
                        break;
                    }
                    dir = d.parent();
                }
            }
        }
        if self.created_out {
            let _ = std::fs::remove_dir(&self.options.out);
        }
        worker_error
    }
}

/// Makes a directory's entries durable (a no-op where directories cannot be
/// opened, as on Windows, whose renames need no such step).
fn sync_directory(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::ColumnRef;
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
}
