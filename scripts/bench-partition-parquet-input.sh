#!/usr/bin/env bash
# Re-partitioning a Parquet dataset into Parquet: `spool partition
# --format parquet` beside DuckDB, Polars and PyArrow, in the same run, on
# the same input.
#
#   scripts/bench-partition-parquet-input.sh [ROWS] [KEYS] [RUNS]   (defaults: 3000000 1000 3)
#
# Generates (once) a deterministic dataset of 10 Parquet files, ROWS rows
# in all, 20 columns of mixed types, a string key of KEYS values
# (scripts/bench/partition_parquet_input.py gen), then writes it as a
# Hive-partitioned Parquet dataset by the key, zstd, with:
#   spool     --format parquet --by key --memory MEMORY --threads THREADS
#   duckdb    COPY (FROM read_parquet(...)) TO ... (PARTITION_BY (key))
#   polars    scan_parquet(...).sink_parquet(PartitionBy(...))
#   pyarrow   dataset(...) -> write_dataset(partitioning=hive)
# RUNS rounds; each round runs every tool once, the order turned by one
# each round, so a drift in the machine's load falls on each tool alike.
# Every run is checked: DuckDB reads the output back with hive
# partitioning and must find the input's rows, keys, sum of i64 and total
# length of text, or the run is reported WRONG. Prints per tool the
# median wall time and peak RSS (of the process, /usr/bin/time's %M) with
# [min-max].
# Environment: WORK (scratch, default target/bench-partition-parquet-input),
# MEMORY (spool's --memory, default 256M), THREADS (default 2), LOCK (a
# file each timed run holds with flock, for a machine shared with other
# timing runs), SPOOL (the binary; default: this checkout's, built first),
# SPOOL_BASE (another spool binary, e.g. an earlier commit's, run as the
# tool spool-base in the same rounds), TOOLS (the tools to run, default
# "spool duckdb polars pyarrow", plus spool-base if SPOOL_BASE is set),
# PY (a python with duckdb, polars and pyarrow; default: a venv in WORK).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-3000000}
KEYS=${2:-1000}
RUNS=${3:-3}
MEMORY=${MEMORY:-256M}
THREADS=${THREADS:-2}
WORK=${WORK:-target/bench-partition-parquet-input}

if [ -z "${SPOOL:-}" ]; then
    cargo build --release -q -p spool-cli
    SPOOL=target/release/spool
fi
mkdir -p "$WORK"
if [ -z "${PY:-}" ]; then
    [ -x "$WORK/venv/bin/python" ] || python3 -m venv "$WORK/venv"
    PY="$WORK/venv/bin/python"
    "$PY" -c "import duckdb, polars, pyarrow" 2>/dev/null ||
        "$PY" -m pip install -q "duckdb==2.0.1" "polars==2.1.0" "pyarrow==26.0.1"
fi
PEERS=scripts/bench/partition_parquet_input.py
DATA="$WORK/data-$ROWS-$KEYS"
[ -d "$DATA" ] || "$PY" "$PEERS" gen "$DATA" "$ROWS" "$KEYS"
EXPECTED=$("$PY" "$PEERS" check "$DATA")
OUT="$WORK/out"
cat "$DATA"/*.parquet >/dev/null # warm the page cache

run_tool() {
    case $1 in
    spool | spool-base)
        bin=$SPOOL
        [ "$1" = spool ] || bin=$SPOOL_BASE
        "$bin" partition -q --format parquet --by key --memory "$MEMORY" \
            --threads "$THREADS" --out "$OUT" "$DATA"
        ;;
    *) "$PY" "$PEERS" "$1" "$DATA" "$OUT" "$THREADS" ;;
    esac
}
export -f run_tool
export SPOOL SPOOL_BASE MEMORY THREADS OUT DATA PY PEERS

read -r -a tools <<<"${TOOLS:-spool duckdb polars pyarrow}"
[ -z "${SPOOL_BASE:-}" ] || [ -n "${TOOLS:-}" ] || tools+=(spool-base)
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for ((round = 0; round < RUNS; round++)); do
    for ((i = 0; i < ${#tools[@]}; i++)); do
        tool=${tools[(i + round) % ${#tools[@]}]}
        rm -rf "$OUT" "$WORK/duckdb-tmp"
        sync
        timing=$(mktemp)
        if ${LOCK:+flock "$LOCK"} /usr/bin/time -f "%e %M" -o "$timing" bash -c "run_tool $tool" >/dev/null 2>&1; then
            got=$("$PY" "$PEERS" check "$OUT")
            verdict=$([ "$got" = "$EXPECTED" ] && echo ok || echo "WRONG: $got")
        else
            verdict=FAILED
        fi
        read -r wall rss <"$timing"
        rm -f "$timing"
        echo "$tool $wall $rss $verdict" | tee -a "$results" >&2
    done
done
rm -rf "$OUT"
echo "input: $ROWS rows, $KEYS keys, $(du -sh "$DATA" | cut -f1) in 10 files; threads $THREADS; expected: $EXPECTED"
for tool in "${tools[@]}"; do
    awk -v t="$tool" '
        $1 == t { w[++n] = $2; r[n] = $3 / 1024; if ($4 != "ok") bad = bad " " $4 }
        function median(a, n,   i, j, x) {
            for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        END {
            mw = median(w, n); mr = median(r, n)
            printf "%-8s wall %.2f s [%.2f-%.2f]  peak RSS %.0f MiB [%.0f-%.0f]  runs %d%s\n", t, mw, w[1], w[n], mr, r[1], r[n], n, (bad ? " " bad : " all checked ok")
        }' "$results"
done
