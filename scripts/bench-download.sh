#!/usr/bin/env bash
# spool pwned download against oschonrock/hibp's hibp-download, in the same
# run, from one local upstream: nginx on 127.0.0.1:8090 serving a
# `spool pwned sample --ranges` folder as /{PREFIX} (the URL hibp-download
# --testing fetches; spool is pointed at it with --url). By default both
# speak HTTP/1.1 to it (spool's h2c probe falls back); nginx speaks HTTP/2
# in plain text only with prior knowledge, on a port HTTP/1.1 clients then
# cannot use, so spool gets HTTP/2 from nginx on a second port (H2C=1).
# spool runs with --concurrency 300, as hibp-download's default
# --parallel-max. Then `spool pwned update` after 1% of the range files
# changed (nginx's ETags follow a file's size and time, so the other 99%
# answer 304).
#
# Each run is timed by /usr/bin/time (wall, user+system CPU, peak RSS);
# the order is spool, hibp, hibp, spool, round after round. Every result is
# checked: spool's index byte for byte against `spool pwned build` of the
# folder, hibp's database by its size (24 bytes per hash), the update
# against a build of the changed folder. Run it under the machine's
# benchmark lock.
#
# With UPSTREAM=serve the upstream is `spool pwned serve` of the folder's
# index instead (HTTP/2 in plain text, h2c; hibp-download, which fetches
# from nginx's port, is not run): the
# downloads and the update, against a serve of the changed index.
#
# STEPS=compression compares, against nginx over the same folder, plain
# bodies (--no-compression) with gzip made on the fly (`gzip on`, level 1)
# and with gzip_static (`.txt.gz` files beside the range files, e.g. made
# with `gzip -k -9`), and nginx with keepalive_requests 1000 (connections
# recycled every 1,000 requests, HTTP/1.1 and HTTP/2) against unlimited;
# PREFIXES=FIRST-LAST (hex) limits the ranges fetched (a folder of fewer,
# realistically large range files). Each run's index is compared with
# the plain run's; the line gives the body bytes received (the report's
# MB) and the re-sent requests.
#
# Usage: RANGES=DIR HIBP_DOWNLOAD=/path/to/hibp-download scripts/bench-download.sh
#   RANGES   a folder made by `spool pwned sample --lines N --crlf --ranges DIR`
#            (it is changed by the update step and changed back at the end)
#   LINES    N, the number of hashes in it (for hibp's size check)
#   ROUNDS=1 WORK=DIR (default a temporary folder)
#   STEPS="download update" (either, to split a long run into shorter ones)
#   UPSTREAM=nginx|serve
#   HTTP1=1  spool speaks HTTP/1.1 only (--http1), e.g. to compare with
#            HTTP/2 against UPSTREAM=serve
#   H2C=1    nginx also listens on 127.0.0.1:8092 with HTTP/2 in plain
#            text (prior knowledge), and spool fetches from there (its
#            probe finds HTTP/2); hibp-download stays on 8090 over HTTP/1.1
#   COLD=1   the previous index's pages are dropped from the page cache
#            before each update (as for an index last read a month ago)
#   WARMUP=1 one untimed download first, so that every timed run finds the
#            range files in the page cache (a first run after other work
#            had evicted them took about twice as long)
#   SPOOL=path (default this tree's release build, built first)
#   BEFORE=path another spool binary (e.g. a previous build): its downloads
#            alternate with SPOOL's (spool, before, before, spool), checked
#            the same way; hibp-download is then not run
set -euo pipefail
cd "$(dirname "$0")/.."
ranges="${RANGES:?a folder of range files}"
lines="${LINES:?hashes in RANGES}"
hibp="${HIBP_DOWNLOAD:-}"
[[ " ${STEPS:-} " == *" compression "* ]] || [ -n "$hibp" ] || [ -n "${BEFORE:-}" ] || { echo "HIBP_DOWNLOAD=/path/to/hibp-download is needed"; exit 1; }
rounds="${ROUNDS:-1}"
work="${WORK:-$(mktemp -d)}"
steps="${STEPS:-download update}"
upstream="${UPSTREAM:-nginx}"
if [ -n "${SPOOL:-}" ]; then
  spool="$SPOOL"
else
  spool="$PWD/target/release/spool"
  cargo build --release -q -p spool-cli
fi
command -v nginx >/dev/null || { echo "nginx is needed (apt-get install nginx-light)"; exit 1; }

mkdir -p "$work/tmp"
# Without H2C the second server is configured but not used.
h2c_port=8092
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
worker_rlimit_nofile 8192;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 10000000;
  default_type text/plain;
  client_body_temp_path $work/tmp;
  proxy_temp_path $work/tmp;
  fastcgi_temp_path $work/tmp;
  uwsgi_temp_path $work/tmp;
  scgi_temp_path $work/tmp;
  server {
    listen 127.0.0.1:8090 backlog=4096;
    root $ranges;
    location ~ "^/([0-9A-F]{5})$" { try_files /\$1.txt =404; }
  }
  server {
    listen 127.0.0.1:${h2c_port} http2 backlog=4096;
    http2_max_concurrent_streams 512;
    root $ranges;
    location ~ "^/([0-9A-F]{5})$" { try_files /\$1.txt =404; }
  }
  # STEPS=compression: gzip on the fly, gzip_static, recycling.
  server {
    listen 127.0.0.1:8093 backlog=4096;
    gzip on; gzip_types text/plain; gzip_min_length 0;
    root $ranges;
    location ~ "^/([0-9A-F]{5})$" { try_files /\$1.txt =404; }
  }
  server {
    listen 127.0.0.1:8094 backlog=4096;
    gzip_static on;
    root $ranges;
    location ~ "^/([0-9A-F]{5})$" { try_files /\$1.txt =404; }
  }
  server {
    listen 127.0.0.1:8096 backlog=4096;
    keepalive_requests 1000;
    root $ranges;
    location ~ "^/([0-9A-F]{5})$" { try_files /\$1.txt =404; }
  }
  server {
    listen 127.0.0.1:8097 http2 backlog=4096;
    http2_max_concurrent_streams 512;
    keepalive_requests 1000;
    root $ranges;
    location ~ "^/([0-9A-F]{5})$" { try_files /\$1.txt =404; }
  }
}
CONF
nginx -c "$work/nginx.conf"
serve_pid=
stop() {
  kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  [ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null || true
}
trap stop EXIT

# Built once per WORK folder (a million range files take a while to read).
[[ " $steps " == *" compression "* ]] || [ -f "$work/reference.idx" ] || "$spool" pwned build -q -o "$work/reference.idx" "$ranges"

url='http://127.0.0.1:8090/{prefix}'
[ -z "${H2C:-}" ] || url="http://127.0.0.1:$h2c_port/{prefix}"
proto=()
[ -z "${HTTP1:-}" ] || proto=(--http1)
serve() { # INDEX: `spool pwned serve` of it on 127.0.0.1:8091, replacing a running one
  [ -z "$serve_pid" ] || { kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; }
  "$spool" pwned serve --listen 127.0.0.1:8091 --sha1 "$1" 2>"$work/serve.log" &
  serve_pid=$!
  until curl -sf -o /dev/null http://127.0.0.1:8091/range/00000; do sleep 0.2; done
}
if [ "$upstream" = serve ]; then
  serve "$work/reference.idx"
  url=http://127.0.0.1:8091
fi
timed() { # NAME COMMAND...: one line "NAME wall cpu peak_rss_kib"
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" \
    || { cat "$work/stderr"; exit 1; }
  read -r wall user sys rss < "$work/time"
  echo "$name wall=${wall}s cpu=$(echo "$user + $sys" | bc)s rss=${rss}KiB"
}
if [[ " $steps " == *" compression "* ]]; then
  limit=()
  [ -z "${PREFIXES:-}" ] || limit=(--prefixes "$PREFIXES")
  fetch() { # NAME PORT [ARGS...]: one timed download, its bytes and re-sends
    local name=$1 port=$2; shift 2
    rm -f "$work/c.idx" "$work/c.idx.etags" "$work/.c.idx.download"
    timed "$name" "$spool" pwned download -q --concurrency 300 "${limit[@]}" "$@" \
      --url "http://127.0.0.1:$port/{prefix}" -o "$work/c.idx"
    grep -o 'fetched [0-9]* ranges ([0-9.]* MB)\|[0-9]* retries\|[0-9]* re-sent[a-z ]*\|over HTTP/[0-9.]*\|[0-9]* bodies compressed: [0-9.]* MB decoded' "$work/stderr" | tr '\n' ' '; echo
    if [ "$name" = plain ]; then cp "$work/c.idx" "$work/plain.idx"; else cmp "$work/c.idx" "$work/plain.idx"; fi
  }
  for _ in $(seq "$rounds"); do
    fetch plain 8090 --no-compression
    fetch gzip-on 8093
    fetch gzip-static 8094
    fetch h1-keepalive-unlimited 8090 --no-compression
    fetch h1-keepalive-1000 8096 --no-compression
    fetch h2-keepalive-unlimited "$h2c_port" --no-compression
    fetch h2-keepalive-1000 8097 --no-compression
    fetch gzip-static 8094
    fetch gzip-on 8093
    fetch plain 8090 --no-compression
  done
  exit 0
fi

spool_run() { # [NAME BINARY]: default spool, $spool
  local name=${1:-spool} bin=${2:-$spool}
  rm -f "$work/$name.idx" "$work/$name.idx.etags" "$work/.$name.idx.download"
  timed "$name" "$bin" pwned download -q --concurrency 300 "${proto[@]}" \
    --url "$url" -o "$work/$name.idx"
  grep -o 'over HTTP/[0-9.]*' "$work/stderr"
  cmp "$work/$name.idx" "$work/reference.idx"
}
hibp_run() {
  timed hibp "$hibp" --testing --no-progress --force "$work/hibp.bin"
  test "$(stat -c %s "$work/hibp.bin")" -eq $((lines * 24))
}
if [ -n "${WARMUP:-}" ]; then
  "$spool" pwned download -q --concurrency 300 --url "$url" -o "$work/warmup.idx" 2>/dev/null
  rm -f "$work/warmup.idx" "$work/warmup.idx.etags"
fi
if [[ " $steps " == *" download "* ]]; then
  for _ in $(seq "$rounds"); do
    if [ -n "${BEFORE:-}" ]; then
      spool_run; spool_run before "$BEFORE"; spool_run before "$BEFORE"; spool_run
    elif [ "$upstream" = serve ]; then
      spool_run; spool_run
    else
      spool_run; hibp_run; hibp_run; spool_run
    fi
  done
fi
[[ " $steps " == *" update "* ]] || exit 0
# The update starts from a download's index and ETags.
[ -f "$work/spool.idx" ] || spool_run

# 1% of the ranges change: every 100th prefix's first count goes up by one.
changed=()
for p in $(seq 0 100 1048575); do changed+=("$(printf '%05X' "$p")"); done
for p in "${changed[@]}"; do
  f="$ranges/$p.txt"; cp "$f" "$work/tmp/$p.orig"
  awk -F: 'NR==1 { printf "%s:%d\r\n", $1, $2 + 1; next } { print }' "$work/tmp/$p.orig" \
    | sed 's/\r*$/\r/' > "$f"
done
restore() { for p in "${changed[@]}"; do cp "$work/tmp/$p.orig" "$ranges/$p.txt"; done; }
trap 'restore; stop' EXIT
[ -f "$work/changed.idx" ] || "$spool" pwned build -q -o "$work/changed.idx" "$ranges"
[ "$upstream" != serve ] || serve "$work/changed.idx"
for _ in 1 2; do
  rm -f "$work/updated.idx" "$work/updated.idx.etags"
  [ -z "${COLD:-}" ] || python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$work/spool.idx"
  timed update "$spool" pwned update -q --concurrency 300 "${proto[@]}" \
    --url "$url" -i "$work/spool.idx" -o "$work/updated.idx"
  grep -o '[0-9]* ranges unchanged (304)' "$work/stderr"
  cmp "$work/updated.idx" "$work/changed.idx"
done
