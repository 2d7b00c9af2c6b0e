#!/usr/bin/env bash
# Starts an S3-compatible test server on loopback for the S3 tests, once
# per test run, and prints which one ran.
#
#   eval "$(scripts/s3-server.sh start)"   # exports AWS_* and SPOOL_S3_PID
#   scripts/s3-server.sh stop
#
# The server is moto's standalone server (`moto[server]` from PyPI),
# installed once into target/s3-server/venv and reused by later runs:
# it starts in a second and keeps its buckets in memory, which is what
# CI wants. SPOOL_S3_SERVER=seaweedfs runs SeaweedFS's S3 gateway instead
# (`weed server -s3`, built once from the Go module proxy into
# target/s3-server/bin, several minutes): a second, independent
# implementation of S3 for the same tests. The Python tools (boto3, …)
# come from the venv either way.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/target/s3-server"
venv="$dir/venv"
port="${SPOOL_S3_PORT:-19000}"
server="${SPOOL_S3_SERVER:-moto}"
weed_version=v0.0.0-20261109003541-7506e5f91cd6

# Starts SeaweedFS (master, volume, filer and S3 gateway in one process)
# on loopback, its other ports next to the S3 port; prints its pid.
start_seaweedfs() {
    local weed="$dir/bin/weed"
    if [ ! -x "$weed" ]; then
        # `go install …@version` refuses a module whose go.mod has replace
        # directives, as SeaweedFS's has: build in a copy of its source,
        # as its main module.
        echo "s3-server.sh: building SeaweedFS $weed_version (once)" >&2
        local src
        src=$(go mod download -json "github.com/seaweedfs/seaweedfs@$weed_version" |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
        rm -rf "$dir/weed-src"
        cp -r "$src" "$dir/weed-src"
        chmod -R u+w "$dir/weed-src"
        (cd "$dir/weed-src" && go build -o "$weed" ./weed) >&2
    fi
    rm -rf "$dir/weed-data"
    mkdir -p "$dir/weed-data"
    "$weed" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$dir/weed-data" \
        -master.port=$((port + 1)) -volume.port=$((port + 2)) -filer.port=$((port + 3)) \
        -master.port.grpc=$((port + 11)) -volume.port.grpc=$((port + 12)) -filer.port.grpc=$((port + 13)) \
        -volume.max=0 -s3 -s3.port="$port" >"$dir/server.log" 2>&1 &
    echo $!
}

case "${1:-start}" in
start)
    mkdir -p "$dir"
    if [ ! -x "$venv/bin/moto_server" ]; then
        python3 -m venv "$venv" >&2
        "$venv/bin/python" -m pip install -q --upgrade pip >&2
        "$venv/bin/python" -m pip install -q 'moto[server]' >&2
    fi
    if [ "$server" = seaweedfs ]; then
        pid=$(start_seaweedfs)
        name="SeaweedFS $weed_version"
    else
        "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$dir/server.log" 2>&1 &
        pid=$!
        name="moto $("$venv/bin/python" -c 'import moto; print(moto.__version__)')"
    fi
    for _ in $(seq 1 300); do
        if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
            break
        fi
        sleep 0.1
    done
    curl -s -o /dev/null "http://127.0.0.1:$port/" || {
        echo "s3-server.sh: $name did not start; see $dir/server.log" >&2
        exit 1
    }
    echo "$pid" >"$dir/pid"
    echo "s3-server.sh: $name (S3-compatible) on http://127.0.0.1:$port, pid $pid" >&2
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
