//! Shared helpers for spool's benchmarks: workload generators, the
//! reference peers written for comparison, and an allocation counter.
#![deny(missing_docs)]

pub mod alloc_counter;
pub mod chain_peers;
pub mod csv_peers;
pub mod csv_sample;
pub mod partition_peers;
pub mod pool_peers;
pub mod read_peers;
pub mod reassembler_floor;
pub mod reassembler_peers;
pub mod schedules;
pub mod stream_peers;
pub mod tsv_sample;

/// A byte count written as a number with an optional `K`, `M` or `G`
/// (binary units), as the sample generators take it.
///
/// # Panics
///
/// If `s` is not such a size.
pub fn parse_size(s: &str) -> u64 {
    let (num, mult) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().expect("BYTES is a size like 1G") * mult
}
