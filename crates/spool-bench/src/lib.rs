//! Shared helpers for spool's benchmarks: workload generators, the
//! reference peers written for comparison, and an allocation counter.
#![deny(missing_docs)]
