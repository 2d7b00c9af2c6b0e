#!/usr/bin/env bash
# spool pwned serve under wrk, against its peer in the same run: requests/s,
# p50/p99 latency and the server's memory besides the page cache (RssAnon,
# sampled every 0.2 s; RssFile is the index's mapped pages), for
# GET /check/sha1/{hash} (random hashes, half present) and, from spool,
# GET /range/{prefix} (random prefixes), on loopback with keep-alive, the
# client on the same machine.
#
# Servers, each started once and timed in turn, round after round:
#   spool        this tree's `spool pwned serve --sha1 INDEX`
#   before       BEFORE=PATH: another `spool` binary (e.g. built from
#                an older commit), the same way
#   hibp-toc     HIBP_SERVER=PATH: oschonrock/hibp's hibp-server with
#                --toc (a 2^20-entry table of contents), on the same hashes
#                converted to its format with hibp-convert (found beside
#                hibp-server, or HIBP_CONVERT=PATH)
#   hibp         the same without --toc
# Every server's answers are checked first (counts exact — hibp-server
# says -1 for an absent hash; range lines well formed, LINES/2^20 per range
# on average), then RUNS rounds of DURATION seconds per server and
# endpoint, in turn (the order reversed every other round). Run it under
# the machine's benchmark lock, so that nothing else runs at the same time.
#
# Usage: LINES=20000000 HIBP_SERVER=/path/to/hibp-server scripts/bench-serve.sh
#   INDEX=FILE       reuse an index built from `spool pwned sample --lines
#                    LINES --seed 1` (else one is generated in WORK)
#   HIBP_DB=FILE     reuse hibp-server's database of the same sample
#   CONNECTIONS=64 THREADS=2 DURATION=20 RUNS=3 SERVER_THREADS=2
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
lines="${LINES:-10000000}"
connections="${CONNECTIONS:-64}"
threads="${THREADS:-2}"
duration="${DURATION:-20}"
runs="${RUNS:-3}"
server_threads="${SERVER_THREADS:-2}"
work="${WORK:-$(mktemp -d)}"
lua="$PWD/scripts/bench/serve.lua"
command -v wrk >/dev/null || { echo "wrk is needed (apt-get install wrk)"; exit 1; }

cargo build --release --locked -p spool-cli
bin="$PWD/target/release/spool"
index="${INDEX:-}"
hibp_db="${HIBP_DB:-}"
if [ -z "$index" ] || { [ -n "${HIBP_SERVER:-}" ] && [ -z "$hibp_db" ]; }; then
    "$bin" pwned sample --lines "$lines" --seed 1 --order hash -o "$work/sample.txt"
fi
if [ -z "$index" ]; then
    index="$work/pwned.idx"
    "$bin" pwned build -o "$index" "$work/sample.txt"
fi
if [ -n "${HIBP_SERVER:-}" ] && [ -z "$hibp_db" ]; then
    convert="${HIBP_CONVERT:-$(dirname "$HIBP_SERVER")/hibp-convert}"
    hibp_db="$work/pwned.sha1.bin"
    "$convert" --txt-to-bin -i "$work/sample.txt" -o "$hibp_db" --force
fi
rm -f "$work/sample.txt"

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

# name port pid, one line per server started.
servers="$work/servers.txt"
: > "$servers"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; [ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
start() { # NAME COMMAND...: starts a server on a free port (PORT in COMMAND)
    local name=$1 port=$((20000 + RANDOM % 20000))
    shift
    "${@//PORT/$port}" > "$work/$name.log" 2>&1 &
    pids+=($!)
    echo "$name $port $!" >> "$servers"
    for _ in $(seq 600); do
        curl -s -o /dev/null "http://127.0.0.1:$port/check/sha1/$(head -1 "$HASHES" | cut -d' ' -f1)" && return
        sleep 0.1
    done
    echo "$name did not start:"; cat "$work/$name.log"; exit 1
}
start spool "$bin" pwned serve --sha1 "$index" --listen 127.0.0.1:PORT --threads "$server_threads"
if [ -n "${BEFORE:-}" ]; then
    start before "$BEFORE" pwned serve --sha1 "$index" --listen 127.0.0.1:PORT --threads "$server_threads"
fi
if [ -n "${HIBP_SERVER:-}" ]; then
    # The first start with --toc writes DB.20.toc beside the database.
    start hibp-toc "$HIBP_SERVER" --sha1-db "$hibp_db" --bind-address 127.0.0.1 --port PORT --threads "$server_threads" --toc
    start hibp "$HIBP_SERVER" --sha1-db "$hibp_db" --bind-address 127.0.0.1 --port PORT --threads "$server_threads"
fi

# The endpoints each server is timed on.
endpoints() { case $1 in spool|before) echo check range ;; *) echo check ;; esac; }
peer() { case $1 in hibp*) echo hibp ;; *) echo spool ;; esac; }

echo "== checking every answer (1 connection per thread, 3 s each)"
while read -r name port _; do
    for endpoint in $(endpoints "$name"); do
        out=$(PEER=$(peer "$name") ENDPOINT=$endpoint CHECK=1 wrk -t"$threads" -c"$threads" -d3s -s "$lua" "http://127.0.0.1:$port")
        read -r answers wrong got_lines malformed < <(echo "$out" | awk '/^check:/ {print $2, $3, $4, $5}')
        echo "$name $endpoint: $answers answers, $wrong wrong, $got_lines lines, $malformed malformed"
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
done < "$servers"

# RssAnon/RssFile of process $1 in KiB, the largest of samples taken every
# 0.2 s until the file $2 exists.
sample_rss() {
    local pid=$1 stop=$2 anon=0 file=0 a f
    while [ ! -e "$stop" ]; do
        a=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status")
        f=$(awk '/^RssFile:/ {print $2}' "/proc/$pid/status")
        [ "$a" -gt "$anon" ] && anon=$a
        [ "$f" -gt "$file" ] && file=$f
        sleep 0.2
    done
    echo "$anon $file"
}

echo "== timed runs: wrk -t$threads -c$connections -d${duration}s --latency, servers in turn"
results="$work/results.txt"
: > "$results"
for run in $(seq "$runs"); do
    # Odd rounds in the order the servers started, even rounds reversed
    # (ABBA), so that no server always runs first or last.
    if [ $((run % 2)) = 1 ]; then order=(cat "$servers"); else order=(tac "$servers"); fi
    while read -r name port pid; do
        for endpoint in $(endpoints "$name"); do
            cat "$index" ${hibp_db:+"$hibp_db"} > /dev/null # keep the files cached
            rm -f "$work/stop"
            sample_rss "$pid" "$work/stop" > "$work/rss.txt" &
            sampler=$!
            out=$(PEER=$(peer "$name") ENDPOINT=$endpoint wrk -t"$threads" -c"$connections" -d"${duration}s" --latency -s "$lua" "http://127.0.0.1:$port")
            touch "$work/stop"
            wait "$sampler"
            read -r anon file < "$work/rss.txt"
            rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
            p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
            p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
            errors=$(echo "$out" | awk '/Non-2xx|Socket errors/' | tr '\n' ' ')
            echo "$name $endpoint run $run: $rps req/s, p50 $p50, p99 $p99, RssAnon $((anon / 1024)) MiB, RssFile $((file / 1024)) MiB ${errors}"
            echo "$name $endpoint $run $rps $p50 $p99 $anon" >> "$results"
            [ -z "$errors" ] || { echo "FAILED: errors"; exit 1; }
        done
    done < <("${order[@]}")
done

echo "== medians (min-max) over $runs runs; ratios per round, spool's req/s over the other's"
python3 - "$results" <<'EOF'
import statistics, sys
def ms(t):
    for unit, f in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * f
rows = [l.split() for l in open(sys.argv[1])]
def fmt(xs, f="{:,.0f}"):
    return f"{f.format(statistics.median(xs))} ({f.format(min(xs))}-{f.format(max(xs))})"
keys = sorted({(r[0], r[1]) for r in rows}, key=lambda k: (k[1], k[0] != "spool", k[0]))
for name, endpoint in keys:
    r = [x for x in rows if x[0] == name and x[1] == endpoint]
    print(f"{name} {endpoint}: {fmt([float(x[3]) for x in r])} req/s, "
          f"p50 {fmt([ms(x[4]) for x in r], '{:.2f}')} ms, p99 {fmt([ms(x[5]) for x in r], '{:.2f}')} ms, "
          f"RssAnon max {max(int(x[6]) for x in r) / 1024:.1f} MiB")
    if name != "spool":
        mine = {x[2]: float(x[3]) for x in rows if x[0] == "spool" and x[1] == endpoint}
        ratios = [mine[x[2]] / float(x[3]) for x in r if x[2] in mine]
        print(f"  spool / {name}, {endpoint}: {fmt(ratios, '{:.2f}')}x")
EOF
for log in "$work"/spool.log "$work"/before.log; do
    [ -e "$log" ] || continue
    grep -v "listening on\|serving:" "$log" | sed "s|^|$(basename "$log" .log): |" || true
done
