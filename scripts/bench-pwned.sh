#!/usr/bin/env bash
# pwned index figures: builds an index from LINES generated lines
# (prevalence order, CRLF, like the older HIBP archives) and reports wall
# time, CPU time, peak RSS and size per hash, then lookup latency (warm,
# cold) and whole CLI calls. Usage: LINES=10000000 scripts/bench-pwned.sh
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
