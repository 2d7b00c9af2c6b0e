//! ByteStream against a `VecDeque<u8>` pipe with the same API: capacity
//! 32768, writes of 1500 bytes, each followed by reads of 4096, 128 or 32
//! bytes until the pipe is empty, 10 MB in total. The bytes read are
//! summed and checked.
//!
//! Run: `cargo bench -p spool-bench --bench stream`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use spool::stream::ByteStream;
use spool_bench::schedules::random_bytes;
use spool_bench::stream_peers::VecDequePipe;

const TOTAL: usize = 10_000_000;
const WRITE: usize = 1500;

fn bench(c: &mut Criterion) {
    let data = random_bytes(TOTAL, 99);
    for read in [4096usize, 128, 32] {
        let mut group = c.benchmark_group(format!("stream/read-{read}"));
        group.throughput(Throughput::Bytes(TOTAL as u64));
        group.sample_size(20);
        let spool_run = |out: &mut Vec<u8>| {
            out.clear();
            let mut s = ByteStream::new(32_768);
            let mut at = 0;
            while at < TOTAL {
                at += s.writer().push(&data[at..(at + WRITE).min(TOTAL)]);
                let r = s.reader();
                while r.bytes_buffered() > 0 {
                    let front = r.peek();
                    let n = front.len().min(read);
                    out.extend_from_slice(&front[..n]);
                    r.pop(n);
                }
            }
            out.len()
        };
        let deque_run = |out: &mut Vec<u8>| {
            out.clear();
            let mut p = VecDequePipe::new(32_768);
            let mut at = 0;
            while at < TOTAL {
                at += p.push(&data[at..(at + WRITE).min(TOTAL)]);
                while !p.is_empty() {
                    let front = p.peek();
                    let n = front.len().min(read);
                    out.extend_from_slice(&front[..n]);
                    p.pop(n);
                }
            }
            out.len()
        };
        let mut out = Vec::with_capacity(TOTAL);
        spool_run(&mut out);
        assert!(out == data, "spool output differs");
        deque_run(&mut out);
        assert!(out == data, "VecDeque output differs");
        group.bench_function(BenchmarkId::from_parameter("spool"), |b| {
            b.iter(|| black_box(spool_run(&mut out)))
        });
        group.bench_function(BenchmarkId::from_parameter("vecdeque"), |b| {
            b.iter(|| black_box(deque_run(&mut out)))
        });
        group.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
