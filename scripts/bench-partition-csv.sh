#!/usr/bin/env bash
# `spool partition` on RFC 4180 CSV beside its peers, in the same run.
#
#   scripts/bench-partition-csv.sh [SIZE] [RUNS]        (defaults: 1G 3)
#
# Generates a deterministic CSV (gen-csv: five fields, 1000 keys in
# column 1, a third of all fields quoted; quoted text holds commas, line
# breaks and doubled quotes), then partitions it by column 1 into 1000
# files with spool (plain, zstd-3), xsv, qsv, DuckDB's COPY ... PARTITION_BY
# and Polars' sink_csv, RUNS times each in turn. Prints the median wall
# time, CPU time (user + system) and peak RSS of each, with min-max of the
# wall times, and checks that every tool wrote 1000 files.
# Peers that are not installed are reported as such:
#   pip install duckdb polars;  cargo install xsv --locked
# Environment: WORK (scratch folder, default target/bench-partition; put
# it on a tmpfs such as /dev/shm to take the disk out of the comparison),
# THREADS (default 2), MEMORY (spool's --memory, default 128M), ONLY (an
# extended regex: run only the tools whose name matches), BEFORE (another
# spool binary, e.g. a previous build, run as "spool before" beside this
# one).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-1G}
RUNS=${2:-3}
THREADS=${THREADS:-2}
MEMORY=${MEMORY:-128M}
WORK=${WORK:-target/bench-partition}
PATH="$PATH:$HOME/.cargo/bin"

cargo build --release -q -p spool-cli -p spool-bench --bins
mkdir -p "$WORK"
DATA="$WORK/data-$SIZE.csv"
[ -f "$DATA" ] || target/release/gen-csv "$SIZE" 1 "$DATA"
OUT="$WORK/out"
cat "$DATA" >/dev/null # warm the page cache
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; $DATA ($(du -m "$DATA" | cut -f1) MB); threads $THREADS; median of $RUNS"

have() { command -v "$1" >/dev/null 2>&1; }
py_has() { python3 -c "import $1" >/dev/null 2>&1; }

# Each tool: NAME<TAB>COMMAND (run with sh -c, $OUT fresh).
tools=()
tools+=("spool (plain)	target/release/spool partition -q -d comma --by 1 --threads $THREADS --memory $MEMORY --out $OUT $DATA")
tools+=("spool --compress zstd	target/release/spool partition -q -d comma --by 1 --compress zstd --threads $THREADS --memory $MEMORY --out $OUT $DATA")
if [ -n "${BEFORE:-}" ]; then
    tools+=("spool before (plain)	$BEFORE partition -q -d comma --by 1 --threads $THREADS --memory $MEMORY --out $OUT $DATA")
    tools+=("spool before --compress zstd	$BEFORE partition -q -d comma --by 1 --compress zstd --threads $THREADS --memory $MEMORY --out $OUT $DATA")
fi
if have xsv; then tools+=("xsv partition	xsv partition -n 1 $OUT $DATA"); else echo "xsv: not installed"; fi
# qsv, or qsvlite (qsv built with `--no-default-features --features lite`).
QSV=$(command -v qsv || command -v qsvlite || true)
if [ -n "$QSV" ]; then tools+=("$(basename "$QSV") partition	$QSV partition -n --limit 0 1 $OUT $DATA"); else echo "qsv: not installed"; fi
if py_has duckdb; then
    tools+=("duckdb COPY (plain)	python3 scripts/bench/partition_duckdb.py $DATA $OUT none $THREADS csv")
    tools+=("duckdb COPY (zstd)	python3 scripts/bench/partition_duckdb.py $DATA $OUT zstd $THREADS csv")
else echo "duckdb: not installed"; fi
if py_has polars; then
    tools+=("polars sink_csv (plain)	env POLARS_MAX_THREADS=$THREADS python3 scripts/bench/partition_polars.py $DATA $OUT none csv")
    tools+=("polars sink_csv (zstd)	env POLARS_MAX_THREADS=$THREADS python3 scripts/bench/partition_polars.py $DATA $OUT zstd csv")
else echo "polars: not installed"; fi

if [ -n "${ONLY:-}" ]; then
    kept=()
    for t in "${tools[@]}"; do
        if [[ ${t%%	*} =~ $ONLY ]]; then kept+=("$t"); fi
    done
    tools=("${kept[@]}")
fi

rm -f "$WORK/times.txt"
# Rounds: every tool once per round, so a busy moment hits all of them.
for ((round = 1; round <= RUNS; round++)); do
    for i in "${!tools[@]}"; do
        cmd=${tools[$i]#*	}
        rm -rf "$OUT"
        if /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" sh -c "$cmd" >/dev/null 2>"$WORK/stderr.txt"; then
            files=$(find "$OUT" -type f ! -name '_partitions.tsv' | wc -l)
            [ "$files" = 1000 ] || { echo "${tools[$i]%%	*}: $files files, not 1000" >&2; exit 1; }
            echo "$i $(cat "$WORK/time.txt")" >>"$WORK/times.txt"
        else
            echo "$i failed" >>"$WORK/times.txt"
            tail -n 2 "$WORK/stderr.txt" >&2
        fi
    done
done
rm -rf "$OUT"

echo "| tool | wall s (median, min-max) | CPU s | peak RSS MB |"
echo "|---|---:|---:|---:|"
for i in "${!tools[@]}"; do
    name=${tools[$i]%%	*}
    awk -v i="$i" -v name="$name" '
        $1 == i && $2 == "failed" { failed = 1 }
        $1 == i && $2 != "failed" { n++; wall[n] = $2; cpu[n] = $3 + $4; rss[n] = $5 }
        function median(a, n,   j, k, t) {
            for (j = 1; j <= n; j++) for (k = j + 1; k <= n; k++) if (a[k] < a[j]) { t = a[j]; a[j] = a[k]; a[k] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        END {
            if (failed || n == 0) { printf "| %s | failed | | |\n", name; exit }
            lo = hi = wall[1]; for (j = 2; j <= n; j++) { if (wall[j] < lo) lo = wall[j]; if (wall[j] > hi) hi = wall[j] }
            printf "| %s | %.2f (%.2f-%.2f) | %.2f | %.0f |\n", name, median(wall, n), lo, hi, median(cpu, n), median(rss, n) / 1024
        }' "$WORK/times.txt"
done
rm -f "$WORK/times.txt"
