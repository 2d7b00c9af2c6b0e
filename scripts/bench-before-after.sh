#!/usr/bin/env bash
# This checkout against an older commit, in one run: for a change that must
# not make anything slower (a renovation, a refactoring). Each part runs an
# existing bench with its BEFORE switch (or its own comparison), so both
# builds take turns in one series and each bench checks every answer as it
# always does.
#
#   scripts/bench-before-after.sh OLD_COMMIT [PART...]
#
# Parts, in this order (default: all):
#   partition  TSV (bench-partition.sh: plain, zstd, gzip), RFC 4180 CSV
#              (bench-partition-csv.sh: plain, zstd) and CSV into Parquet
#              (bench-partition-parquet.sh), 1 GiB at 1,000 keys; the
#              peers are left out
#   pwned      `pwned build` of 10M lines cold and warm and of 100M lines
#              cold (bench-pwned.sh compare: A B B A cycles, the page cache
#              dropped before each cold run, every index's MD5), then
#              keep.py's median change of the pairs with its 95% interval
#              (positive: the newer build is slower or larger)
#   serve      bench-serve.sh, both builds serving one 10M-hash index
#   download   bench-download.sh from nginx, a 16^5-range folder of
#              DOWNLOAD_LINES hashes, the two builds alternating
#   core       spool's own cases of the core's criterion benches (chain,
#              stream, reassembler, pool, recycling, csv, hex_decode):
#              passes in the order after, before, before, after; per case
#              each build's median of its passes and their ratio
#
# OLD_COMMIT is checked out (a git worktree) into WORK/before-src and
# built into WORK/before-target; this checkout builds into target/.
# Environment: WORK (default target/bench-before-after; needs about 12 GB
# for the pwned and download inputs), LOCK (a file each timed run holds
# with flock, as the benches take it), RUNS (rounds of the partition
# benches, default 5; Parquet's are 3, each waiting a minute before its
# run), PWNED_CYCLES (A B B A cycles per pwned case, default 3),
# DOWNLOAD_LINES (default 10000000), PY (a python with duckdb, for the
# Parquet bench's check; else one is installed into its WORK).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: scripts/bench-before-after.sh OLD_COMMIT [PART...]}
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(partition pwned serve download core)
WORK=${WORK:-target/bench-before-after}
RUNS=${RUNS:-5}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
src="$WORK/before-src"
before_target="$WORK/before-target"

echo "# before: $(git rev-parse --short "$old"); after: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' with uncommitted changes')"
if [ ! -d "$src" ]; then
    git worktree add --detach "$src" "$old" >/dev/null
fi
[ "$(git -C "$src" rev-parse HEAD)" = "$(git rev-parse "$old^{commit}")" ] || git -C "$src" checkout -q --detach "$old"
(cd "$src" && CARGO_TARGET_DIR="$before_target" cargo build --release --locked -q -p spool-cli -p spool-bench --bins)
cargo build --release --locked -q -p spool-cli -p spool-bench --bins
after_bin="$PWD/target/release/spool"
before_bin="$before_target/release/spool"

part_partition() {
    BEFORE=$before_bin PEERS=0 READ=0 RUNS=$RUNS WORK="$WORK/tsv" scripts/bench-partition.sh 1G 1000
    BEFORE=$before_bin ONLY='^spool' WORK="$WORK/csv" scripts/bench-partition-csv.sh 1G "$RUNS"
    BEFORE=$before_bin SPOOL=$after_bin ONLY='^spool' WORK="$WORK/parquet" \
        scripts/bench-partition-parquet.sh 1G 1000 3
}

part_pwned() {
    local log="$WORK/pwned.log" lines input mode
    : >"$log"
    for lines in 10000000 100000000; do
        input="$WORK/pwned-$lines.txt"
        [ -f "$input" ] || "$after_bin" pwned sample --seed 1 --order prevalence --crlf --lines "$lines" >"$input"
    done
    for run in "10000000 cold" "10000000 warm" "100000000 cold"; do
        read -r lines mode <<<"$run"
        ${LOCK:+flock "$LOCK"} env WORK="$WORK" scripts/bench-pwned.sh compare "$log" "$WORK/pwned-$lines.txt" "$mode" \
            "${PWNED_CYCLES:-3}" "after=$after_bin" "before=$before_bin" >/dev/null
    done
    scripts/bench-pwned.sh summary "$log"
    echo "# after ÷ before - 1, paired (keep.py: WITH = before, WITHOUT = after)"
    python3 scripts/bench/keep.py "$log" before after
}

part_serve() {
    mkdir -p "$WORK/serve"
    ${LOCK:+flock "$LOCK"} env LINES=10000000 BEFORE="$before_bin" DURATION=10 RUNS=3 \
        WORK="$WORK/serve" scripts/bench-serve.sh
}

part_download() {
    local lines=${DOWNLOAD_LINES:-10000000} ranges="$WORK/ranges-${DOWNLOAD_LINES:-10000000}"
    [ -d "$ranges" ] || "$after_bin" pwned sample --seed 1 --lines "$lines" --crlf --ranges "$ranges"
    mkdir -p "$WORK/download"
    ${LOCK:+flock "$LOCK"} env RANGES="$ranges" LINES="$lines" BEFORE="$before_bin" SPOOL="$after_bin" \
        STEPS=download ROUNDS=2 WARMUP=1 WORK="$WORK/download" scripts/bench-download.sh
}

# bench_executables DIR TARGET_DIR: "name path" of spool-bench's criterion
# executables built in DIR's checkout.
bench_executables() {
    (cd "$1" && CARGO_TARGET_DIR="$2" cargo bench --locked -q -p spool-bench --no-run --message-format=json 2>/dev/null) |
        python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and "bench" in m["target"]["kind"] and m.get("executable"):
        print(m["target"]["name"], m["executable"])'
}

part_core() {
    local benches=(chain stream reassembler pool recycling csv hex_decode) log="$WORK/core.log" pass which name exe
    declare -A exe_of
    while read -r name exe; do exe_of[after-$name]=$exe; done < <(bench_executables . "$PWD/target")
    while read -r name exe; do exe_of[before-$name]=$exe; done < <(bench_executables "$src" "$before_target")
    : >"$log"
    for pass in after before before after; do
        for name in "${benches[@]}"; do
            exe=${exe_of[$pass-$name]:-}
            [ -n "$exe" ] || { echo "$pass has no bench '$name'"; continue; }
            ${LOCK:+flock "$LOCK"} "$exe" --bench spool --warm-up-time 1 --measurement-time 2 \
                --output-format bencher --noplot 2>/dev/null | sed -n "s/^test \(.*\) \.\.\. bench: *\([0-9,]*\) ns\/iter.*/$pass\t\1\t\2/p" | tr -d , >>"$log"
        done
    done
    python3 - "$log" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    build, case, ns = line.rstrip("\n").split("\t")
    runs[case, build].append(int(ns))
print("| case | before, ns (passes) | after, ns (passes) | after ÷ before |")
print("|---|---:|---:|---:|")
for case in dict.fromkeys(c for c, _ in runs):
    b, a = runs.get((case, "before")), runs.get((case, "after"))
    if not a or not b:
        print(f"| `{case}` | {'/'.join(map(str, b or []))} | {'/'.join(map(str, a or []))} | (one build only) |")
        continue
    ratio = statistics.median(a) / statistics.median(b)
    print(f"| `{case}` | {'/'.join(f'{x:,}' for x in b)} | {'/'.join(f'{x:,}' for x in a)} | {ratio:.2f} |")
PY
}

for part in "${parts[@]}"; do
    case $part in
        partition | pwned | serve | download | core) ;;
        *) echo "no part '$part'; the parts are partition, pwned, serve, download, core"; exit 2 ;;
    esac
    echo
    echo "## $part ($(date -u +%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
    "part_$part"
done
