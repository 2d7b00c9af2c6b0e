#!/usr/bin/env bash
# `spool partition --format parquet` beside DuckDB, Polars and PyArrow, in
# the same run, on the same input.
#
#   scripts/bench-partition-parquet.sh [SIZE] [KEYS] [RUNS]   (defaults: 1G 1000 3)
#
# Generates a deterministic CSV (gen-csv: key, an int64 id, a timestamp, a
# colour, text; KEYS keys in column 1, a third of all fields quoted, with
# commas, line breaks and doubled quotes inside), then writes it as a
# Hive-partitioned Parquet dataset by column 1, zstd, with col2 read as
# int64 and col3 as a timestamp, by (scripts/bench/partition_parquet.py):
#   spool            --memory MEMORY
#   duckdb limit     COPY ... (FORMAT PARQUET, PARTITION_BY) under SET memory_limit = MEMORY
#   duckdb           the same without a memory limit
#   polars           sink_parquet(PartitionBy(...))
#   pyarrow          pyarrow.dataset.write_dataset(partitioning=hive)
# RUNS rounds (scripts/bench/driver.sh), fewer for a tool once one more
# run would take it past BUDGET seconds in all. Prints per tool the median
# wall time [min-max], CPU time (user + system), peak RSS, and the Parquet
# files written, or how its runs failed. Every completed run is checked:
# DuckDB reads the dataset back with hive partitioning and must find the
# input's rows, keys, sum of col2 and total length of col5, or the run is
# reported WRONG.
# Installs duckdb, polars and pyarrow into WORK/venv unless PY names a
# python that has them.
# Environment: WORK (scratch, default target/bench-partition-parquet),
# MEMORY (spool's --memory and DuckDB's limit, default 128M), THREADS
# (default 2), MAX_OPEN (spool's --max-open, default 1024), TIMEOUT (seconds
# per run, default 900), BUDGET (seconds per tool, default 540), SPOOL (the
# spool binary to run; default: this checkout's, built first), BEFORE
# (another spool binary, e.g. a previous build, run as "spool before"
# beside it with the same arguments), PY, SETTLE
# (seconds to wait after removing the previous run's output, after a sync,
# before the next run; default 65 with 1,000 keys or more, else 0), and the
# driver's ONLY and LOCK.
#
# Why SETTLE: ext4 without a journal (as on the machines BENCHMARKS.md was
# measured on) passes over every inode freed in the last 60 s (360 s while
# its inode table block is still dirty) when it allocates a new one, so a
# run that creates 100,000 files right after the previous run's 100,000
# were removed spends most of its time in the kernel's inode allocator
# (`recently_deleted`): 54-61 s instead of 33 s for the same spool build.
# Waiting lets every tool start from the same state, whichever ran before.
# At 1,000 keys the same kernel functions took 5-6% of a spool run's CPU
# samples right after the previous run's output was removed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/driver.sh
SIZE=${1:-1G}
KEYS=${2:-1000}
RUNS=${3:-3}
MEMORY=${MEMORY:-128M}
THREADS=${THREADS:-2}
MAX_OPEN=${MAX_OPEN:-1024}
TIMEOUT=${TIMEOUT:-900}
if [ "$KEYS" -ge 1000 ]; then SETTLE=${SETTLE:-65}; else SETTLE=${SETTLE:-0}; fi
BUDGET=${BUDGET:-540}
WORK=${WORK:-target/bench-partition-parquet}

spool_binary
mkdir -p "$WORK"
peer_python "duckdb==2.0.0" "polars==2.1.0" "pyarrow==26.0.1"
PEERS=scripts/bench/partition_parquet.py

DATA="$WORK/data-$SIZE-$KEYS.csv"
if [ ! -f "$DATA" ]; then
    cargo build --release -q -p spool-bench --bin gen-csv
    target/release/gen-csv "$SIZE" 1 "$DATA" "$KEYS"
fi
[ -f "$DATA.check" ] || "$PY" "$PEERS" check "$DATA" >"$DATA.check"
read -r ROWS _ _ _ <"$DATA.check"
OUT="$WORK/out"
MEMORY_MB=$(numfmt --from=iec "$MEMORY" | awk '{print int($1 / 1048576)}')
cat "$DATA" >/dev/null # warm the page cache
machine_line
echo "# $DATA ($(du -m "$DATA" | cut -f1) MB, $ROWS rows, $KEYS keys); memory $MEMORY; threads $THREADS; timeout ${TIMEOUT}s"

prepare() {
    rm -rf "$OUT" "$WORK/duckdb-tmp"
    if [ "$SETTLE" != 0 ]; then sync && sleep "$SETTLE"; fi
}
check() {
    local got
    got=$("$PY" "$PEERS" check "$OUT")
    [ "$got" = "$(cat "$DATA.check")" ] || { echo "read back $got, input $(cat "$DATA.check")"; return 1; }
}
note() { echo "$(find "$OUT" -name '*.parquet' | wc -l) files"; }

tool spool "$SPOOL partition -q -d comma --by 1 --format parquet --schema col2:int64,col3:timestamp --compress zstd --threads $THREADS --memory $MEMORY --max-open $MAX_OPEN --out $OUT $DATA"
[ -z "${BEFORE:-}" ] || tool "spool before" "$BEFORE partition -q -d comma --by 1 --format parquet --schema col2:int64,col3:timestamp --compress zstd --threads $THREADS --memory $MEMORY --max-open $MAX_OPEN --out $OUT $DATA"
tool "duckdb limit" "$PY $PEERS duckdb $DATA $OUT $THREADS $MEMORY_MB"
tool duckdb "$PY $PEERS duckdb $DATA $OUT $THREADS"
tool polars "$PY $PEERS polars $DATA $OUT $THREADS"
tool pyarrow "$PY $PEERS pyarrow $DATA $OUT $THREADS"

rounds "$RUNS"
report
rm -rf "$WORK/duckdb-tmp"
