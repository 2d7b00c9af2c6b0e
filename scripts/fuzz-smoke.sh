#!/usr/bin/env bash
# A short run of every cargo-fuzz target (default 20 s each), starting from
# the committed corpus. cargo-fuzz needs nightly compiler flags: the nightly
# toolchain is used when installed, otherwise stable with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-20}"
source scripts/fuzz-env.sh

cd fuzz
for target in $(cargo "${toolchain[@]}" fuzz list); do
    echo "==> fuzz $target for ${secs}s"
    mkdir -p "corpus/$target"
    cargo "${toolchain[@]}" fuzz run "$target" "corpus/$target" -- \
        -max_total_time="$secs" -rss_limit_mb=2048
done
