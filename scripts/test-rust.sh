#!/usr/bin/env bash
# Rust tests of the whole workspace, then the loom model-checking tests of
# the lock-free code (built into their own target folder with --cfg loom).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

cargo test --workspace --all-features --locked --release

# The pool checks its placement invariants with debug assertions: run its
# tests once more in a debug build so those checks are on.
cargo test -p spool --locked --test it -- pool:: pool_model::

if ls crates/spool/tests/loom*.rs >/dev/null 2>&1; then
    for t in crates/spool/tests/loom*.rs; do
        name=$(basename "$t" .rs)
        RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
            cargo test -p spool --release --test "$name"
    done
fi
