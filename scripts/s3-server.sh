#!/usr/bin/env bash
# Starts an S3-compatible test server on loopback for the S3 tests, once
# per test run, and prints which one ran.
#
#   eval "$(scripts/s3-server.sh start)"   # exports AWS_* and SPOOL_S3_PID
#   scripts/s3-server.sh stop
#
# The server is moto's standalone server (`moto[server]` from PyPI),
# installed once into target/s3-server/venv and reused by later runs.
# MinIO is AGPL-licensed and SeaweedFS is a large Go build; moto needs
# neither and keeps its buckets in memory, which is what tests want.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/target/s3-server"
venv="$dir/venv"
port="${SPOOL_S3_PORT:-19000}"

case "${1:-start}" in
start)
    mkdir -p "$dir"
    if [ ! -x "$venv/bin/moto_server" ]; then
        python3 -m venv "$venv" >&2
        "$venv/bin/python" -m pip install -q --upgrade pip >&2
        "$venv/bin/python" -m pip install -q 'moto[server]' >&2
    fi
    version="$("$venv/bin/python" -c 'import moto; print(moto.__version__)')"
    "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$dir/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do
        if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
            break
        fi
        sleep 0.1
    done
    curl -s -o /dev/null "http://127.0.0.1:$port/" || {
        echo "s3-server.sh: moto did not start; see $dir/server.log" >&2
        exit 1
    }
    echo "$pid" >"$dir/pid"
    echo "s3-server.sh: moto $version (S3-compatible) on http://127.0.0.1:$port, pid $pid" >&2
    echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 SPOOL_S3_PID=$pid SPOOL_S3_PYTHON=$venv/bin/python"
    ;;
stop)
    if [ -f "$dir/pid" ]; then
        kill "$(cat "$dir/pid")" 2>/dev/null || true
        rm -f "$dir/pid"
    fi
    ;;
*)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
