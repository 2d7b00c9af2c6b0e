#!/usr/bin/env bash
# pwned index figures: builds an index from LINES generated lines
# (prevalence order, CRLF, like the older HIBP archives; then hash order, as
# the official downloader writes) and reports wall time, CPU time, peak RSS
# and size per hash, then lookup latency (warm, cold, pages read) and whole
# CLI calls. STATIC_OKON=1 also builds spool-okon as a static executable and
# times its calls. Usage: LINES=10000000 scripts/bench-pwned.sh
#
# Same-run comparison of builds (run it under the machine's benchmark lock):
#   scripts/bench-pwned.sh compare LOG INPUT cold|warm CYCLES NAME=CMD...
# runs each build in turn forward then back (A B B A for two) CYCLES times,
# `CMD pwned build --memory $MEMORY -o IDX INPUT` for a spool executable,
# or okon-cli's prepare when NAME is `okon` (CMD: its path); the page cache
# dropped before each cold run, the input read before each warm one. It
# appends one line per run to LOG (input mode name wall_s user_s sys_s
# peak_rss_kb md5-of-index, or - when MD5=0) and prints each name's medians
# and ranges in LOG: `scripts/bench-pwned.sh summary LOG`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
if [ "${1:-}" = compare ]; then
    log=$2 input=$3 mode=$4 cycles=$5; shift 5
    out=$(mktemp -d "${WORK:-/tmp}/bench-pwned.XXXXXX")
    trap 'rm -rf "$out"' EXIT
    one() {
        local name=${1%%=*} cmd=${1#*=}
        rm -rf "$out"/*; sync
        if [ "$mode" = cold ]; then echo 3 > /proc/sys/vm/drop_caches; else cat "$input" > /dev/null; fi
        if [ "$name" = okon ]; then
            mkdir "$out/wd"
            /usr/bin/time -o "$out/time" -f "%e %U %S %M" "$cmd" --prepare "$input" --wd "$out/wd/" --output "$out/index" > /dev/null
        else
            /usr/bin/time -o "$out/time" -f "%e %U %S %M" "$cmd" pwned build --memory "${MEMORY:-512M}" -o "$out/index" "$input"
        fi
        local sum=-
        if [ "${MD5:-1}" = 1 ]; then sum=$(md5sum < "$out/index" | cut -c1-12); fi
        echo "$(basename "$input") $mode $name $(cat "$out/time") $sum" | tee -a "$log"
    }
    for ((i = 0; i < cycles; i++)); do
        for b in "$@"; do one "$b"; done
        for ((j = $#; j >= 1; j--)); do one "${!j}"; done
    done
    exit 0
fi
if [ "${1:-}" = summary ]; then
    exec python3 - "$2" <<'PY'
import sys, statistics as st, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    runs[(f[0], f[1], f[2])].append((float(f[3]), float(f[4]) + float(f[5]), int(f[6]), f[7]))
def span(xs, fmt):
    return f"{fmt(st.median(xs))} [{fmt(min(xs))}–{fmt(max(xs))}]"
s, kb = "{:.2f}".format, "{:,}".format
print("input mode name runs | wall s | CPU s | peak RSS KB | index md5")
for key, rs in runs.items():
    wall, cpu, rss, md5 = zip(*rs)
    print(f"{' '.join(key)} {len(rs)} | {span(wall, s)} | {span(cpu, s)} | "
          f"{span(rss, lambda x: kb(int(x)))} | {','.join(sorted(set(md5)))}")
PY
fi
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
