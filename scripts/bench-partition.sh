#!/usr/bin/env bash
# Reading and partition benchmarks: spool beside its peers in the same run.
#
#   scripts/bench-partition.sh [SIZE] [KEYS]        (defaults: 1G 1000)
#
# Generates a deterministic TSV (5 fields, ~100 bytes a line, KEYS distinct
# keys in column 1), then
#   1. reading: count lines and take field 2 — cat, wc -l, C fread+memchr,
#      spool's ChunkReader and the Rust peers (read-peers);
#   2. partition by column 1: spool (plain, zstd-3, gzip-6) against xsv,
#      qsv, DuckDB, Polars, Miller and awk, wall time and peak RSS.
# Peers that are not installed are reported as such. To install them:
#   pip install duckdb polars;  apt-get install miller;
#   cargo install xsv;  cargo install qsv --no-default-features --features lite
# Environment: WORK (scratch folder, default target/bench-partition),
# THREADS (default 2), RUNS (rounds of the partition part, default 1),
# PEERS=0 (spool only), READ=0 (skip reading), STDIN=1 (spool reads the
# generator's output from a pipe; nothing stored), BEFORE (another spool
# binary, e.g. a previous build, run as "spool before" beside this one),
# and the driver's ONLY, LOCK, TIMEOUT, BUDGET (scripts/bench/driver.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/driver.sh
SIZE=${1:-1G}
KEYS=${2:-1000}
THREADS=${THREADS:-2}
WORK=${WORK:-target/bench-partition}
PEERS=${PEERS:-1}
READ=${READ:-1}
STDIN=${STDIN:-0}
RUNS=${RUNS:-1}

cargo build --release -q -p spool-cli -p spool-bench --bins
mkdir -p "$WORK"
DATA="$WORK/data-$SIZE-$KEYS.tsv"
if [ "$STDIN" != 1 ] && [ ! -f "$DATA" ]; then
    target/release/gen-tsv "$SIZE" "$KEYS" 1 "$DATA"
fi
OUT="$WORK/out"
machine_line
echo "# data: $SIZE, $KEYS keys; threads $THREADS"

if [ "$READ" = 1 ] && [ "$STDIN" != 1 ]; then
    cc -O2 -o "$WORK/fread_memchr" crates/spool-bench/c/fread_memchr.c
    cat "$DATA" >/dev/null # warm the page cache
    echo
    echo "## Reading $DATA (warm cache, best of 3)"
    for cmd in "cat $DATA" "wc -l $DATA" "$WORK/fread_memchr $DATA"; do
        best=999
        for _ in 1 2 3; do
            /usr/bin/time -f "%e" -o "$WORK/time.txt" $cmd >/dev/null
            best=$(python3 -c "print(min($best, $(cat "$WORK/time.txt")))")
        done
        printf '%-28s %8s s\n' "${cmd%% *}" "$best"
    done
    target/release/read-peers "$DATA" 3
fi

echo
echo "## Partition by column 1"
note() { echo "$(du -sm "$OUT" | cut -f1) MB in $(find "$OUT" -type f | wc -l) files"; }
spool=target/release/spool
for c in none zstd gzip; do
    if [ "$STDIN" = 1 ]; then
        tool "spool --compress $c (stdin)" "target/release/gen-tsv $SIZE $KEYS 1 | $spool partition --by 1 --compress $c --threads $THREADS --out $OUT -"
    else
        tool "spool --compress $c" "$spool partition --by 1 --compress $c --threads $THREADS --out $OUT $DATA"
        [ -z "${BEFORE:-}" ] || tool "spool before --compress $c" "$BEFORE partition --by 1 --compress $c --threads $THREADS --out $OUT $DATA"
    fi
done
if [ "$PEERS" = 1 ] && [ "$STDIN" != 1 ]; then
    if have qsv; then tool "qsv partition --limit 0" "qsv partition -d '\t' -n --limit 0 1 $OUT $DATA"; else echo "qsv: not installed"; fi
    if have xsv; then tool "xsv partition" "xsv partition -d '\t' -n 1 $OUT $DATA"; else echo "xsv: not installed"; fi
    if py_has duckdb; then
        for c in none zstd gzip; do
            tool "duckdb COPY ($c)" "python3 scripts/bench/partition_duckdb.py $DATA $OUT $c $THREADS"
        done
    else echo "duckdb: not installed"; fi
    if py_has polars; then
        for c in none zstd gzip; do
            tool "polars sink_csv ($c)" "env POLARS_MAX_THREADS=$THREADS python3 scripts/bench/partition_polars.py $DATA $OUT $c"
        done
    else echo "polars: not installed"; fi
    if have mlr; then
        tool "miller split" "mkdir -p $OUT && cd $OUT && mlr --tsv --implicit-tsv-header --headerless-tsv-output split -g 1 --prefix part ../$(basename "$DATA")"
    else echo "miller: not installed"; fi
    tool awk "mkdir -p $OUT && awk -F'\t' '{ print > (\"$OUT/\" \$1 \".tsv\") }' $DATA"
fi
rounds "$RUNS"
report
