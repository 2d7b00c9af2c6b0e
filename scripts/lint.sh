#!/usr/bin/env bash
# Formatting, clippy with warnings denied, and docs with warnings denied.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
rustup component add rustfmt clippy >/dev/null 2>&1 || true

cargo fmt --all -- --check
# undocumented_unsafe_blocks is also a workspace lint; naming it here keeps
# it on for a crate that has not opted into the workspace lints yet.
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings \
    -D clippy::undocumented_unsafe_blocks
# The core without the standard library (`#![no_std]` + `alloc`): a std-only
# item used outside the `std` feature fails here, not in a user's firmware.
cargo clippy -p spool --no-default-features --locked -- -D warnings \
    -D clippy::undocumented_unsafe_blocks
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --all-features --no-deps --locked
