#!/usr/bin/env bash
# `spool partition` on RFC 4180 CSV beside its peers, in the same run.
#
#   scripts/bench-partition-csv.sh [SIZE] [RUNS]        (defaults: 1G 3)
#
# Generates a deterministic CSV (gen-csv: five fields, 1000 keys in
# column 1, a third of all fields quoted; quoted text holds commas, line
# breaks and doubled quotes), then partitions it by column 1 into 1000
# files with spool (plain, zstd-3), xsv, qsv, DuckDB's COPY ... PARTITION_BY
# and Polars' sink_csv; every run must write 1000 files. Peers that are not
# installed are reported as such:
#   pip install duckdb polars;  cargo install xsv --locked
# Environment: WORK (scratch folder, default target/bench-partition; put
# it on a tmpfs such as /dev/shm to take the disk out of the comparison),
# THREADS (default 2), MEMORY (spool's --memory, default 128M), BEFORE
# (another spool binary, e.g. a previous build, run as "spool before"
# beside this one), and the driver's ONLY, LOCK, TIMEOUT, BUDGET
# (scripts/bench/driver.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/driver.sh
SIZE=${1:-1G}
RUNS=${2:-3}
THREADS=${THREADS:-2}
MEMORY=${MEMORY:-128M}
WORK=${WORK:-target/bench-partition}

cargo build --release -q -p spool-cli -p spool-bench --bins
mkdir -p "$WORK"
DATA="$WORK/data-$SIZE.csv"
[ -f "$DATA" ] || target/release/gen-csv "$SIZE" 1 "$DATA"
OUT="$WORK/out"
cat "$DATA" >/dev/null # warm the page cache
machine_line
echo "# $DATA ($(du -m "$DATA" | cut -f1) MB); threads $THREADS; $RUNS rounds"

check() {
    local files
    files=$(find "$OUT" -type f ! -name '_partitions*' | wc -l)
    [ "$files" = 1000 ] || { echo "$files files, not 1000"; return 1; }
}

spool_args="partition -q -d comma --by 1 --threads $THREADS --memory $MEMORY --out $OUT $DATA"
tool "spool (plain)" "target/release/spool $spool_args"
tool "spool --compress zstd" "target/release/spool $spool_args --compress zstd"
if [ -n "${BEFORE:-}" ]; then
    tool "spool before (plain)" "$BEFORE $spool_args"
    tool "spool before --compress zstd" "$BEFORE $spool_args --compress zstd"
fi
if have xsv; then tool "xsv partition" "xsv partition -n 1 $OUT $DATA"; else echo "xsv: not installed"; fi
# qsv, or qsvlite (qsv built with `--no-default-features --features lite`).
QSV=$(command -v qsv || command -v qsvlite || true)
if [ -n "$QSV" ]; then tool "$(basename "$QSV") partition" "$QSV partition -n --limit 0 1 $OUT $DATA"; else echo "qsv: not installed"; fi
if py_has duckdb; then
    tool "duckdb COPY (plain)" "python3 scripts/bench/partition_duckdb.py $DATA $OUT none $THREADS csv"
    tool "duckdb COPY (zstd)" "python3 scripts/bench/partition_duckdb.py $DATA $OUT zstd $THREADS csv"
else echo "duckdb: not installed"; fi
if py_has polars; then
    tool "polars sink_csv (plain)" "env POLARS_MAX_THREADS=$THREADS python3 scripts/bench/partition_polars.py $DATA $OUT none csv"
    tool "polars sink_csv (zstd)" "env POLARS_MAX_THREADS=$THREADS python3 scripts/bench/partition_polars.py $DATA $OUT zstd csv"
else echo "polars: not installed"; fi

rounds "$RUNS"
report
