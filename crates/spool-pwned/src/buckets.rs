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
//! The arena holds records in their 20-byte [`compact`](crate::compact)
//! form, whose bucket gives their leading bits. A record whose count does
//! not fit that form stays whole (24 bytes); such records are stacked from
//! the arena's far end, in arrival order, and sorted by hash (so grouped by
//! bucket) when the arena is spilled or drained:
//!
//! ```text
//! arena:  [blk 0][blk 1][blk 2] ...free...  [whole record][whole record]
//!          blocks grow this way ──►      ◄── whole records grow this way
//! ```
//!
//! The arena is full when the two meet. Compact records of a bucket are
//! turned back into whole records as it is gathered, so everything after
//! the gathering sees the same records as without packing.
//!
//! This file holds the arena and its spill files; the record layout is
//! [`record`](crate::record)'s and the sorting [`sort`](crate::sort)'s.

use std::fs::File;
use std::io::{self, BufWriter, Write};
#[cfg(unix)]
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use spool_io::input::with_path;

use crate::compact::{Compact, Packing, COMPACT_BYTES};
use crate::record::{digit, Record, RECORD_BYTES};
use crate::sort::{group_in_place, sort_uniform, BucketRun};

/// Compact records per block: a block is 1020 bytes, a quarter of a page.
/// Each bucket's last block is partly empty, and the arena is filled block
/// after block, so that emptiness is resident memory: about half a block
/// per bucket, 2 MiB with 4096 buckets (4 MiB with blocks of 2040 bytes).
const BLOCK_RECORDS: usize = 51;
const BLOCK_BYTES: usize = BLOCK_RECORDS * COMPACT_BYTES;

/// Most buckets: 4096 (12 bits). At a billion hashes a bucket is about
/// 250,000 records (6 MB), so the final phase needs little memory.
const MAX_BUCKET_BITS: u32 = 12;

/// Where a bucket's piece of a spill file is: its compact records, then
/// its whole ones.
#[derive(Clone, Copy, Default)]
struct Segment {
    offset: u64,
    compact: u64,
    whole: u64,
}

impl Segment {
    fn records(&self) -> u64 {
        self.compact + self.whole
    }
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
    /// written, in 2 MiB huge pages where it can. Pushes write to as many
    /// places as there are buckets; with 4 KiB pages nearly every push
    /// missed the TLB.
    arena: memmap2::MmapMut,
    /// Blocks handed out from the arena so far.
    used: usize,
    /// Whole records stacked at the arena's end.
    whole: usize,
    /// Where each bucket's whole records start, once they are grouped by
    /// bucket ([`Self::seal`]; emptied by the next push).
    whole_starts: Vec<usize>,
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
            whole: 0,
            whole_starts: Vec::new(),
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

    /// Adds `r`, of bucket `b`: compact into the bucket's blocks if its
    /// count fits, whole at the arena's end if not.
    #[inline]
    fn push_into(&mut self, b: usize, r: &Record) -> io::Result<()> {
        let Some(c) = self.packing.pack(r) else {
            return self.push_whole(r);
        };
        if self.cursor[b] == self.block_end[b] {
            self.new_block(b)?;
        }
        let at = self.cursor[b];
        self.arena[at..at + COMPACT_BYTES].copy_from_slice(&c);
        self.cursor[b] = at + COMPACT_BYTES;
        Ok(())
    }

    /// Stacks a whole record at the arena's end, spilling first if the
    /// arena is full.
    #[cold]
    fn push_whole(&mut self, r: &Record) -> io::Result<()> {
        assert!(
            self.blocks() > 0,
            "records pushed after the arena was released"
        );
        if self.free_bytes() < RECORD_BYTES {
            self.spill()?;
        }
        self.whole += 1;
        self.whole_starts.clear();
        let at = self.arena.len() - self.whole * RECORD_BYTES;
        self.arena[at..at + RECORD_BYTES].copy_from_slice(r);
        Ok(())
    }

    /// Bytes between the last block handed out and the whole records.
    fn free_bytes(&self) -> usize {
        self.arena.len() - self.used * BLOCK_BYTES - self.whole * RECORD_BYTES
    }

    /// The whole records of bucket `b` in the arena, as bytes; only once
    /// sealed.
    fn whole_of(&self, b: usize) -> &[u8] {
        match self.whole_starts.get(b..b + 2) {
            Some(&[start, end]) => {
                let base = self.arena.len() - self.whole * RECORD_BYTES;
                &self.arena[base + start * RECORD_BYTES..base + end * RECORD_BYTES]
            }
            _ => {
                assert_eq!(self.whole, 0, "whole records not grouped yet");
                &[]
            }
        }
    }

    /// Groups the whole records by bucket, for a spill or the drain.
    fn seal(&mut self) {
        if self.whole > 0 && self.whole_starts.is_empty() {
            let start = self.arena.len() - self.whole * RECORD_BYTES;
            self.whole_starts = group_in_place(&mut self.arena[start..], self.bits);
        }
    }

    /// Adds records grouped by bucket (as
    /// [`group_by_bucket`](crate::sort::group_by_bucket) leaves them):
    /// each run is copied into its bucket's blocks whole, instead of one
    /// record at a time to a different place each.
    ///
    /// # Errors
    ///
    /// I/O errors writing a spill file, naming it.
    pub fn push_runs(&mut self, records: &[Record], runs: &[BucketRun]) -> io::Result<()> {
        for run in runs {
            let b = run.bucket as usize;
            debug_assert!(b < self.buckets());
            let mut rest = &records[run.start as usize..run.end as usize];
            while let Some((r, after)) = rest.split_first() {
                if self.cursor[b] == self.block_end[b] {
                    self.new_block(b)?;
                }
                // Packs straight into the bucket's block until it is full
                // or a record must stay whole.
                let (mut at, end) = (self.cursor[b], self.block_end[b]);
                let block = self.arena[at..end].chunks_exact_mut(COMPACT_BYTES);
                let mut packed = 0;
                for (slot, r) in block.zip(rest) {
                    let slot: &mut Compact = slot.try_into().expect("20 bytes");
                    if !self.packing.pack_into(r, slot) {
                        break;
                    }
                    packed += 1;
                }
                at += packed * COMPACT_BYTES;
                self.cursor[b] = at;
                rest = &rest[packed..];
                if packed == 0 {
                    self.push_whole(r)?;
                    rest = after;
                }
            }
            self.len += u64::from(run.end - run.start);
        }
        Ok(())
    }

    #[cold]
    fn new_block(&mut self, b: usize) -> io::Result<()> {
        assert!(
            self.blocks() > 0,
            "records pushed after the arena was released"
        );
        if self.free_bytes() < BLOCK_BYTES {
            self.spill()?;
        }
        self.lists[b].push(self.used as u32);
        self.cursor[b] = self.used * BLOCK_BYTES;
        self.block_end[b] = self.cursor[b] + BLOCK_BYTES;
        self.used += 1;
        Ok(())
    }

    /// The records of bucket `b` that are in the arena, block by block, as
    /// bytes.
    fn arena_pieces(&self, b: usize) -> impl Iterator<Item = &[u8]> {
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
        self.seal();
        for b in 0..self.buckets() {
            let mut compact = 0u64;
            for piece in self.arena_pieces(b) {
                out.write_all(piece).map_err(|e| with_path(e, &path))?;
                compact += (piece.len() / COMPACT_BYTES) as u64;
            }
            let whole = self.whole_of(b);
            out.write_all(whole).map_err(|e| with_path(e, &path))?;
            let seg = Segment {
                offset,
                compact,
                whole: (whole.len() / RECORD_BYTES) as u64,
            };
            segments.push(seg);
            offset += compact * COMPACT_BYTES as u64 + seg.whole * RECORD_BYTES as u64;
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
        self.whole = 0;
        self.whole_starts.clear();
        Ok(())
    }

    /// Bucket `b` gathered from every spill file and the arena, sorted.
    fn sorted_bucket(&self, b: usize) -> io::Result<Vec<Record>> {
        let gathered = self.gather(b)?;
        Ok(sort_uniform(&gathered, self.bits))
    }

    /// Bucket `b` gathered from every spill file and the arena, as whole
    /// records. Only once sealed.
    fn gather(&self, b: usize) -> io::Result<Vec<Record>> {
        let spilled: u64 = self.spills.iter().map(|s| s.segments[b].records()).sum();
        let whole = self.whole_of(b);
        let in_arena = self.arena_pieces(b).map(<[u8]>::len).sum::<usize>() / COMPACT_BYTES;
        let mut out = Vec::with_capacity(spilled as usize + in_arena + whole.len() / RECORD_BYTES);
        let mut compact = Vec::new();
        for spill in &self.spills {
            let seg = spill.segments[b];
            compact.resize(seg.compact as usize * COMPACT_BYTES, 0);
            read_exact_at(&spill.file, &mut compact, seg.offset)
                .map_err(|e| with_path(e, &spill.path))?;
            self.unpack_into(b, &compact, &mut out);
            let at = out.len();
            out.resize(at + seg.whole as usize, [0u8; RECORD_BYTES]);
            let whole_at = seg.offset + seg.compact * COMPACT_BYTES as u64;
            read_exact_at(&spill.file, out[at..].as_flattened_mut(), whole_at)
                .map_err(|e| with_path(e, &spill.path))?;
        }
        for piece in self.arena_pieces(b) {
            self.unpack_into(b, piece, &mut out);
        }
        out.extend(
            whole
                .chunks_exact(RECORD_BYTES)
                .map(|r| -> Record { r.try_into().expect("24 bytes") }),
        );
        Ok(out)
    }

    /// Appends the whole form of the compact records in `bytes`, of
    /// bucket `b`, to `out`.
    fn unpack_into(&self, b: usize, bytes: &[u8], out: &mut Vec<Record>) {
        let start = out.len();
        out.resize(start + bytes.len() / COMPACT_BYTES, [0u8; RECORD_BYTES]);
        for (r, c) in out[start..]
            .iter_mut()
            .zip(bytes.chunks_exact(COMPACT_BYTES))
        {
            *r = self.packing.unpack(b, c.try_into().expect("20 bytes"));
        }
    }

    /// Bytes the final phase holds at once with `threads` workers, as
    /// measured: per worker about eight buckets' worth (one gathered, its
    /// sorted copy and encoding, two encodings waiting in its channel, and
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
    /// (equal hashes are adjacent within a bucket, never across buckets).
    /// At most two buckets per worker are in flight.
    ///
    /// # Errors
    ///
    /// I/O errors reading spill files, and whatever `emit` returns.
    pub fn drain_sorted<T: Send>(
        &mut self,
        threads: usize,
        finish: impl Fn(Vec<Record>) -> T + Sync,
        mut emit: impl FnMut(T) -> io::Result<()>,
    ) -> io::Result<()> {
        self.seal();
        let this = &*self;
        crate::ordered::for_each_ordered(
            (0..self.buckets()).map(Ok),
            threads.clamp(1, this.buckets()),
            || (),
            |b, _| this.sorted_bucket(b).map(&finish),
            |bucket| emit(bucket?),
        )
    }
}

/// `len` zeroed bytes of anonymous memory (backed by huge pages where the
/// kernel allows; a failed hint is ignored).
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
        b.drain_sorted(
            2,
            |bucket| bucket,
            |bucket| {
                out.extend(bucket);
                Ok(())
            },
        )
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
}
