//! Sorting records by hash in bounded memory, without a merge.
//!
//! Hashes are uniform, so their leading bits split them into buckets of
//! nearly equal size, and bucket `b`'s hashes all sort before bucket
//! `b + 1`'s. [`Buckets`] deals every record into its bucket as it is
//! parsed — the first pass of a radix sort, done while the record is still
//! in cache — in fixed-size blocks taken from one arena:
//!
//! ```text
//! arena:  [blk 0: bucket 7][blk 1: bucket 2][blk 2: bucket 7][blk 3: ...]
//! bucket 7's blocks: 0, 2        bucket 2's blocks: 1
//! ```
//!
//! When the arena is full, every bucket's blocks are written to one spill
//! file, bucket after bucket, and the arena starts over. At the end each
//! bucket — its piece of every spill file and of the arena — is gathered
//! into one small array, sorted (a bucket of a billion-hash corpus is about
//! 6 MB: it sorts in cache) and handed on in hash order, on worker threads.
//! Each record is written to disk and read back at most once, and no
//! comparison-based merge of runs is needed.
//!
//! The arena holds records in their short [`compact`](crate::compact)
//! form, whose bucket gives their leading bits: 20 bytes, or 21 to 24 for
//! a large count. A bucket's blocks hold one stream of such entries,
//! back to back; an entry may run from one block into the next. Entries
//! are turned back into whole records as a bucket is gathered, so
//! everything after the gathering sees the same records as without
//! packing.
//!
//! This file holds the arena and its spill files; the record layout is
//! [`record`](crate::record)'s and the sorting [`sort`](crate::sort)'s.

use std::fs::File;
use std::io::{self, BufWriter, Write};
#[cfg(unix)]
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use spool_io::input::with_path;

use crate::compact::{Packing, COMPACT_BYTES, MAX_ENTRY_BYTES};
use crate::record::{digit, Record, RECORD_BYTES};
use crate::sort::{BucketRun, UniformSort};

/// Bytes of a block: 1020, a quarter of a page, 51 entries of 20 bytes.
/// Each bucket's last block is partly empty, and the arena is filled block
/// after block, so that emptiness is resident memory: about half a block
/// per bucket, 2 MiB with 4096 buckets (4 MiB with blocks of 2040 bytes).
const BLOCK_BYTES: usize = 51 * COMPACT_BYTES;

/// Most buckets: 4096 (12 bits). At a billion hashes a bucket is about
/// 250,000 records (6 MB), so the final phase needs little memory.
const MAX_BUCKET_BITS: u32 = 12;

/// Where a bucket's piece of a spill file is: a stream of entries.
#[derive(Clone, Copy, Default)]
struct Segment {
    offset: u64,
    bytes: u64,
}

struct Spill {
    file: File,
    path: PathBuf,
    segments: Vec<Segment>,
}

/// Records dealt into buckets by their leading bits; see the module docs.
pub struct Buckets {
    bits: u32,
    packing: Packing,
    /// An anonymous map: zeroed pages that the kernel provides only when
    /// written, faulted in ahead of the blocks handed out, in huge pages
    /// while they come quickly (see [`SLOW_HUGE_PAGE`]).
    arena: memmap2::MmapMut,
    /// Blocks handed out from the arena so far.
    used: usize,
    /// Bytes at the arena's front faulted in so far.
    populated: usize,
    /// Whether the arena's next stretch is faulted in as a huge page.
    huge: bool,
    /// Each bucket's blocks in the arena, in order.
    lists: Vec<Vec<u32>>,
    /// Where each bucket's next record goes in the arena (a byte offset),
    /// and where its last block ends: a push touches these two and the
    /// arena, nothing else.
    cursor: Vec<usize>,
    block_end: Vec<usize>,
    spills: Vec<Spill>,
    spill_dir: PathBuf,
    len: u64,
}

impl Buckets {
    /// A store using about `memory` bytes of arena for hashes of
    /// `hash_bytes` bytes; spill files go into `spill_dir` (created when
    /// first needed).
    ///
    /// # Errors
    ///
    /// If the arena cannot be reserved.
    pub fn new(memory: usize, hash_bytes: usize, spill_dir: PathBuf) -> io::Result<Self> {
        let blocks = Self::blocks_for(memory);
        let bits = Self::bits_for(memory);
        let buckets = 1usize << bits;
        Ok(Buckets {
            bits,
            packing: Packing::new(hash_bytes, bits),
            arena: anonymous(blocks * BLOCK_BYTES)?,
            used: 0,
            populated: 0,
            huge: true,
            lists: vec![Vec::new(); buckets],
            cursor: vec![0; buckets],
            block_end: vec![0; buckets],
            spills: Vec::new(),
            spill_dir,
            len: 0,
        })
    }

    /// Blocks the arena holds (0 once it was released).
    fn blocks(&self) -> usize {
        self.arena.len() / BLOCK_BYTES
    }

    fn blocks_for(memory: usize) -> usize {
        (memory / BLOCK_BYTES).max(2)
    }

    /// The bucket bits of a store of `memory` bytes: each bucket wastes at
    /// most one partly filled block, so there are at most a sixteenth as
    /// many buckets as blocks.
    pub fn bits_for(memory: usize) -> u32 {
        (Self::blocks_for(memory) / 16)
            .max(1)
            .ilog2()
            .min(MAX_BUCKET_BITS)
    }

    fn bucket_of(&self, r: &Record) -> usize {
        digit(r, 0, self.bits)
    }

    /// Number of buckets.
    pub fn buckets(&self) -> usize {
        self.lists.len()
    }

    /// Records pushed so far.
    fn len_records(&self) -> u64 {
        self.len
    }

    /// Spill files written so far.
    pub fn spills(&self) -> usize {
        self.spills.len()
    }

    /// Adds a record, spilling the arena to disk first if it is full.
    ///
    /// # Errors
    ///
    /// I/O errors writing a spill file, naming it.
    #[inline]
    pub fn push(&mut self, r: Record) -> io::Result<()> {
        let b = self.bucket_of(&r);
        self.push_into(b, &r)?;
        self.len += 1;
        Ok(())
    }

    /// Adds `r`, of bucket `b`, to the end of the bucket's stream.
    #[inline]
    fn push_into(&mut self, b: usize, r: &Record) -> io::Result<()> {
        let at = self.cursor[b];
        if self.block_end[b] - at >= MAX_ENTRY_BYTES {
            // Room for any entry: pack in place (the bytes past the entry
            // are scratch, overwritten by the next one).
            let slot = (&mut self.arena[at..at + MAX_ENTRY_BYTES])
                .try_into()
                .expect("24 bytes");
            self.cursor[b] = at + self.packing.pack(r, slot);
            return Ok(());
        }
        let mut entry = [0u8; MAX_ENTRY_BYTES];
        let len = self.packing.pack(r, &mut entry);
        self.append(b, &entry[..len])
    }

    /// Appends an entry to bucket `b`'s stream across the end of its last
    /// block: the part that fits there, the rest at the start of a new
    /// block. If the arena has no block left, it is spilled first (so no
    /// entry is ever split by a spill) and the entry starts the bucket's
    /// first block.
    #[cold]
    fn append(&mut self, b: usize, entry: &[u8]) -> io::Result<()> {
        assert!(
            self.blocks() > 0,
            "records pushed after the arena was released"
        );
        if self.free_bytes() < BLOCK_BYTES {
            self.spill()?;
        }
        let (at, end) = (self.cursor[b], self.block_end[b]);
        let (head, rest) = entry.split_at(entry.len().min(end - at));
        self.arena[at..end][..head.len()].copy_from_slice(head);
        self.cursor[b] = at + head.len();
        if !rest.is_empty() {
            self.new_block(b);
            let at = self.cursor[b];
            self.arena[at..at + rest.len()].copy_from_slice(rest);
            self.cursor[b] = at + rest.len();
        }
        Ok(())
    }

    /// Bytes after the last block handed out.
    fn free_bytes(&self) -> usize {
        self.arena.len() - self.used * BLOCK_BYTES
    }

    /// Adds records grouped by bucket (as
    /// [`group_by_bucket`](crate::sort::group_by_bucket) leaves them):
    /// each run goes into its bucket's blocks with that bucket's cursor in
    /// a register, instead of one record at a time to a different place
    /// each.
    ///
    /// # Errors
    ///
    /// I/O errors writing a spill file, naming it.
    pub fn push_runs(&mut self, records: &[Record], runs: &[BucketRun]) -> io::Result<()> {
        let packing = self.packing;
        for run in runs {
            let b = run.bucket as usize;
            debug_assert!(b < self.buckets());
            let mut rest = &records[run.start as usize..run.end as usize];
            self.len += rest.len() as u64;
            // While the last block has room for any entry, pack in place
            // (as `push_into` does, with the cursor in a register).
            let (mut at, end) = (self.cursor[b], self.block_end[b]);
            let block = &mut self.arena[..end];
            while let Some((r, after)) = rest.split_first() {
                if end - at < MAX_ENTRY_BYTES {
                    break;
                }
                let slot = (&mut block[at..at + MAX_ENTRY_BYTES])
                    .try_into()
                    .expect("24 bytes");
                at += packing.pack(r, slot);
                rest = after;
            }
            self.cursor[b] = at;
            // The block's end: one record at a time, into a new block.
            for r in rest {
                self.push_into(b, r)?;
            }
        }
        Ok(())
    }

    /// Hands bucket `b` a new last block; the arena must have one free.
    fn new_block(&mut self, b: usize) {
        debug_assert!(self.free_bytes() >= BLOCK_BYTES);
        self.lists[b].push(self.used as u32);
        self.cursor[b] = self.used * BLOCK_BYTES;
        self.block_end[b] = self.cursor[b] + BLOCK_BYTES;
        self.used += 1;
        if self.block_end[b] > self.populated {
            self.populate_ahead();
        }
    }

    /// Faults in the next stretch of the arena in one call instead of one
    /// page fault per page as records first land there: a huge page while
    /// they come quickly, else [`POPULATE_AHEAD`] bytes of small pages
    /// (see [`SLOW_HUGE_PAGE`]). Hints: where the kernel does not take
    /// them, the pages fault in as they are written.
    #[cold]
    fn populate_ahead(&mut self) {
        let step = if self.huge { HUGE_PAGE } else { POPULATE_AHEAD };
        let len = step.min(self.arena.len() - self.populated);
        #[cfg(target_os = "linux")]
        {
            use memmap2::Advice;
            let started = std::time::Instant::now();
            let _ = (self.arena).advise_range(Advice::PopulateWrite, self.populated, len);
            if self.huge && started.elapsed() > SLOW_HUGE_PAGE {
                // The rest of the arena in small pages.
                self.huge = false;
                let rest = self.populated + len;
                let _ =
                    (self.arena).advise_range(Advice::NoHugePage, rest, self.arena.len() - rest);
            }
        }
        self.populated += len;
    }

    /// The records of bucket `b` that are in the arena, block by block, as
    /// bytes. As each block is handed out, the block [`PREFETCH_BLOCKS`]
    /// places after it is asked into the cache (the first ones up front;
    /// for the drain a second time, after
    /// [`sort_bucket`](Self::sort_bucket) asked for the whole bucket): a
    /// bucket's blocks lie anywhere in the arena, each in a page of its
    /// own, so each is a TLB miss and a memory read that the hardware's
    /// prefetchers cannot foresee.
    fn arena_pieces(&self, b: usize) -> impl Iterator<Item = &[u8]> {
        let list = &self.lists[b];
        for &block in list.iter().take(PREFETCH_BLOCKS) {
            self.prefetch_block(block);
        }
        list.iter().enumerate().map(move |(i, &block)| {
            if let Some(&ahead) = list.get(i + PREFETCH_BLOCKS) {
                self.prefetch_block(ahead);
            }
            let start = block as usize * BLOCK_BYTES;
            let end = if i + 1 == list.len() {
                self.cursor[b]
            } else {
                start + BLOCK_BYTES
            };
            &self.arena[start..end]
        })
    }

    /// Bytes of bucket `b`'s entries in the arena: its whole blocks and
    /// the last one up to its cursor.
    fn arena_bytes(&self, b: usize) -> usize {
        self.lists[b].last().map_or(0, |&last| {
            (self.lists[b].len() - 1) * BLOCK_BYTES + self.cursor[b] - last as usize * BLOCK_BYTES
        })
    }

    /// Asks every cache line of arena block `block` into the cache.
    fn prefetch_block(&self, block: u32) {
        let start = block as usize * BLOCK_BYTES;
        for at in (start..start + BLOCK_BYTES).step_by(64) {
            crate::mapped::prefetch(&self.arena, at);
        }
        crate::mapped::prefetch(&self.arena, start + BLOCK_BYTES - 1);
    }

    /// Writes the arena to a new spill file: an unnamed temporary file
    /// (`O_TMPFILE` on Linux; elsewhere one that is unlinked as soon as it
    /// is created), read back through its handle. It has no name to remove
    /// or to leave behind: the kernel frees it when the process ends, on
    /// success, on error and on `kill -9` alike.
    fn spill(&mut self) -> io::Result<()> {
        std::fs::create_dir_all(&self.spill_dir).map_err(|e| with_path(e, &self.spill_dir))?;
        let path = self.spill_dir.join(format!(
            "(spill file {} of spool pwned build)",
            self.spills.len()
        ));
        let file = tempfile::tempfile_in(&self.spill_dir).map_err(|e| with_path(e, &path))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let mut segments = Vec::with_capacity(self.buckets());
        let mut offset = 0u64;
        for b in 0..self.buckets() {
            let mut bytes = 0u64;
            for piece in self.arena_pieces(b) {
                out.write_all(piece).map_err(|e| with_path(e, &path))?;
                bytes += piece.len() as u64;
            }
            segments.push(Segment { offset, bytes });
            offset += bytes;
        }
        let file = out
            .into_inner()
            .map_err(|e| with_path(e.into_error(), &path))?;
        self.spills.push(Spill {
            file,
            path,
            segments,
        });
        for list in &mut self.lists {
            list.clear();
        }
        self.cursor.fill(0);
        self.block_end.fill(0);
        self.used = 0;
        Ok(())
    }

    /// Bucket `b` gathered from every spill file and the arena, sorted,
    /// in `scratch.sorted`.
    fn sort_bucket(&self, b: usize, scratch: &mut DrainScratch) -> io::Result<()> {
        let spilled: u64 = self.spills.iter().map(|s| s.segments[b].bytes).sum();
        let in_arena = self.arena_bytes(b);
        // The whole bucket asked into the cache first, and each block again
        // two blocks before it is unpacked: measured faster than either
        // alone (docs/perf/pwned-build-history.md).
        for &block in &self.lists[b] {
            self.prefetch_block(block);
        }
        let DrainScratch {
            stream,
            gathered,
            sorted,
            sort,
        } = scratch;
        gathered.clear();
        let expected = (spilled as usize + in_arena) / COMPACT_BYTES;
        gathered.reserve(expected);
        // Each record's digit is counted as it is unpacked.
        sort.begin(expected, self.bits);
        let mut count = sort.counter();
        // Each spill file holds the bucket's piece as one stream; the
        // arena as a stream in blocks.
        for spill in &self.spills {
            let seg = spill.segments[b];
            stream.clear();
            stream.resize(seg.bytes as usize, 0);
            read_exact_at(&spill.file, stream, seg.offset)
                .map_err(|e| with_path(e, &spill.path))?;
            self.packing
                .unpack_pieces(b, [&stream[..]], gathered, &mut count);
        }
        let pieces = self.arena_pieces(b);
        self.packing.unpack_pieces(b, pieces, gathered, count);
        sort.finish(gathered, sorted);
        Ok(())
    }

    /// Bytes the final phase holds at once with `threads` workers, as
    /// measured: per worker about eight buckets' worth (one gathered, its
    /// sorted copy and encoding, two encodings waiting their turn, and
    /// what its allocator keeps), plus the bucket being written; buckets of
    /// uniform hashes vary by a few percent.
    pub fn drain_memory(&self, threads: usize) -> usize {
        let bucket = (self.len_records() / self.buckets() as u64) as usize * RECORD_BYTES;
        bucket * 11 / 10 * (8 * threads.max(1) + 1)
    }

    /// Spills what the arena holds and gives the arena's memory back, if
    /// anything was spilled already (so this costs one more spill file,
    /// not a first one): the final phase then has the whole budget for
    /// buckets in flight instead of holding them on top of a full arena.
    /// Only for the final phase: nothing may be pushed afterwards.
    ///
    /// # Errors
    ///
    /// I/O errors writing the spill file, naming it.
    pub fn release_arena(&mut self) -> io::Result<()> {
        if self.spills.is_empty() || self.blocks() == 0 {
            return Ok(());
        }
        self.spill()?;
        self.arena = anonymous(0)?;
        Ok(())
    }

    /// Sorts every bucket on `threads` worker threads, turns each into a
    /// `T` there with `finish`, and calls `emit` with them in hash order
    /// (equal hashes are adjacent within a bucket, never across buckets),
    /// on whichever worker has the next bucket in order (see
    /// [`for_each_index_ordered`](crate::ordered::for_each_index_ordered)).
    /// At most three buckets per worker are in flight (one being sorted
    /// by each, two per worker done and waiting their turn), and one more
    /// being written.
    ///
    /// # Errors
    ///
    /// I/O errors reading spill files, and whatever `emit` returns.
    pub fn drain_sorted<T: Send>(
        &mut self,
        threads: usize,
        finish: impl Fn(&[Record]) -> T + Sync,
        emit: impl FnMut(T) -> io::Result<()> + Send,
    ) -> io::Result<()> {
        let this = &*self;
        crate::ordered::for_each_index_ordered(
            self.buckets(),
            threads,
            DrainScratch::default,
            |b, scratch| -> io::Result<T> {
                this.sort_bucket(b, scratch)?;
                Ok(finish(&scratch.sorted))
            },
            emit,
        )
    }
}

/// A drain worker's buffers, kept from bucket to bucket: allocating them
/// per bucket left the allocator's per-thread pools growing (and their
/// fresh pages to be zeroed) all through the drain.
#[derive(Default)]
struct DrainScratch {
    /// A bucket's entries from one spill file.
    stream: Vec<u8>,
    /// The same as whole records, in arrival order.
    gathered: Vec<Record>,
    /// The same in hash order.
    sorted: Vec<Record>,
    sort: UniformSort,
}

/// How many blocks ahead [`Buckets::arena_pieces`] prefetches: unpacking
/// a block (51 entries) takes longer than a memory read.
const PREFETCH_BLOCKS: usize = 2;

/// Bytes of the arena faulted in at a time in small pages, ahead of the
/// blocks handed out: the peak memory is at most this much above what the
/// records take.
const POPULATE_AHEAD: usize = 512 << 10;

/// A transparent huge page (x86-64, and the arena's stretches while it is
/// backed by them).
const HUGE_PAGE: usize = 2 << 20;

/// How long faulting in one huge page may take before the rest of the
/// arena goes to small pages.
///
/// A huge page is the cheaper page where the memory is the machine's own:
/// one fault and one TLB entry for 512 small pages (the 4096 buckets'
/// write positions missed the TLB on nearly every record with small
/// pages, measured on an earlier layout). On a VM whose free memory the
/// host takes back (free page reporting: Firecracker, QEMU's balloon), a
/// huge page from such memory costs the host's faults on all of it.
/// Faulting in 2 MiB at a time on the benchmark machine, a fresh process:
/// 0.2–0.5 ms per huge page while the guest's own free memory lasts, then
/// 5.5–13 ms each, against 0.9–1.9 ms in small pages whatever memory they
/// came from — so a build's system time was 0.2 s or 1.4 s by chance.
/// The first slow one ends the huge pages (docs/perf/pwned-build-history.md, "Fewer passes
/// per bucket; huge pages only while they are cheap").
const SLOW_HUGE_PAGE: std::time::Duration = std::time::Duration::from_millis(3);

/// `len` zeroed bytes of anonymous memory, in huge pages where the kernel
/// allows (a failed hint is ignored), faulted in as written or as
/// [`Buckets::populate_ahead`] asks.
///
/// # Errors
///
/// If the system will not reserve that much memory (the message says how
/// much, so a too large `--memory` is easy to spot).
fn anonymous(len: usize) -> io::Result<memmap2::MmapMut> {
    let map = memmap2::MmapMut::map_anon(len.max(1)).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot reserve {len} bytes of memory for sorting: {e}"),
        )
    })?;
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    file.read_exact_at(buf, offset)
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

/// The directory for spill files: `temp_dir`, or the one `output` goes to.
pub fn spill_dir(output: &Path, temp_dir: Option<&Path>) -> PathBuf {
    temp_dir.map(Path::to_path_buf).unwrap_or_else(|| {
        output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{record, sort_key};
    use crate::sort::group_by_bucket;
    use crate::sort::tests::key_of;

    fn drain(b: &mut Buckets) -> Vec<Record> {
        let mut out = Vec::new();
        b.drain_sorted(2, <[Record]>::to_vec, |bucket| {
            out.extend(bucket);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn spills_and_sorts_like_a_plain_sort() {
        let dir = std::env::temp_dir().join(format!("spool-buckets-test-{}", std::process::id()));
        // Tiny arenas force many spills; a large one none.
        for memory in [0, 8 << 10, 64 << 10, 1 << 20, 64 << 20] {
            let mut b = Buckets::new(memory, 20, dir.join(memory.to_string())).unwrap();
            let mut want = Vec::new();
            for i in 0..20_000u64 {
                let r = record(&key_of(i % 15_000), i as u32);
                b.push(r).unwrap();
                want.push(r);
            }
            assert_eq!(b.len_records(), 20_000);
            if memory < 1 << 20 {
                assert!(b.spills() > 0, "memory {memory}: expected spills");
            } else {
                assert_eq!(b.spills(), 0);
            }
            let mut got = drain(&mut b);
            if b.spills() > 0 {
                // Giving the arena back first changes nothing in the output.
                b.release_arena().unwrap();
                assert_eq!(b.blocks(), 0);
                let again = drain(&mut b);
                assert_eq!(again.len(), got.len());
                got = again;
            }
            want.sort_by_key(|r| sort_key(r));
            // Equal keys keep no particular order: compare keys, then counts
            // as multisets per key.
            let keys = |v: &[Record]| v.iter().map(|r| sort_key(r)).collect::<Vec<_>>();
            assert_eq!(keys(&got), keys(&want), "memory {memory}");
            let mut g = got.clone();
            g.sort();
            want.sort();
            assert_eq!(g, want);
            let spill_dir = b.spill_dir.clone();
            drop(b);
            let left = std::fs::read_dir(&spill_dir).map_or(0, Iterator::count);
            assert_eq!(left, 0, "spill files have no names to leave behind");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn compact_and_whole_records_spill_and_come_back_exactly() {
        let dir = std::env::temp_dir().join(format!("spool-buckets-mixed-{}", std::process::id()));
        // The smallest arena with compact records (8 bucket bits: counts up
        // to 255 fit), filled past its size by records of every kind of
        // count, so it spills with both kinds in it.
        let memory = 4096 * BLOCK_BYTES;
        for hash_bytes in [20, 16] {
            let mut b = Buckets::new(memory, hash_bytes, dir.join(hash_bytes.to_string())).unwrap();
            assert_eq!(b.bits, 8);
            let counts = [0, 1, 255, 256, 4095, 65_536, u32::MAX - 1, u32::MAX];
            let mut want = Vec::new();
            let mut batch = Vec::new();
            for i in 0..250_000u64 {
                let mut key = key_of(i % 200_000);
                key[hash_bytes..].fill(0);
                let count = if i % 5 == 0 {
                    counts[i as usize / 5 % counts.len()]
                } else {
                    i as u32 % 200
                };
                batch.push(record(&key, count));
                if batch.len() == 1000 || i % 7 == 0 {
                    let mut scratch = Vec::new();
                    let (_, runs) = group_by_bucket(&mut batch, &mut scratch, b.bits);
                    b.push_runs(&batch, &runs).unwrap();
                    want.append(&mut batch);
                }
            }
            for r in batch.drain(..) {
                b.push(r).unwrap();
                want.push(r);
            }
            assert!(b.spills() > 0, "hash bytes {hash_bytes}");
            let mut got = drain(&mut b);
            assert!(got.windows(2).all(|w| sort_key(&w[0]) <= sort_key(&w[1])));
            got.sort();
            want.sort();
            assert!(got == want, "hash bytes {hash_bytes}: the same records");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn runs_pushed_whole_drain_like_records_pushed_one_by_one() {
        let dir = std::env::temp_dir().join(format!("spool-buckets-runs-{}", std::process::id()));
        for memory in [0, 64 << 10, 16 << 20] {
            let bits = Buckets::bits_for(memory);
            let mut one = Buckets::new(memory, 20, dir.join(format!("one-{memory}"))).unwrap();
            let mut runs = Buckets::new(memory, 20, dir.join(format!("runs-{memory}"))).unwrap();
            let mut scratch = Vec::new();
            for batch in 0..20u64 {
                let mut records: Vec<Record> = (0..1000u64)
                    .map(|i| record(&key_of(batch * 1000 + i), i as u32))
                    .collect();
                if batch % 3 == 0 {
                    records.sort_by_key(|r| sort_key(r));
                }
                for r in &records {
                    one.push(*r).unwrap();
                }
                let (sorted, grouped) = group_by_bucket(&mut records, &mut scratch, bits);
                assert_eq!(sorted, batch % 3 == 0);
                assert_eq!(grouped.iter().map(|r| r.end - r.start).sum::<u32>(), 1000);
                assert!(grouped.windows(2).all(|w| w[0].bucket < w[1].bucket));
                runs.push_runs(&records, &grouped).unwrap();
            }
            assert_eq!(one.len_records(), runs.len_records());
            assert_eq!(one.spills() > 0, runs.spills() > 0, "memory {memory}");
            assert_eq!(drain(&mut one), drain(&mut runs), "memory {memory}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bucket_count_follows_the_arena() {
        let b = Buckets::new(512 << 20, 20, PathBuf::from("unused")).unwrap();
        assert_eq!(b.buckets(), 4096);
        let b = Buckets::new(1 << 20, 20, PathBuf::from("unused")).unwrap();
        let sixteenth = (1 << 20) / BLOCK_BYTES / 16;
        assert!(
            b.buckets() <= sixteenth && 2 * b.buckets() > sixteenth,
            "{}",
            b.buckets()
        );
        let b = Buckets::new(0, 20, PathBuf::from("unused")).unwrap();
        assert_eq!(b.buckets(), 1);
    }

    #[test]
    fn the_arena_is_faulted_in_ahead_of_the_blocks_in_use() {
        for huge in [true, false] {
            let mut b = Buckets::new(64 << 20, 20, PathBuf::from("unused")).unwrap();
            b.huge = huge;
            let mut ahead = 0;
            for i in 0..200_000u64 {
                b.push(record(&key_of(i), 1)).unwrap();
                let in_use = b.used * BLOCK_BYTES;
                assert!(b.populated >= in_use && b.populated <= b.arena.len());
                ahead = ahead.max(b.populated - in_use);
            }
            // Never more than one step ahead of the blocks handed out
            // (a huge page's, unless they were slow and were given up).
            let step = if huge { HUGE_PAGE } else { POPULATE_AHEAD };
            assert!(ahead <= step + BLOCK_BYTES, "{ahead}");
            assert_eq!(b.spills(), 0);
        }
    }
}
