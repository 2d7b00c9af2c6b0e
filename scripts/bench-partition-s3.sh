#!/usr/bin/env bash
# `spool partition --out s3://…` beside Polars and PyArrow writing the same
# partitioned dataset to the same loopback S3 server, in the same run.
#
#   scripts/bench-partition-s3.sh [SIZE] [RUNS]        (defaults: 1G 3)
#
# Generates gen-csv's deterministic CSV (1000 keys in column 1), starts
# the S3 test server (scripts/s3-server.sh, on its own port), and writes
# the dataset RUNS times per tool, tools in turn (ABAB…): spool Parquet
# (zstd) and zstd text, Polars' sink_parquet / sink_csv with PartitionBy
# and storage_options, PyArrow's write_dataset on S3FileSystem. Each run
# writes into a new prefix, deleted after it. Prints each run's wall time
# and peak RSS (/usr/bin/time), then medians with min-max.
# Environment: THREADS (default 2), MEMORY (spool's --memory, default
# 256M), WORK (scratch folder, default target/bench-partition-s3), ONLY
# (an extended regex: run only the tools whose name matches), LIMIT
# (seconds a run may take before it is stopped and reported as such,
# default 600).
# Run it under `benchlock`.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1G}
RUNS=${2:-3}
THREADS=${THREADS:-2}
MEMORY=${MEMORY:-256M}
WORK=${WORK:-target/bench-partition-s3}
cargo build --release -q -p spool-cli -p spool-bench --bins
mkdir -p "$WORK"
DATA="$WORK/data-$SIZE.csv"
[ -f "$DATA" ] || target/release/gen-csv "$SIZE" 1 "$DATA"
export SPOOL_S3_PORT=19100
eval "$(scripts/s3-server.sh start)"
trap 'scripts/s3-server.sh stop' EXIT
PY="$SPOOL_S3_PYTHON"
"$PY" -m pip install -q polars pyarrow boto3
"$PY" -c "import boto3; boto3.client('s3').create_bucket(Bucket='bench')"
export POLARS_MAX_THREADS=$THREADS
cat "$DATA" >/dev/null
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; $DATA ($(du -m "$DATA" | cut -f1) MB), 1000 keys; threads $THREADS; spool --memory $MEMORY"

spool_args=(partition --by 1 --delimiter comma --quote '"' --threads "$THREADS" --memory "$MEMORY")
run() { # name, prefix, command...
    local name=$1 prefix=$2
    shift 2
    [[ "$name" =~ ${ONLY:-.} ]] || return 0
    local stats
    if /usr/bin/time -f "%e %M" -o "$WORK/time.txt" timeout "${LIMIT:-600}" "$@" >/dev/null 2>"$WORK/stderr.txt"; then
        stats=$(tail -1 "$WORK/time.txt")
    else
        stats="failed-or-stopped $(tail -1 "$WORK/time.txt" | cut -d' ' -f2)"
        tail -3 "$WORK/stderr.txt" >&2
    fi
    local objects
    objects=$("$PY" - "$prefix" <<'PY'
import sys, boto3
s3 = boto3.resource("s3").Bucket("bench")
keys = [o.key for o in s3.objects.filter(Prefix=sys.argv[1] + "/")]
print(len(keys))
for i in range(0, len(keys), 1000):
    s3.delete_objects(Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]]})
PY
)
    echo "$name $stats $objects" | tee -a "$WORK/runs.txt"
}
: >"$WORK/runs.txt"
for i in $(seq 1 "$RUNS"); do
    run spool-parquet "s-pq-$i" target/release/spool "${spool_args[@]}" --format parquet -o "s3://bench/s-pq-$i/" "$DATA"
    run polars-parquet "p-pq-$i" "$PY" scripts/bench/partition_s3_peers.py polars-parquet "$DATA" bench "p-pq-$i"
    run pyarrow-parquet "a-pq-$i" "$PY" scripts/bench/partition_s3_peers.py pyarrow-parquet "$DATA" bench "a-pq-$i"
    run spool-zstd-text "s-zs-$i" target/release/spool "${spool_args[@]}" --compress zstd -o "s3://bench/s-zs-$i/" "$DATA"
    run polars-zstd-csv "p-zs-$i" "$PY" scripts/bench/partition_s3_peers.py polars-csv-zstd "$DATA" bench "p-zs-$i"
done
echo "# tool: median wall s (min-max), median peak RSS MiB, objects"
"$PY" - "$WORK/runs.txt" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, wall, rss, objects = line.split()
    runs[name].append((wall, rss, objects))
for name, rows in sorted(runs.items()):
    walls = [float(w) for w, _, _ in rows if w.replace(".", "").isdigit()]
    rss = statistics.median(int(r) for _, r, _ in rows) / 1024
    if walls:
        print(f"{name:16} {statistics.median(walls):7.2f} ({min(walls):.2f}-{max(walls):.2f})  {rss:7.0f} MiB  {rows[-1][2]} objects")
    else:
        print(f"{name:16} failed or stopped")
PY
