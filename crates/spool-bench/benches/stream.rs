//! ByteStream against a `VecDeque<u8>` pipe with the same API and against
//! the copy floor (one `memcpy` in, one out): capacity 32768, writes of 1500
//! bytes, each followed by reads of 4096, 128 or 32 bytes until the pipe is
//! empty, 10 MB in total. Every pipe's output is checked before timing.
//!
//! Run: `cargo bench -p spool-bench --bench stream`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use spool::stream::ByteStream;
use spool_bench::schedules::random_bytes;
use spool_bench::stream_peers::{pump, CopyPipe, VecDequePipe};

const TOTAL: usize = 10_000_000;
const WRITE: usize = 1500;
const CAPACITY: usize = 32_768;

fn bench(c: &mut Criterion) {
    let data = random_bytes(TOTAL, 99);
    let mut out = Vec::with_capacity(TOTAL);
    for read in [4096usize, 128, 32] {
        let mut group = c.benchmark_group(format!("stream/read-{read}"));
        group.throughput(Throughput::Bytes(TOTAL as u64));
        group.sample_size(20);
        macro_rules! pipe {
            ($label:literal, $make:expr) => {
                let run = |out: &mut Vec<u8>| pump(&mut $make(CAPACITY), &data, WRITE, read, out);
                assert_eq!(run(&mut out), TOTAL);
                assert!(out == data, "{}: output differs from the input", $label);
                group.bench_function(BenchmarkId::from_parameter($label), |b| {
                    b.iter(|| black_box(run(&mut out)))
                });
            };
        }
        pipe!("spool", ByteStream::new);
        pipe!("vecdeque", VecDequePipe::new);
        pipe!("copy-floor", CopyPipe::new);
        group.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
