//! `cargo xtask lint`: formatting, clippy and rustdoc, warnings denied.

use crate::run::{cargo, program, Result};

/// `undocumented_unsafe_blocks` is also a workspace lint; naming it here
/// keeps it on for a crate that has not opted into the workspace lints.
const CLIPPY_DENY: [&str; 5] = [
    "--",
    "-D",
    "warnings",
    "-D",
    "clippy::undocumented_unsafe_blocks",
];

pub fn lint() -> Result {
    // Installed by rustup when missing; a toolchain without rustup has
    // them or fails below, saying so.
    let _ = program("rustup", &["component", "add", "rustfmt", "clippy"]).output();
    cargo(&["fmt", "--all", "--", "--check"]).status_ok()?;
    cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--locked",
    ])
    .args(CLIPPY_DENY)
    .status_ok()?;
    // The core without the standard library (`#![no_std]` + `alloc`): a
    // std-only item used outside the `std` feature fails here, not in a
    // user's firmware.
    cargo(&["clippy", "-p", "spool", "--no-default-features", "--locked"])
        .args(CLIPPY_DENY)
        .status_ok()?;
    cargo(&[
        "doc",
        "--workspace",
        "--all-features",
        "--no-deps",
        "--locked",
    ])
    .env("RUSTDOCFLAGS", "-D warnings")
    .status_ok()
}
