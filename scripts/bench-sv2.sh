#!/usr/bin/env bash
# codec_sv2's decoder on spool's buffer_sv2 against crates.io's buffer_sv2
# (its BufferPool and its BufferFromSystemMemory), in the same run:
# 1,000,000 frames of 41 bytes on average, plain and Noise, each frame
# dropped at once or the last 16 kept alive, and plain with the first frame
# kept alive to the end (compat/sv2-tests/src/bin/sv2-bench.rs).
#
#   scripts/bench-sv2.sh [ROUNDS] [FRAMES]
#
# Builds the three binaries, then runs them ROUNDS times (default 5) in
# alternating order (ABC, CBA, ...) under `benchlock` if it is there, and
# prints each case's median ns/frame with the min-max spread.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
rounds=${1:-5}
frames=${2:-1000000}

tests=compat/sv2-tests
bin=target/sv2-tests/release
out=target/sv2-tests/bench
mkdir -p "$out"
(cd "$tests" && cargo build --release --locked --bin sv2-bench --features with_buffer_pool)
cp "$bin/sv2-bench" "$out/spool-pool"
(cd "$tests/real" && cargo build --release --locked --bin sv2-bench-real --features with_buffer_pool)
cp "$bin/sv2-bench-real" "$out/sv2-pool"
(cd "$tests/real" && cargo build --release --locked --bin sv2-bench-real)
cp "$bin/sv2-bench-real" "$out/sv2-heap"

builds=(spool-pool sv2-pool sv2-heap)
results=$out/results.txt
# All rounds inside one `benchlock` call (about a minute): the builds
# alternate within it, so they see the same machine.
rounds_in_order() {
    for ((r = 0; r < rounds; r++)); do
        if ((r % 2)); then order=(sv2-heap sv2-pool spool-pool); else order=("${builds[@]}"); fi
        for b in "${order[@]}"; do
            timeout 120 "$out/$b" "$frames"
        done
    done
}
export -f rounds_in_order
export rounds frames out
builds_list="${builds[*]}"
lock=()
command -v benchlock >/dev/null && lock=(benchlock)
"${lock[@]}" bash -c "builds=($builds_list); rounds_in_order" >"$results"

python3 - "$results" <<'EOF'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    buffer, case, ns, _ = [f.strip() for f in line.split("|")]
    runs[(case, buffer)].append(float(ns.split()[0]))
print("| case | buffer | median ns/frame | min-max | runs |")
print("|---|---|---|---|---|")
for (case, buffer), v in sorted(runs.items()):
    print(f"| {case} | {buffer} | {statistics.median(v):.1f} | {min(v):.1f}-{max(v):.1f} | {len(v)} |")
EOF
