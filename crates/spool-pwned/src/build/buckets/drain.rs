//! The final phase of a sorting build: each bucket gathered from every
//! spill file and the arena, turned back into whole records, sorted, and
//! handed on in hash order, on worker threads.
//!
//! Buckets are disjoint key ranges in hash order, so sorting each one is
//! enough: no merge of runs. A bucket of a billion-hash corpus is about
//! 6 MB and sorts in cache; its records' digits for the counting sort are
//! counted as they are unpacked, so the sort needs no counting pass of
//! its own.

use std::io;

use crate::build::compact::COMPACT_BYTES;
use crate::build::hash_count::{HashCount, HASH_COUNT_BYTES};
use crate::build::sort::UniformSort;

use super::Buckets;

/// A drain worker's buffers, kept from bucket to bucket: allocating them
/// per bucket left the allocator's per-thread pools growing (and their
/// fresh pages to be zeroed) all through the drain.
#[derive(Default)]
struct DrainScratch {
    /// A bucket's entries from one spill file.
    stream: Vec<u8>,
    /// The same as whole records, in arrival order.
    gathered: Vec<HashCount>,
    /// The same in hash order.
    sorted: Vec<HashCount>,
    sort: UniformSort,
}

/// Bytes the final phase holds at once with `threads` workers: per worker
/// about eight buckets' worth (one gathered, its sorted copy and encoding,
/// two encodings waiting their turn, and what its allocator keeps), plus
/// the bucket being written; buckets of uniform hashes vary by a few
/// percent.
pub fn drain_memory(buckets: &Buckets, threads: usize) -> usize {
    let bucket = (buckets.len_records() / buckets.buckets() as u64) as usize * HASH_COUNT_BYTES;
    bucket * 11 / 10 * (8 * threads.max(1) + 1)
}

/// Sorts every bucket on `threads` worker threads, turns each into a `T`
/// there with `finish`, and calls `emit` with them in hash order (equal
/// hashes are adjacent within a bucket, never across buckets), on
/// whichever worker has the next bucket in order (see
/// [`for_each_index_ordered`](spool_io::parallel::for_each_index_ordered)).
/// At most three buckets per worker are in flight (one being sorted by
/// each, two per worker done and waiting their turn), and one more being
/// written.
///
/// # Errors
///
/// I/O errors reading spill files, and whatever `emit` returns.
pub fn drain_sorted<T: Send>(
    buckets: &Buckets,
    threads: usize,
    finish: impl Fn(&[HashCount]) -> T + Sync,
    emit: impl FnMut(T) -> io::Result<()> + Send,
) -> io::Result<()> {
    spool_io::parallel::for_each_index_ordered(
        buckets.buckets(),
        threads,
        DrainScratch::default,
        |b, scratch| -> io::Result<T> {
            sort_bucket(buckets, b, scratch)?;
            Ok(finish(&scratch.sorted))
        },
        emit,
    )
}

/// Bucket `b` gathered from every spill file and the arena, sorted, in
/// `scratch.sorted`.
fn sort_bucket(buckets: &Buckets, b: usize, scratch: &mut DrainScratch) -> io::Result<()> {
    let spilled: u64 = buckets.spills.iter().map(|s| s.bytes(b)).sum();
    let in_arena = buckets.arena_bytes(b);
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
    sort.begin(expected, buckets.bits);
    let mut count = sort.counter();
    // Each spill file holds the bucket's piece as one stream; the arena
    // as a stream in blocks.
    for spill in &buckets.spills {
        spill.read(b, stream)?;
        buckets
            .packing
            .unpack_pieces(b, [&stream[..]], gathered, &mut count);
    }
    let pieces = buckets.arena_pieces(b);
    buckets.packing.unpack_pieces(b, pieces, gathered, count);
    sort.finish(gathered, sorted);
    Ok(())
}
