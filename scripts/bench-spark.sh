#!/usr/bin/env bash
# Spark's own partitioned write beside Spark tasks calling spool.partition.
#
#   scripts/bench-spark.sh [SIZE] [KEYS] [RUNS] [METHODS]
#                          (defaults: 1G 1000 3 "spark spool")
#
# Generates SIZE of deterministic CSV (gen-csv: five fields, KEYS keys in
# column 1, a third of all fields quoted, with commas, line breaks and
# doubled quotes inside) as 16 files, then, RUNS times in turn, partitions
# them by column 1 in local[2] with each method (scripts/bench/partition_spark.py):
#   spark  spark.read.csv(multiLine).write.partitionBy("_c0").csv(OUT)
#   spool  TASKS (default 2) Spark tasks, each spool.partition on its files
#          with run_id=its partition, append=True, threads=1
# Prints each run's wall time of the write, peak RSS of the driver, the
# JVM and the Python workers together, files written, and the error if the
# job failed; then the median wall time and RSS of each method.
# Installs PySpark into target/bench-spark/venv (Java 17+ is needed).
# Environment: WORK (scratch, default target/bench-spark), TASKS,
# SPOOL_MEMORY (each task's memory, default 256M), SPARK_DRIVER_MEMORY (2g),
# RUN_LIMIT (seconds after which a run's job is cancelled and reported as
# stopped; default none).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1G}
KEYS=${2:-1000}
RUNS=${3:-3}
METHODS=${4:-spark spool}
WORK=${WORK:-target/bench-spark}
PATH="$PATH:$HOME/.cargo/bin"

cargo build --release -q -p spool-bench --bin gen-csv
mkdir -p "$WORK"
venv="$WORK/venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c "import pyspark" 2>/dev/null || "$venv/bin/python" -m pip install -q "pyspark==4.0.1"
"$venv/bin/python" -m pip install -q ./bindings/python
export PYSPARK_PYTHON="$PWD/$venv/bin/python" PYSPARK_DRIVER_PYTHON="$PWD/$venv/bin/python"

# 16 inputs (Spark reads each multiLine file in one task; spool's tasks
# share them out).
DATA="$WORK/data-$SIZE-$KEYS"
if [ ! -f "$DATA/.done" ]; then
    rm -rf "$DATA" && mkdir -p "$DATA"
    bytes=$(python3 -c "import sys; s=sys.argv[1]; m={'K':1<<10,'M':1<<20,'G':1<<30}; print(int(float(s[:-1])*m[s[-1]]) if s[-1] in m else int(s))" "$SIZE")
    for i in $(seq -w 0 15); do
        target/release/gen-csv $((bytes / 16)) $((1000 + 10#$i * 100)) "$DATA/part-$i.csv" "$KEYS" 2>/dev/null
    done
    touch "$DATA/.done"
fi
cat "$DATA"/*.csv >/dev/null # warm the page cache
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; $SIZE of CSV in 16 files ($(du -cm "$DATA"/*.csv | tail -1 | cut -f1) MB), $KEYS keys; local[2]"

results="$WORK/results-$SIZE-$KEYS.jsonl"
: >"$results"
for ((round = 1; round <= RUNS; round++)); do
    for method in $METHODS; do
        out="$WORK/out"
        rm -rf "$out"
        "$venv/bin/python" scripts/bench/partition_spark.py "$method" "$out" "$DATA"/*.csv 2>"$WORK/stderr.txt" |
            tail -n1 | tee -a "$results"
    done
done
rm -rf "$WORK/out"
python3 - "$results" <<'EOF'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
for method in dict.fromkeys(r["method"] for r in runs):
    mine = [r for r in runs if r["method"] == method]
    ok = [r for r in mine if not r["error"]]
    walls = sorted(r["wall"] for r in ok)
    line = f"{method:6} {len(ok)}/{len(mine)} ok"
    if ok:
        line += (f"  wall median {statistics.median(walls):.1f}s (min {walls[0]:.1f}, max {walls[-1]:.1f})"
                 f"  peak RSS median {statistics.median(r['peak_rss_mb'] for r in ok):.0f} MB"
                 f"  files {ok[0]['files']}")
    for r in mine:
        if r["error"]:
            line += f"\n       failed: {r['error']}"
    print(line)
EOF
