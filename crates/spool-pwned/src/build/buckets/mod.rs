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
//! The arena holds records in their short [`compact`](crate::build::compact)
//! form, whose bucket gives their leading bits: 20 bytes, or 21 to 24 for
//! a large count. A bucket's blocks hold one stream of such entries,
//! back to back; an entry may run from one block into the next. Entries
//! are turned back into whole records as a bucket is gathered, so
//! everything after the gathering sees the same records as without
//! packing.
//!
//! This file deals records into the buckets; the arena's memory is
//! `arena.rs`'s, spill files `spill.rs`'s, and gathering and sorting each
//! bucket at the end `drain.rs`'s. The record layout is
//! [`hash_count`](super::hash_count)'s and the sorting
//! [`sort`](super::sort)'s.

use std::io;
use std::path::PathBuf;

use super::compact::{Packing, COMPACT_BYTES, MAX_ENTRY_BYTES};
use super::hash_count::{digit, HashCount};
use super::sort::BucketRun;

use arena::Arena;
pub use spill::spill_dir;
use spill::SpillFile;

mod arena;
pub mod drain;
mod spill;

/// Bytes of a block: 1020, a quarter of a page, 51 entries of 20 bytes.
/// Each bucket's last block is partly empty, and the arena is filled block
/// after block, so that emptiness is resident memory: about half a block
/// per bucket, 2 MiB with 4096 buckets (4 MiB with blocks of 2040 bytes).
const BLOCK_BYTES: usize = 51 * COMPACT_BYTES;

/// Most buckets: 4096 (12 bits). At a billion hashes a bucket is about
/// 250,000 records (6 MB), so the final phase needs little memory.
const MAX_BUCKET_BITS: u32 = 12;

/// Records dealt into buckets by their leading bits; see the module docs.
pub struct Buckets {
    bits: u32,
    packing: Packing,
    /// Zeroed memory, faulted in ahead of the blocks handed out.
    arena: Arena,
    /// Blocks handed out from the arena so far.
    used: usize,
    /// Each bucket's blocks in the arena, in order.
    lists: Vec<Vec<u32>>,
    /// Where each bucket's next record goes in the arena (a byte offset),
    /// and where its last block ends: a push touches these two and the
    /// arena, nothing else.
    cursor: Vec<usize>,
    block_end: Vec<usize>,
    spills: Vec<SpillFile>,
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
            arena: Arena::new(blocks * BLOCK_BYTES)?,
            used: 0,
            lists: vec![Vec::new(); buckets],
            cursor: vec![0; buckets],
            block_end: vec![0; buckets],
            spills: Vec::new(),
            spill_dir,
            len: 0,
        })
    }

    /// Blocks the arena holds (0 once it was released).
    pub(super) fn blocks(&self) -> usize {
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

    fn bucket_of(&self, r: &HashCount) -> usize {
        digit(r, 0, self.bits)
    }

    /// Number of buckets.
    pub fn buckets(&self) -> usize {
        self.lists.len()
    }

    /// Records pushed so far.
    pub(super) fn len_records(&self) -> u64 {
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
    pub fn push(&mut self, r: HashCount) -> io::Result<()> {
        let b = self.bucket_of(&r);
        self.push_into(b, &r)?;
        self.len += 1;
        Ok(())
    }

    /// Adds `r`, of bucket `b`, to the end of the bucket's stream.
    #[inline]
    fn push_into(&mut self, b: usize, r: &HashCount) -> io::Result<()> {
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
    /// [`group_by_bucket`](crate::build::sort::group_by_bucket) leaves them):
    /// each run goes into its bucket's blocks with that bucket's cursor in
    /// a register, instead of one record at a time to a different place
    /// each.
    ///
    /// # Errors
    ///
    /// I/O errors writing a spill file, naming it.
    pub fn push_runs(&mut self, records: &[HashCount], runs: &[BucketRun]) -> io::Result<()> {
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
        self.arena.fault_in(self.block_end[b]);
    }

    /// The records of bucket `b` that are in the arena, block by block, as
    /// bytes (a stream of entries cut at block ends).
    pub(super) fn arena_pieces(&self, b: usize) -> impl Iterator<Item = &[u8]> {
        let list = &self.lists[b];
        list.iter().enumerate().map(move |(i, &block)| {
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
    pub(super) fn arena_bytes(&self, b: usize) -> usize {
        self.lists[b].last().map_or(0, |&last| {
            (self.lists[b].len() - 1) * BLOCK_BYTES + self.cursor[b] - last as usize * BLOCK_BYTES
        })
    }

    /// Writes the arena to a new spill file ([`SpillFile`]), bucket after
    /// bucket, and starts the arena over.
    fn spill(&mut self) -> io::Result<()> {
        let buckets = (0..self.buckets()).map(|b| self.arena_pieces(b));
        let spill = SpillFile::write(&self.spill_dir, self.spills.len(), buckets)?;
        self.spills.push(spill);
        for list in &mut self.lists {
            list.clear();
        }
        self.cursor.fill(0);
        self.block_end.fill(0);
        self.used = 0;
        Ok(())
    }

    /// Gives back the arena's pages faulted in ahead of the blocks handed
    /// out: called when the input is all in, before the drain.
    pub fn release_ahead(&mut self) {
        self.arena.release_ahead(self.used * BLOCK_BYTES);
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
        self.arena = Arena::new(0)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
