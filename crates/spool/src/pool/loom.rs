//! Atomics for the pool: `std`'s normally, `loom`'s under `--cfg loom` so
//! the release protocol can be model-checked (`tests/loom_pool.rs`).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
