#!/usr/bin/env bash
# pwned index figures: builds an index from LINES generated lines
# (prevalence order, CRLF, like the older HIBP archives; then hash order, as
# the official downloader writes) and reports wall time, CPU time, peak RSS
# and size per hash, then lookup latency (warm, cold, pages read) and whole
# CLI calls. STATIC_OKON=1 also builds spool-okon as a static executable and
# times its calls. Usage: LINES=10000000 scripts/bench-pwned.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
lines="${LINES:-10000000}"
memory="${MEMORY:-512M}"
work="${WORK:-$(mktemp -d)}"
trap 'rm -rf "$work"' EXIT

cargo build --release --locked -p spool-cli
bin=target/release
echo "== generating $lines lines"
"$bin/spool" pwned sample --lines "$lines" --seed 1 --order prevalence --crlf -o "$work/sample.txt"
ls -l "$work/sample.txt" | awk '{print "input bytes:", $5}'
sync; echo 1 > /proc/sys/vm/drop_caches 2>/dev/null || true
echo "== build (--memory $memory)"
/usr/bin/time -v "$bin/spool" pwned build --memory "$memory" -o "$work/index" "$work/sample.txt" 2> "$work/time.txt" || { cat "$work/time.txt"; exit 1; }
grep -E "spool pwned build|Elapsed|User time|System time|Maximum resident" "$work/time.txt"
echo "== build from hash-ordered input (streams without sorting)"
"$bin/spool" pwned sample --lines "$lines" --seed 1 --order hash --crlf -o "$work/sorted.txt"
sync; echo 1 > /proc/sys/vm/drop_caches 2>/dev/null || true
/usr/bin/time -v "$bin/spool" pwned build --memory "$memory" -o "$work/index-sorted" "$work/sorted.txt" 2> "$work/time.txt" || { cat "$work/time.txt"; exit 1; }
grep -E "spool pwned build|Elapsed|User time|System time|Maximum resident" "$work/time.txt"
cmp "$work/index" "$work/index-sorted" && echo "same index bytes from both orders"
rm -f "$work/sorted.txt" "$work/index-sorted"
size=$(stat -c %s "$work/index")
echo "index bytes: $size ($(echo "scale=2; $size / $lines" | bc) per hash)"
echo "== lookups"
SPOOL_PWNED_INDEX="$work/index" SPOOL_PWNED_LINES="$lines" SPOOL_PWNED_SEED=1 \
    cargo bench --locked -p spool-bench --bench pwned_lookup 2>/dev/null | grep -E "lookup"
hash=$("$bin/spool" pwned sample --lines 1 --seed 1 | cut -d: -f1)
echo "== 200 CLI calls each (warm cache), next to the cost of starting /bin/true"
start=$(date +%s%N)
for _ in $(seq 200); do /bin/true; done
echo "/bin/true (process start floor): $(( ($(date +%s%N) - start) / 200000 )) µs per call"
start=$(date +%s%N)
for _ in $(seq 200); do "$bin/spool-okon" --path "$work/index" --hash "$hash" >/dev/null || true; done
echo "spool-okon: $(( ($(date +%s%N) - start) / 200000 )) µs per call"
start=$(date +%s%N)
for _ in $(seq 200); do "$bin/spool" pwned check -i "$work/index" --hash "$hash" >/dev/null; done
echo "spool pwned check: $(( ($(date +%s%N) - start) / 200000 )) µs per call"
if [ "${STATIC_OKON:-0}" = 1 ]; then
    # No dynamic loader at start-up: a static executable (glibc static-pie).
    RUSTFLAGS="-C target-feature=+crt-static" CARGO_TARGET_DIR=target/static \
        cargo build --release --locked --target x86_64-unknown-linux-gnu -p spool-cli --bin spool-okon
    static=target/static/x86_64-unknown-linux-gnu/release/spool-okon
    start=$(date +%s%N)
    for _ in $(seq 200); do "$static" --path "$work/index" --hash "$hash" >/dev/null || true; done
    echo "spool-okon, static: $(( ($(date +%s%N) - start) / 200000 )) µs per call"
fi
