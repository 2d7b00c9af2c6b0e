#!/usr/bin/env bash
# `spool partition --out s3://…` beside Polars and PyArrow writing the same
# partitioned dataset to the same loopback S3 server, in the same run.
#
#   scripts/bench-partition-s3.sh [SIZE] [RUNS]        (defaults: 1G 3)
#
# Generates gen-csv's deterministic CSV (KEYS keys in column 1), starts
# the S3 test server (scripts/s3-server.sh, on its own port), and writes
# the dataset RUNS times per tool, tools in turn (ABAB…): spool Parquet
# (zstd) and zstd text, Polars' sink_parquet / sink_csv with PartitionBy
# and storage_options, PyArrow's write_dataset on S3FileSystem. Each run
# writes into a new prefix, deleted after it. Prints each run's wall time
# and peak RSS (/usr/bin/time), the objects written, and for spool the
# peak of its local staging directory (sampled every 0.1 s) and the
# summary's seconds from the last byte read to the dataset visible; then
# medians with min-max. Each dataset is checked against the input first
# (Parquet: its records; spool's zstd text: its bytes).
# Environment: KEYS (default 1000), THREADS (default 2), MEMORY (spool's
# --memory, default 256M), SPOOL (the spool binary, default
# target/release/spool), WORK (scratch folder, default target/bench-partition-s3), ONLY
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
KEYS=${KEYS:-1000}
SPOOL=${SPOOL:-target/release/spool}
cargo build --release -q -p spool-cli -p spool-bench --bins
mkdir -p "$WORK"
DATA="$WORK/data-$SIZE-$KEYS.csv"
[ -f "$DATA" ] || target/release/gen-csv "$SIZE" 1 "$DATA" "$KEYS"
# spool's local staging directory, sampled while it runs.
export TMPDIR="$PWD/$WORK/tmp"
mkdir -p "$TMPDIR"
export SPOOL_S3_PORT=19100
eval "$(scripts/s3-server.sh start)"
trap 'scripts/s3-server.sh stop' EXIT
PY="$SPOOL_S3_PYTHON"
"$PY" -m pip install -q polars pyarrow boto3 zstandard
"$PY" -c "import boto3; boto3.client('s3').create_bucket(Bucket='bench')"
export POLARS_MAX_THREADS=$THREADS
cat "$DATA" >/dev/null
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; $DATA ($(du -m "$DATA" | cut -f1) MB), $KEYS keys; threads $THREADS; spool --memory $MEMORY; $SPOOL"

spool_args=(partition --by 1 --delimiter comma --quote '"' --threads "$THREADS" --memory "$MEMORY")
run() { # name, prefix, command...
    local name=$1 prefix=$2
    shift 2
    [[ "$name" =~ ${ONLY:-.} ]] || return 0
    local stats sampler
    echo 0 >"$WORK/staged.txt"
    ( peak=0; while :; do
        kib=$(du -sk "$TMPDIR" 2>/dev/null | cut -f1) || true
        if [ "${kib:-0}" -gt "$peak" ]; then peak=$kib; echo "$peak" >"$WORK/staged.txt"; fi
        sleep 0.1
      done ) &
    sampler=$!
    if /usr/bin/time -f "%e %M" -o "$WORK/time.txt" timeout "${LIMIT:-600}" "$@" >/dev/null 2>"$WORK/stderr.txt"; then
        stats=$(tail -1 "$WORK/time.txt")
    else
        stats="failed-or-stopped $(tail -1 "$WORK/time.txt" | cut -d' ' -f2)"
        tail -3 "$WORK/stderr.txt" >&2
    fi
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    local staged commit
    staged=$(( $(cat "$WORK/staged.txt") / 1024 ))
    commit=$(grep -o '[0-9.]*s from the last byte read' "$WORK/stderr.txt" | cut -ds -f1) || true
    local objects
    objects=$("$PY" - "$prefix" "$name" "$DATA" "$stats" <<'PY'
import os, sys, boto3
prefix, name, data, stats = sys.argv[1:]
s3 = boto3.resource("s3").Bucket("bench")
keys = [o.key for o in s3.objects.filter(Prefix=prefix + "/")]
# The answer is checked (outside the timed run) before it is counted:
# every Parquet dataset holds the input's records; spool's zstd text
# holds the input's bytes (records are written as read).
if not stats.startswith("failed"):
    if name.endswith("parquet"):
        import pyarrow.csv as pacsv, pyarrow.dataset as ds, pyarrow.fs as pafs
        want = pacsv.read_csv(data, read_options=pacsv.ReadOptions(autogenerate_column_names=True),
                             parse_options=pacsv.ParseOptions(newlines_in_values=True)).num_rows
        fs = pafs.S3FileSystem(endpoint_override=os.environ["AWS_ENDPOINT_URL"].split("://")[1],
                               scheme="http", region=os.environ.get("AWS_REGION", "us-east-1"))
        got = ds.dataset(f"bench/{prefix}", filesystem=fs, format="parquet", partitioning="hive").count_rows()
        assert got == want, f"{name}: {got} rows in S3, {want} in the input"
    elif name == "spool-zstd-text":
        import zstandard
        # One frame per block: read them all (a decompressobj stops at the
        # end of the first frame by default).
        got = sum(len(zstandard.ZstdDecompressor().decompressobj(read_across_frames=True).decompress(
            s3.Object(k).get()["Body"].read())) for k in keys if k.endswith(".zst"))
        want = os.path.getsize(data)
        assert got == want, f"{name}: {got} bytes in S3, {want} in the input"
print(len(keys))
for i in range(0, len(keys), 1000):
    s3.delete_objects(Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]]})
PY
)
    echo "$name $stats $objects $staged ${commit:--}" | tee -a "$WORK/runs.txt"
}
: >"$WORK/runs.txt"
for i in $(seq 1 "$RUNS"); do
    run spool-parquet "s-pq-$i" "$SPOOL" "${spool_args[@]}" --format parquet -o "s3://bench/s-pq-$i/" "$DATA"
    run polars-parquet "p-pq-$i" "$PY" scripts/bench/partition_s3_peers.py polars-parquet "$DATA" bench "p-pq-$i"
    run pyarrow-parquet "a-pq-$i" "$PY" scripts/bench/partition_s3_peers.py pyarrow-parquet "$DATA" bench "a-pq-$i"
    run spool-zstd-text "s-zs-$i" "$SPOOL" "${spool_args[@]}" --compress zstd -o "s3://bench/s-zs-$i/" "$DATA"
    run polars-zstd-csv "p-zs-$i" "$PY" scripts/bench/partition_s3_peers.py polars-csv-zstd "$DATA" bench "p-zs-$i"
done
echo "# tool: median wall s (min-max), median peak RSS MiB, objects, median peak local staging MiB, median s from last byte read to visible (min-max)"
"$PY" - "$WORK/runs.txt" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    fields = line.split()
    if fields[1] == "failed-or-stopped":
        fields = [fields[0], "failed", *fields[2:]]
    runs[fields[0]].append(fields[1:])
for name, rows in sorted(runs.items()):
    walls = [float(r[0]) for r in rows if r[0] != "failed"]
    rss = statistics.median(int(r[1]) for r in rows) / 1024
    staged = statistics.median(int(r[3]) for r in rows)
    commits = [float(r[4]) for r in rows if r[4] != "-"]
    commit = f"{statistics.median(commits):.2f} ({min(commits):.2f}-{max(commits):.2f})" if commits else "-"
    if walls:
        print(f"{name:16} {statistics.median(walls):7.2f} ({min(walls):.2f}-{max(walls):.2f})  {rss:7.0f} MiB  {rows[-1][2]} objects  staged {staged} MiB  commit {commit}")
    else:
        print(f"{name:16} failed or stopped ({len(rows)} runs), last with {rows[-1][2]} objects")
PY
