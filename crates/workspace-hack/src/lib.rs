//! Unifies the features of the workspace's dependencies (a *workspace-hack*
//! crate, generated and kept current by `cargo hakari`).
//!
//! Cargo compiles a dependency once per distinct feature set. Without this
//! crate, the test build (`cargo test --workspace --all-features`, which also
//! turns on the dev-dependencies' features), `cargo build -p spool-cli` and
//! the Python extension built by maturin each ask for slightly different
//! features of tokio, hyper, serde and others, and each compiles Arrow,
//! Parquet and the HTTP stack again. Every crate that depends on this one
//! gets the union, so all those builds share one compiled copy.
//!
//! The core (`spool`), the `buffer_sv2` drop-in and the C library do not
//! depend on it: users build them on their own, and they stay small.
//! Regenerate with `cargo hakari generate` after a dependency changes
//! (`cargo hakari verify` says whether it is current).
#![no_std]
