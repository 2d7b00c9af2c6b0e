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
