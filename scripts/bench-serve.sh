#!/usr/bin/env bash
# spool pwned serve under wrk: requests/s, p50/p99 latency and the server's
# memory besides the page cache (RssAnon, sampled every 0.2 s; RssFile is
# the index's mapped pages), for GET /check/sha1/{hash} (random hashes,
# half present) and GET /range/{prefix} (random prefixes), on loopback with
# keep-alive, the client on the same machine. Every answer of a short
# checking run is verified first (counts exact; range lines well formed and
# LINES/2^20 per range on average); then RUNS timed runs per endpoint,
# alternating; then ApacheBench without keep-alive, as the anchor measured.
# On a shared machine, run it under `flock` with the lock every timing run
# takes, so that no other measurement runs at the same time.
#
# Usage: LINES=100000000 scripts/bench-serve.sh
#   INDEX=FILE       reuse an index built from `spool pwned sample --lines
#                    LINES --seed 1` (else one is generated in WORK)
#   CONNECTIONS=64 THREADS=2 DURATION=20 RUNS=3 SERVER_THREADS=(cores)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
lines="${LINES:-10000000}"
connections="${CONNECTIONS:-64}"
threads="${THREADS:-2}"
duration="${DURATION:-20}"
runs="${RUNS:-3}"
work="${WORK:-$(mktemp -d)}"
lua="$PWD/scripts/bench/serve.lua"
command -v wrk >/dev/null || { echo "wrk is needed (apt-get install wrk)"; exit 1; }

cargo build --release --locked -p spool-cli
bin="$PWD/target/release/spool"
index="${INDEX:-}"
if [ -z "$index" ]; then
    index="$work/pwned.idx"
    "$bin" pwned sample --lines "$lines" --seed 1 -o "$work/sample.txt"
    "$bin" pwned build -o "$index" "$work/sample.txt"
    rm -f "$work/sample.txt"
fi

# 100,000 hashes with their counts: even lines present (sample passwords
# below LINES, counts by the sample's formula), odd lines absent.
python3 - "$lines" > "$work/hashes.txt" <<'EOF'
import hashlib, random, sys
lines = int(sys.argv[1])
rng = random.Random(7)
def count(i, seed=1):
    x = ((i ^ seed) * 0x9E3779B97F4A7C15) % 2**64
    return 1 + ((x >> 40) % 100000) // (1 + i % 97)
for n in range(100000):
    i = rng.randrange(lines) if n % 2 == 0 else lines + rng.randrange(1 << 40)
    digest = hashlib.sha1(f"sample-1-{i}".encode()).hexdigest().upper()
    print(digest, count(i) if n % 2 == 0 else 0)
EOF
export HASHES="$work/hashes.txt"

cat "$index" > /dev/null # warm page cache: the figures are for a cached index
port=$((20000 + RANDOM % 20000))
server_args=(pwned serve --sha1 "$index" --listen "127.0.0.1:$port")
[ -n "${SERVER_THREADS:-}" ] && server_args+=(--threads "$SERVER_THREADS")
"$bin" "${server_args[@]}" 2> "$work/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; [ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
for _ in $(seq 100); do
    grep -q "listening on" "$work/server.log" && break
    sleep 0.1
done
url="http://127.0.0.1:$port"

echo "== checking every answer (1 connection per thread, 3 s each)"
for endpoint in check range; do
    out=$(ENDPOINT=$endpoint CHECK=1 wrk -t"$threads" -c"$threads" -d3s -s "$lua" "$url")
    read -r answers wrong got_lines malformed < <(echo "$out" | awk '/^check:/ {print $2, $3, $4, $5}')
    echo "$endpoint: $answers answers, $wrong wrong, $got_lines lines, $malformed malformed"
    [ "$answers" -gt 1000 ] && [ "$wrong" -eq 0 ] && [ "$malformed" -eq 0 ] || { echo "FAILED"; exit 1; }
    if [ "$endpoint" = range ]; then
        # Uniform hashes: LINES/2^20 lines per range on average.
        python3 -c "
import sys
mean, want = $got_lines / $answers, $lines / 2**20
print(f'range: {mean:.2f} lines per range, expected {want:.2f}')
sys.exit(abs(mean - want) > 0.05 * want + 0.05)" || { echo "FAILED"; exit 1; }
    fi
done

# RssAnon/RssFile of the server in KiB, the largest of samples taken every
# 0.2 s until the file $1 exists.
sample_rss() {
    local stop=$1 anon=0 file=0 a f
    while [ ! -e "$stop" ]; do
        a=$(awk '/^RssAnon:/ {print $2}' "/proc/$server/status")
        f=$(awk '/^RssFile:/ {print $2}' "/proc/$server/status")
        [ "$a" -gt "$anon" ] && anon=$a
        [ "$f" -gt "$file" ] && file=$f
        sleep 0.2
    done
    echo "$anon $file"
}

echo "== timed runs: wrk -t$threads -c$connections -d${duration}s --latency (runs alternate)"
results="$work/results.txt"
: > "$results"
for run in $(seq "$runs"); do
    for endpoint in check range; do
        cat "$index" > /dev/null # other work on the machine may have evicted it
        rm -f "$work/stop"
        sample_rss "$work/stop" > "$work/rss.txt" &
        sampler=$!
        out=$(ENDPOINT=$endpoint wrk -t"$threads" -c"$connections" -d"${duration}s" --latency -s "$lua" "$url")
        touch "$work/stop"
        wait "$sampler"
        read -r anon file < "$work/rss.txt"
        rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
        p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
        p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
        errors=$(echo "$out" | awk '/Non-2xx|Socket errors/' | tr '\n' ' ')
        echo "$endpoint run $run: $rps req/s, p50 $p50, p99 $p99, RssAnon $((anon / 1024)) MiB, RssFile $((file / 1024)) MiB ${errors}"
        echo "$endpoint $rps $p50 $p99 $anon" >> "$results"
        [ -z "$errors" ] || { echo "FAILED: errors"; exit 1; }
    done
done

if command -v ab >/dev/null; then
    # The anchor's published figures (oschonrock/hibp's hibp-server) come
    # from ApacheBench without keep-alive: a new connection per request.
    hash=$(head -1 "$HASHES" | cut -d' ' -f1)
    echo "== ab -c100 -n50000 (no keep-alive, as the anchor's README), /check/sha1"
    for run in $(seq "$runs"); do
        out=$(ab -q -c100 -n50000 "$url/check/sha1/$hash" 2>&1)
        failed=$(echo "$out" | awk '/^Failed requests:/ {print $3}')
        echo "ab run $run: $(echo "$out" | awk '/^Requests per second:/ {print $4}') req/s, failed $failed"
        [ "$failed" = 0 ] || { echo "FAILED"; exit 1; }
    done
fi

echo "== medians (min-max) over $runs runs"
python3 - "$results" <<'EOF'
import statistics, sys
def ms(t):
    for unit, f in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * f
rows = [l.split() for l in open(sys.argv[1])]
for endpoint in ("check", "range"):
    r = [row for row in rows if row[0] == endpoint]
    rps = [float(x[1]) for x in r]
    p50 = [ms(x[2]) for x in r]
    p99 = [ms(x[3]) for x in r]
    anon = [int(x[4]) / 1024 for x in r]
    print(f"{endpoint}: {statistics.median(rps):,.0f} req/s ({min(rps):,.0f}-{max(rps):,.0f}), "
          f"p50 {statistics.median(p50):.2f} ms ({min(p50):.2f}-{max(p50):.2f}), "
          f"p99 {statistics.median(p99):.2f} ms ({min(p99):.2f}-{max(p99):.2f}), "
          f"RssAnon max {max(anon):.1f} MiB")
EOF
grep -v "listening on\|serving:" "$work/server.log" || true
