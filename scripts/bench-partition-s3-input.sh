#!/usr/bin/env bash
# `spool partition 's3://…/*.csv' --format parquet --out s3://…` beside
# PyArrow (dataset on S3FileSystem → write_dataset) and Polars (scan_csv on
# an S3 glob → sink_parquet with PartitionBy): CSV objects in one bucket
# of the loopback S3 server into a hive-partitioned Parquet dataset (zstd)
# in another, nothing on local disk but each tool's own staging.
#
#   scripts/bench-partition-s3-input.sh [SIZE] [OBJECTS] [RUNS]   (defaults: 1G 100 3)
#
# Generates OBJECTS CSV objects of SIZE/OBJECTS each (gen-csv, seeds 1…,
# KEYS keys in column 1, no header, some quoted fields with line breaks),
# uploads them once to bucket `raw` (scripts/s3-server.sh, its own port),
# then runs the tools in turn (ABC ABC …), each into a new prefix of
# bucket `out`. Each dataset is checked before it is counted: its rows
# (read back from S3 by PyArrow) must be the objects' rows, then it is
# deleted. Prints each run's wall time and peak RSS (/usr/bin/time), then
# per tool the median wall time with min–max and the median peak RSS.
# Environment: KEYS (default 1000), THREADS (default 2), MEMORY (spool's
# --memory, default 256M), SPOOL (default target/release/spool), WORK
# (scratch, default target/bench-partition-s3-input), SPOOL_S3_PORT
# (default 19500), LOCK (a file each timed run holds with flock, on a
# machine shared with other work), ONLY (a regex of the tools to run),
# LIMIT (seconds a run may take before it is stopped and counted as
# failed, default 600), BEFORE (another spool binary, e.g. a previous
# build, run as "spool-before" beside this one), CAP (a peer's address
# space in GiB, `ulimit -v`, default none: a peer past it fails).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1G}
OBJECTS=${2:-100}
RUNS=${3:-3}
THREADS=${THREADS:-2}
MEMORY=${MEMORY:-256M}
KEYS=${KEYS:-1000}
WORK=${WORK:-target/bench-partition-s3-input}
SPOOL=${SPOOL:-target/release/spool}
cargo build --release -q -p spool-cli -p spool-bench --bins
mkdir -p "$WORK/objects"
bytes=$(numfmt --from=iec "$SIZE")
each=$((bytes / OBJECTS))
for i in $(seq 1 "$OBJECTS"); do
    f=$(printf '%s/objects/part-%04d.csv' "$WORK" "$i")
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -ge "$each" ] || target/release/gen-csv "$each" "$i" "$f" "$KEYS"
done
export TMPDIR="$PWD/$WORK/tmp"
mkdir -p "$TMPDIR"
export SPOOL_S3_PORT=${SPOOL_S3_PORT:-19500}
eval "$(scripts/s3-server.sh start)"
trap 'scripts/s3-server.sh stop' EXIT
PY="$SPOOL_S3_PYTHON"
"$PY" -m pip install -q polars pyarrow boto3
# The objects, uploaded once; the rows they hold (the answer every tool's
# dataset is checked against).
want=$("$PY" - "$WORK/objects" <<'PY'
import os, sys, boto3
import pyarrow.csv as pacsv
s3 = boto3.client("s3")
for bucket in ("raw", "out"):
    s3.create_bucket(Bucket=bucket)
rows = 0
for name in sorted(os.listdir(sys.argv[1])):
    path = os.path.join(sys.argv[1], name)
    s3.upload_file(path, "raw", f"csv/{name}")
    rows += pacsv.read_csv(path, read_options=pacsv.ReadOptions(autogenerate_column_names=True),
                           parse_options=pacsv.ParseOptions(newlines_in_values=True)).num_rows
print(rows)
PY
)
export POLARS_MAX_THREADS=$THREADS
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; $OBJECTS objects of $((each >> 20)) MiB ($SIZE), $want rows, $KEYS keys; threads $THREADS; spool --memory $MEMORY; $SPOOL_S3_SERVER_NAME"

run() { # name, prefix, command...
    local name=$1 prefix=$2 stats
    shift 2
    [[ "$name" =~ ${ONLY:-.} ]] || return 0
    local status=0
    ${LOCK:+flock "$LOCK"} /usr/bin/time -f "%e %M" -o "$WORK/time.txt" timeout "${LIMIT:-600}" "$@" >/dev/null 2>"$WORK/stderr.txt" || status=$?
    if [ "$status" = 0 ]; then
        stats=$(tail -1 "$WORK/time.txt")
    else
        # Why it failed, and when: 124 is the LIMIT (timeout's status).
        local why="exit-$status"
        [ "$status" != 124 ] || why="limit"
        stats="failed $why $(tail -1 "$WORK/time.txt")"
        tail -3 "$WORK/stderr.txt" >&2
    fi
    "$PY" - "$prefix" "$name" "$want" "$stats" <<'PY'
import os, sys, boto3
import pyarrow.dataset as ds, pyarrow.fs as pafs
prefix, name, want, stats = sys.argv[1:]
bucket = boto3.resource("s3").Bucket("out")
if not stats.startswith("failed"):
    fs = pafs.S3FileSystem(endpoint_override=os.environ["AWS_ENDPOINT_URL"].split("://")[1],
                           scheme="http", region=os.environ.get("AWS_REGION", "us-east-1"))
    got = ds.dataset(f"out/{prefix}", filesystem=fs, format="parquet", partitioning="hive").count_rows()
    assert got == int(want), f"{name}: {got} rows written, {want} in the objects"
keys = [o.key for o in bucket.objects.filter(Prefix=prefix + "/")]
for i in range(0, len(keys), 1000):
    bucket.delete_objects(Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]]})
PY
    echo "$name $stats" | tee -a "$WORK/runs.txt"
}
: >"$WORK/runs.txt"
# A peer, within CAP GiB of address space if set.
export CAP=${CAP:-}
capped=(bash -c '[ -z "$CAP" ] || ulimit -v $((CAP << 20)); exec "$@"' capped)
spool_args=(partition --by 1 --delimiter comma --quote '"' --format parquet --threads "$THREADS" --memory "$MEMORY")
for i in $(seq 1 "$RUNS"); do
    run spool "s-$i" "$SPOOL" "${spool_args[@]}" -o "s3://out/s-$i/" 's3://raw/csv/*.csv'
    [ -z "${BEFORE:-}" ] || run spool-before "b-$i" "$BEFORE" "${spool_args[@]}" -o "s3://out/b-$i/" 's3://raw/csv/*.csv'
    run pyarrow "a-$i" "${capped[@]}" "$PY" scripts/bench/partition_s3_input_peers.py pyarrow raw csv out "a-$i"
    run polars "p-$i" "${capped[@]}" "$PY" scripts/bench/partition_s3_input_peers.py polars raw csv out "p-$i"
done
echo "# tool: median wall s (min-max), median peak RSS MiB, runs"
"$PY" - "$WORK/runs.txt" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, *fields = line.split()
    runs[name].append(fields)
for name, rows in runs.items():
    walls = [float(r[0]) for r in rows if r[0] != "failed"]
    rss = statistics.median([int(r[-1]) for r in rows if r[-1].isdigit()] or [0]) / 1024
    if walls:
        print(f"{name:8} {statistics.median(walls):7.2f} ({min(walls):.2f}-{max(walls):.2f})  {rss:6.0f} MiB  {len(walls)}/{len(rows)} runs")
    else:
        print(f"{name:8} failed ({len(rows)} runs)")
    for r in rows:
        if r[0] == "failed":
            after = f" after {r[2]} s at {int(r[3]) / 1024:.0f} MiB" if len(r) == 4 else ""
            print(f"{'':8} a run failed ({r[1]}){after}")
PY
