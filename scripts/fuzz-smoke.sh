#!/usr/bin/env bash
# A short run of every cargo-fuzz target (default 20 s each), starting from
# the committed corpus. cargo-fuzz needs nightly compiler flags: the nightly
# toolchain is used when installed, otherwise stable with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
secs="${FUZZ_SECONDS:-20}"

command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    toolchain=()
    export RUSTC_BOOTSTRAP=1
fi

cd fuzz
for target in $(cargo "${toolchain[@]}" fuzz list); do
    echo "==> fuzz $target for ${secs}s"
    mkdir -p "corpus/$target"
    cargo "${toolchain[@]}" fuzz run "$target" "corpus/$target" -- \
        -max_total_time="$secs" -rss_limit_mb=2048
done
