//! # buffer_sv2 2.x on spool's pool
//!
//! This crate is named `buffer_sv2` at version 2.0.0 so that the Stratum V2
//! builds still on buffer_sv2 2.x — codec_sv2 3.x and the crates on it
//! (roles_logic_sv2 5.x, network_helpers_sv2 4.x, stratum-common 4.x) and
//! sv2-apps' roles, whose git dependency on stratum's repository is at a
//! commit where buffer_sv2 is 2.0.0 — run on spool's pool. A `[patch]`
//! takes a crate only at a semver-compatible version, so the 3.x face
//! cannot stand in for a `^2.0.0` requirement, and cargo would say nothing:
//! the old pool would stay.
//!
//! buffer_sv2 2.0.0 and 3.0.1 have the same public API (3.0 changed its
//! internals only), so every item here is the 3.x face's, re-exported: the
//! same trait, the same types. A build that holds both majors (codec_sv2
//! 3.x beside 7.x, say) has one `Slice` and one `BufferPool`. What differs
//! from the original crate is listed in the 3.x face's documentation and in
//! spool's docs/pool.md, which also gives the `[patch]` recipes.
//!
//! # Examples
//!
//! ```
//! use buffer_sv2::{Buffer, BufferPool};
//!
//! let mut pool = BufferPool::new(1 << 16);
//! pool.get_writable(5).copy_from_slice(b"share");
//! let frame = pool.get_data_owned();
//! assert_eq!(frame.as_ref(), b"share");
//! assert_eq!(frame.len(), 5);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub use buffer_sv2_3::{
    AeadBuffer, Buffer, BufferFromSystemMemory, BufferPool, Slice, Write, WriteError,
};
