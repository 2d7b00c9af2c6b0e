//! Atomics for the pool: `core`'s normally, `loom`'s under `--cfg loom` so
//! the release protocol can be model-checked (`tests/loom_pool.rs`).

#[cfg(not(loom))]
pub(crate) use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
