#!/usr/bin/env bash
# What the S3 commit costs, between two spool binaries in the same run:
# the seconds from the last byte read to the dataset visible (the
# summary's figure: the rest of the uploads, the commit, and since the
# check before the manifest, one listing of the prefix), per key count.
#
#   scripts/bench-s3-commit.sh OLD_SPOOL [NEW_SPOOL] [RUNS]   (defaults: target/release/spool, 3)
#
# For KEYS (default "1000 10000") keys: a 64 MB CSV of gen-csv's; RUNS
# pairs of runs into the loopback S3 server (SPOOL_S3_SERVER: moto,
# seaweedfs or versitygw; scripts/s3-server.sh on port 19200), OLD and NEW
# in turn (ABAB…), each into a new prefix; prints each run's figure and
# wall time, then per binary the median with min-max. Run it alone on the
# machine (under `benchlock` where there is one).
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$1
NEW=${2:-target/release/spool}
RUNS=${3:-3}
WORK=${WORK:-target/bench-s3-commit}
cargo build --release -q -p spool-bench --bin gen-csv
mkdir -p "$WORK"
export SPOOL_S3_PORT=19200
eval "$(scripts/s3-server.sh start)"
trap 'scripts/s3-server.sh stop' EXIT
"$SPOOL_S3_PYTHON" -c "import boto3; boto3.client('s3').create_bucket(Bucket='commit')"
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; $SPOOL_S3_SERVER_NAME; OLD $OLD, NEW $NEW"
for keys in ${KEYS:-1000 10000}; do
    data="$WORK/data-$keys.csv"
    [ -f "$data" ] || target/release/gen-csv 64M 1 "$data" "$keys"
    for n in $(seq 1 "$RUNS"); do
        for which in OLD NEW; do
            bin=${!which}
            start=$(date +%s.%N)
            said=$("$bin" partition --by 1 --delimiter comma --quote '"' --memory 256M -q \
                -o "s3://commit/$keys-$which-$n/" "$data" 2>&1)
            wall=$(echo "$(date +%s.%N) - $start" | bc)
            visible=$(echo "$said" | sed -n 's/.*; \([0-9.]*\)s from the last byte read.*/\1/p')
            printf '%s keys=%s run=%s visible_s=%s wall_s=%.2f\n' "$which" "$keys" "$n" "$visible" "$wall"
        done
    done
done | tee "$WORK/runs.txt"
python3 - "$WORK/runs.txt" <<'PY'
import collections, statistics, sys
seen = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = dict(kv.split("=") for kv in line.split()[1:])
    seen[(f["keys"], line.split()[0])].append((float(f["visible_s"]), float(f["wall_s"])))
for (keys, which), runs in sorted(seen.items()):
    v = [r[0] for r in runs]
    w = [r[1] for r in runs]
    print(f"{keys} keys {which}: to visible {statistics.median(v):.2f} s [{min(v):.2f}-{max(v):.2f}], "
          f"wall {statistics.median(w):.2f} s [{min(w):.2f}-{max(w):.2f}]")
PY
