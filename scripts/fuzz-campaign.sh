#!/usr/bin/env bash
# A fuzzing campaign: each target in turn for SECONDS (default 300), started
# from the committed corpus but writing new inputs into a scratch copy, so the
# run never adds files to fuzz/corpus. Prints one table row per target:
#
#   target  execs  exec/s(wall)  cpu_s  exec/s(cpu)  peak_rss_mb  crashes
#
# cpu_s is the user+system time the fuzzer process got (GNU time), so on a
# shared machine exec per CPU-second says more about a target than exec per
# wall-second. Crash, leak and timeout artifacts are kept under the scratch
# directory (printed at the end) for triage; add one to the corpus by hand
# when it becomes a regression seed.
#
# Usage: scripts/fuzz-campaign.sh [SECONDS] [TARGET...]   (default: all targets)
# Environment: FUZZ_SCRATCH (default: a new directory under /tmp),
#              FUZZ_RSS_MB (default 2048).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-300}"
[ $# -gt 0 ] && shift
source scripts/fuzz-env.sh
timer=/usr/bin/time
[ -x "$timer" ] || { echo "fuzz-campaign: needs GNU time at $timer" >&2; exit 1; }

cd fuzz
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(cargo "${toolchain[@]}" fuzz list); fi
scratch="${FUZZ_SCRATCH:-$(mktemp -d /tmp/spool-fuzz-campaign.XXXXXX)}"
mkdir -p "$scratch"
table="$scratch/table.tsv"

# Build every target first, so no target's time goes to compiling.
for target in "${targets[@]}"; do
    cargo "${toolchain[@]}" fuzz build "$target" >&2
done
bin_dir="target/x86_64-unknown-linux-gnu/release"

echo "# fuzz-campaign: ${secs}s per target, $(nproc) CPUs, started $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$table"
printf 'target\texecs\texec/s(wall)\tcpu_s\texec/s(cpu)\tpeak_rss_mb\tcrashes\tload_after\n' | tee -a "$table"
for target in "${targets[@]}"; do
    work="$scratch/$target"
    mkdir -p "$work/corpus" "$work/artifacts"
    if [ -d "corpus/$target" ]; then cp -a "corpus/$target/." "$work/corpus/"; fi
    start=$(date +%s.%N)
    status=0
    "$timer" -f '%U %S %M' -o "$work/time" \
        "$bin_dir/$target" "$work/corpus" \
        -max_total_time="$secs" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
        >"$work/log" 2>&1 || status=$?
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
    [ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log" | tail -1)
    [ -n "$execs" ] || execs=$(grep -o '#[0-9]*' "$work/log" | tail -1 | tr -d '#')
    read -r user sys rss_kb <"$work/time" || true
    cpu=$(echo "$user + $sys" | bc)
    crashes=$(find "$work/artifacts" -type f | wc -l)
    [ "$status" -eq 0 ] || crashes="$crashes (exit $status)"
    printf '%s\t%s\t%.0f\t%.1f\t%.0f\t%d\t%s\t%s\n' "$target" "${execs:-0}" \
        "$(echo "${execs:-0} / $wall" | bc -l)" "$cpu" \
        "$(echo "${execs:-0} / ($cpu + 0.001)" | bc -l)" "$((rss_kb / 1024))" \
        "$crashes" "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$table"
done
echo "# finished $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); logs, artifacts and the table in $scratch" | tee -a "$table"
