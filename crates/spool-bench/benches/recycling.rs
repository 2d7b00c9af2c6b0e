//! Could one pool of recycled buffers under a budget serve all three places
//! that recycle memory — spool-io's `ChunkPool` (partition's group
//! buffers), the read-ahead ring of `ChunkReader`, and the pwned builder's
//! sorting arena? This measures the two substitutions that could be made,
//! each next to what the code does now:
//!
//! - `handoff_1MiB`: a 1 MiB buffer handed from a producer thread to a
//!   consumer and back, as the read-ahead ring does it (a bounded channel
//!   of free buffers) and as `ChunkPool` would (take, drop back into the
//!   pool). Both send the full buffer over the same channel. Nanoseconds
//!   per buffer; reading 1 MiB costs about 100 µs, so either is noise.
//! - `deal_records`: 2 million 24-byte records dealt into 4096 buckets of
//!   4080-byte blocks, as the pwned arena does it (blocks are offsets into
//!   one anonymous huge-page map) and with each block a `ChunkPool` chunk.
//!   Every variant checks that every record landed.
//!
//! Run: `cargo bench -p spool-bench --bench recycling`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use spool_io::write::{Chunk, ChunkPool};

const BUFFER: usize = 1 << 20;
const RING: usize = 4;
const HANDOFFS: usize = 2000;

/// The read-ahead ring's mechanism: buffers come back through a bounded
/// channel of free buffers.
fn ring_handoffs() -> usize {
    let (full_tx, full_rx) = crossbeam_channel::bounded::<Vec<u8>>(RING);
    let (free_tx, free_rx) = crossbeam_channel::bounded::<Vec<u8>>(RING);
    for _ in 0..RING {
        free_tx.send(vec![0u8; BUFFER]).unwrap();
    }
    let producer = std::thread::spawn(move || {
        for i in 0..HANDOFFS {
            let mut buf = free_rx.recv().unwrap();
            buf[0] = i as u8;
            full_tx.send(buf).unwrap();
        }
    });
    let mut seen = 0;
    for buf in full_rx {
        seen += usize::from(buf[0] == seen as u8);
        let _ = free_tx.try_send(buf);
    }
    producer.join().unwrap();
    seen
}

/// The same with `ChunkPool`: the producer takes a chunk (waiting for one
/// to come back when the budget is spent), the consumer drops it.
fn pool_handoffs() -> usize {
    let pool = ChunkPool::new(BUFFER, RING);
    let (full_tx, full_rx) = crossbeam_channel::bounded::<Chunk>(RING);
    let producer = std::thread::spawn(move || {
        for i in 0..HANDOFFS {
            let mut chunk = pool
                .take_timeout(BUFFER, Duration::from_secs(10))
                .expect("a chunk comes back");
            chunk.push_slice(&[i as u8]);
            full_tx.send(chunk).unwrap();
        }
    });
    let mut seen = 0;
    for chunk in full_rx {
        seen += usize::from(chunk[0] == seen as u8);
    }
    producer.join().unwrap();
    seen
}

const RECORD: usize = 24;
const BLOCK: usize = 170 * RECORD;
const BUCKETS: usize = 4096;
const RECORDS: u64 = 2_000_000;

fn record(i: u64) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    r[..8].copy_from_slice(&i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes());
    r[20..].copy_from_slice(&(i as u32).to_le_bytes());
    r
}

fn bucket(r: &[u8; RECORD]) -> usize {
    (u64::from_be_bytes(r[..8].try_into().unwrap()) >> (64 - 12)) as usize
}

/// What every variant must read back: the number of records and the XOR
/// of their counts.
fn expected() -> (usize, u32) {
    (RECORDS as usize, (0..RECORDS).fold(0, |x, i| x ^ i as u32))
}

/// Records and XOR of counts in `bytes` (whole records).
fn read_back(bytes: &[u8]) -> (usize, u32) {
    let counts = bytes
        .chunks_exact(RECORD)
        .map(|r| u32::from_le_bytes(r[20..].try_into().unwrap()));
    (bytes.len() / RECORD, counts.fold(0, |x, c| x ^ c))
}

fn add((n, x): (usize, u32), (m, y): (usize, u32)) -> (usize, u32) {
    (n + m, x ^ y)
}

/// The pwned arena: one anonymous map; each bucket keeps the list of its
/// blocks and a cursor into the last; a full block is followed by the next
/// unused block of the map.
fn deal_arena(map: &mut memmap2::MmapMut) -> (usize, u32) {
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); BUCKETS];
    let mut cursor = vec![0usize; BUCKETS];
    let mut end = vec![0usize; BUCKETS];
    let mut used = 0;
    for i in 0..RECORDS {
        let r = record(i);
        let b = bucket(&r);
        if cursor[b] == end[b] {
            lists[b].push(used as u32);
            cursor[b] = used * BLOCK;
            end[b] = cursor[b] + BLOCK;
            used += 1;
        }
        map[cursor[b]..cursor[b] + RECORD].copy_from_slice(&r);
        cursor[b] += RECORD;
    }
    let mut got = (0, 0);
    for (b, list) in lists.iter().enumerate() {
        for (k, &block) in list.iter().enumerate() {
            let start = block as usize * BLOCK;
            let stop = if k + 1 == list.len() {
                cursor[b]
            } else {
                start + BLOCK
            };
            got = add(got, read_back(&map[start..stop]));
        }
    }
    got
}

/// Blocks as `ChunkPool` chunks: a bucket's full chunk goes to its list.
fn deal_pool(pool: &ChunkPool) -> (usize, u32) {
    let mut lists: Vec<Vec<Chunk>> = (0..BUCKETS).map(|_| Vec::new()).collect();
    for i in 0..RECORDS {
        let r = record(i);
        let list = &mut lists[bucket(&r)];
        if !list.last_mut().is_some_and(|chunk| chunk.push_slice(&r)) {
            let mut chunk = pool.try_take().expect("within the budget");
            chunk.push_slice(&r);
            list.push(chunk);
        }
    }
    lists
        .iter()
        .flatten()
        .fold((0, 0), |got, chunk| add(got, read_back(chunk)))
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("handoff_1MiB");
    group.throughput(Throughput::Elements(HANDOFFS as u64));
    group.sample_size(20);
    group.bench_function("ring (channel of free buffers)", |b| {
        b.iter(|| assert_eq!(black_box(ring_handoffs()), HANDOFFS))
    });
    group.bench_function("ChunkPool (take, drop)", |b| {
        b.iter(|| assert_eq!(black_box(pool_handoffs()), HANDOFFS))
    });
    group.finish();

    let blocks = (RECORDS as usize * RECORD / BLOCK + 2 * BUCKETS) * 5 / 4;
    let want = expected();
    let mut group = c.benchmark_group("deal_records");
    group.throughput(Throughput::Elements(RECORDS));
    group.sample_size(10);
    group.bench_function("arena (one huge-page map)", |b| {
        b.iter_batched(
            || {
                let map = memmap2::MmapMut::map_anon(blocks * BLOCK).unwrap();
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                map
            },
            |mut map| assert_eq!(deal_arena(&mut map), want),
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("ChunkPool chunks as blocks", |b| {
        b.iter_batched(
            || ChunkPool::new(BLOCK, blocks),
            |pool| assert_eq!(deal_pool(&pool), want),
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
