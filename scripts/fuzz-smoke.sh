#!/usr/bin/env bash
# A short run of every cargo-fuzz target, starting from the committed corpus
# (which it leaves as it is): each replays its whole corpus, then fuzzes
# until FUZZ_SECONDS (default 20) or FUZZ_RUNS inputs (default 100,000),
# whichever comes first — a cheap target covers its inputs in a few
# seconds, and the slow ones get the whole time. cargo-fuzz needs nightly
# compiler flags: the nightly toolchain is used when installed, otherwise
# stable with RUSTC_BOOTSTRAP=1.
#
# Every target is built in one cargo call first; then the fuzzers run
# FUZZ_JOBS at a time (default: one per CPU — each fuzzer is one thread),
# so each still gets its FUZZ_SECONDS of a whole CPU. A target that fails
# prints its log and fails the run once every running target is done.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-20}"
runs="${FUZZ_RUNS:-100000}"
jobs="${FUZZ_JOBS:-$(nproc)}"
source scripts/fuzz-env.sh

cd fuzz
mapfile -t targets < <(cargo "${toolchain[@]}" fuzz list)
cargo "${toolchain[@]}" fuzz build
bin_dir="target/x86_64-unknown-linux-gnu/release"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

run_one() {
    local target=$1
    # New inputs go to a scratch folder (the first corpus folder libFuzzer
    # is given), so a smoke run never adds files to the committed corpus.
    mkdir -p "$logs/$target" "corpus/$target"
    if "$bin_dir/$target" "$logs/$target" "corpus/$target" -max_total_time="$secs" -runs="$runs" -rss_limit_mb=2048 \
        -artifact_prefix="$logs/$target-" >"$logs/$target.log" 2>&1; then
        echo "==> fuzz $target: $(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) .*/\1 inputs in \2 s/p' "$logs/$target.log" | tail -1), no failure"
    else
        echo "==> fuzz $target FAILED; its log:"
        cat "$logs/$target.log"
        return 1
    fi
}
export -f run_one
export secs runs bin_dir logs

echo "==> fuzz: ${#targets[@]} targets, up to ${secs} s or ${runs} inputs each, ${jobs} at a time"
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$1"' _ {}
