#!/usr/bin/env bash
# Re-partitioning a Parquet dataset into Parquet: `spool partition
# --format parquet` beside DuckDB, Polars and PyArrow, in the same run, on
# the same input.
#
#   scripts/bench-partition-parquet-input.sh [ROWS] [KEYS] [RUNS]   (defaults: 3000000 1000 3)
#   INPUT=ndjson scripts/bench-partition-parquet-input.sh ...
#
# With INPUT=ndjson the input is the same rows as JSON lines (13 of the
# columns, 10 .ndjson files; spool (--schema) and DuckDB are given their
# types, Polars infers them): NDJSON into Parquet. PyArrow's JSON dataset
# is left out: it did not finish 51 MB of it in 300 s.
#
# Generates (once) a deterministic dataset of 10 Parquet files, ROWS rows
# in all, 20 columns of mixed types, a string key of KEYS values
# (scripts/bench/partition_parquet_input.py gen), then writes it as a
# Hive-partitioned Parquet dataset by the key, zstd, with:
#   spool     --format parquet --by key --memory MEMORY --threads THREADS
#   duckdb    COPY (FROM read_parquet(...)) TO ... (PARTITION_BY (key))
#   polars    scan_parquet(...).sink_parquet(PartitionBy(...))
#   pyarrow   dataset(...) -> write_dataset(partitioning=hive)
# RUNS rounds (scripts/bench/driver.sh: every tool once a round, the
# order turned by one each round). Every run is checked: DuckDB reads the
# output back with hive partitioning and must find the input's rows, keys,
# sum of i64 and total length of text, or the run is reported WRONG.
# Prints per tool the median wall time [min-max], CPU time, peak RSS and
# the Parquet files written.
# Environment: WORK (scratch, default target/bench-partition-parquet-input),
# MEMORY (spool's --memory, default 256M), THREADS (default 2), SPOOL (the
# binary; default: this checkout's, built first), SPOOL_BASE (another spool
# binary, e.g. an earlier commit's, run as the tool spool-base in the same
# rounds), TOOLS (the tools to run, default "spool duckdb polars pyarrow",
# without pyarrow for INPUT=ndjson,
# plus spool-base if SPOOL_BASE is set; duckdb-copy is DuckDB writing the
# same rows whole into one file, the floor its partitioned run stands on), PY (a python with duckdb, polars
# and pyarrow; default: a venv in WORK), and the driver's ONLY, LOCK,
# TIMEOUT, BUDGET.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench/driver.sh
ROWS=${1:-3000000}
KEYS=${2:-1000}
RUNS=${3:-3}
MEMORY=${MEMORY:-256M}
THREADS=${THREADS:-2}
WORK=${WORK:-target/bench-partition-parquet-input}

spool_binary
mkdir -p "$WORK"
peer_python "duckdb==2.0.1" "polars==2.1.0" "pyarrow==26.0.1"
PEERS=scripts/bench/partition_parquet_input.py
DATA="$WORK/data-$ROWS-$KEYS"
[ -d "$DATA" ] || "$PY" "$PEERS" gen "$DATA" "$ROWS" "$KEYS"
schema=
if [ "${INPUT:-parquet}" = ndjson ]; then
    [ -d "$DATA-ndjson" ] || "$PY" "$PEERS" gen-ndjson "$DATA-ndjson" "$DATA"
    DATA="$DATA-ndjson"
    schema="--schema $("$PY" "$PEERS" schema)"
fi
EXPECTED=$("$PY" "$PEERS" check "$DATA")
OUT="$WORK/out"
cat "$DATA"/* >/dev/null # warm the page cache
machine_line
echo "# input: $ROWS rows, $KEYS keys, $(du -sh "$DATA" | cut -f1) in 10 files; threads $THREADS; memory $MEMORY; expected: $EXPECTED"

prepare() {
    rm -rf "$OUT" "$WORK/duckdb-tmp"
    sync
}
check() {
    local got
    got=$("$PY" "$PEERS" check "$OUT")
    [ "$got" = "$EXPECTED" ] || { echo "$got"; return 1; }
}
note() { echo "$(find "$OUT" -name '*.parquet' | wc -l) files"; }

peers="duckdb polars pyarrow"
[ "${INPUT:-parquet}" != ndjson ] || peers="duckdb polars" # PyArrow: see above
read -r -a names <<<"${TOOLS:-spool $peers}"
[ -z "${SPOOL_BASE:-}" ] || [ -n "${TOOLS:-}" ] || names+=(spool-base)
spool_args="partition -q --format parquet $schema --by key --memory $MEMORY --threads $THREADS --out $OUT $DATA"
for name in "${names[@]}"; do
    case $name in
    spool) tool spool "$SPOOL $spool_args" ;;
    spool-base) tool spool-base "$SPOOL_BASE $spool_args" ;;
    *) tool "$name" "$PY $PEERS $name $DATA $OUT $THREADS" ;;
    esac
done

rounds "$RUNS"
report
rm -rf "$WORK/duckdb-tmp"
