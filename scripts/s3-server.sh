#!/usr/bin/env bash
# Starts an S3-compatible test server on loopback for the S3 tests, once
# per test run, and prints which one ran.
#
#   eval "$(scripts/s3-server.sh start)"   # exports AWS_* and SPOOL_S3_*
#   scripts/s3-server.sh restart [SECONDS] # SeaweedFS, versitygw: kill -9, wait, start again on its data
#   scripts/s3-server.sh build             # the server's binary only (start builds it if missing)
#   scripts/s3-server.sh stop
#
# The server is moto's standalone server (`moto[server]` from PyPI),
# installed once into target/s3-server/venv and reused by later runs: it
# starts in a second and keeps its buckets in memory.
# SPOOL_S3_SERVER=seaweedfs runs SeaweedFS's S3 gateway instead (`weed
# server -s3`, built once from the Go module proxy into
# target/s3-server/bin, several minutes): a second, independent
# implementation of S3, a real server whose data is on disk (under
# target/s3-server/run-PORT/data, deleted at stop), so that it can crash and
# restart. SPOOL_S3_SERVER=versitygw runs the Versity S3 Gateway with its
# posix backend (each bucket a directory, each object a file, under
# target/s3-server/run-PORT/data; built once from the Go module proxy,
# about a minute with a warm module cache): a third implementation, which
# also keeps its data over a crash. The Python tools (boto3, …) come from
# the venv whichever server runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/target/s3-server"
venv="$dir/venv"
port="${SPOOL_S3_PORT:-19000}"
# One server per port (the tests' and the benchmark's may run at once):
# its pid, log and data.
run="$dir/run-$port"
server="${SPOOL_S3_SERVER:-moto}"
weed_version=v0.0.0-20261109003541-7506e5f91cd6
vgw_version=v1.8.0

# Builds SeaweedFS into $dir/bin once.
build_seaweedfs() {
    # `go install …@version` refuses a module whose go.mod has replace
    # directives, as SeaweedFS's has: build in a copy of its source, as
    # its main module (the copy is deleted after).
    echo "s3-server.sh: building SeaweedFS $weed_version (once)" >&2
    local src
    src=$(go mod download -json "github.com/seaweedfs/seaweedfs@$weed_version" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
    rm -rf "$dir/weed-src"
    mkdir -p "$dir/bin"
    cp -r "$src" "$dir/weed-src"
    chmod -R u+w "$dir/weed-src"
    (cd "$dir/weed-src" && go build -o "$dir/bin/weed" ./weed) >&2
    rm -rf "$dir/weed-src"
}

# Builds versitygw into $dir/bin once.
build_versitygw() {
    echo "s3-server.sh: building versitygw $vgw_version (once)" >&2
    mkdir -p "$dir/bin"
    GOBIN="$dir/bin" go install "github.com/versity/versitygw/cmd/versitygw@$vgw_version" >&2
}

# Starts versitygw on the posix backend in $run/data, the root user with
# the tests' keys; prints its pid.
launch_versitygw() {
    "$dir/bin/versitygw" --port "127.0.0.1:$port" --access test --secret test --quiet \
        posix "$run/data" >>"$run/server.log" 2>&1 &
    echo $!
}

# Starts SeaweedFS (master, volume, filer and S3 gateway in one process)
# on loopback on the data in $run/data, its other ports next to the
# S3 port, its log appended to $run/server.log; prints its pid.
launch_seaweedfs() {
    # Each bucket is a collection with volumes of its own (7 made at its
    # first write): small volumes, and many of them, or the second bucket
    # finds no free volume and every write into it fails (500). Volumes
    # are sparse files: the data dir holds the data written, not the
    # volumes' size. The lone master elects itself in 1 s, not 10 (after
    # a restart, no write succeeds until it has). No telemetry; the Iceberg
    # and Lance endpoints (fixed ports by default) are off.
    "$dir/bin/weed" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$run/data" \
        -master.port=$((port + 1)) -volume.port=$((port + 2)) -filer.port=$((port + 3)) \
        -master.port.grpc=$((port + 11)) -volume.port.grpc=$((port + 12)) -filer.port.grpc=$((port + 13)) \
        -master.volumeSizeLimitMB=64 -volume.max=1000 -master.electionTimeout=1s -master.telemetry=false \
        -s3 -s3.port="$port" -s3.port.grpc=$((port + 14)) -s3.config="$run/data/s3.json" \
        -s3.port.iceberg=0 -s3.port.lance=0 >>"$run/server.log" 2>&1 &
    echo $!
}

# Waits until the server answers on its S3 port (30 s at most).
wait_ready() { # name
    for _ in $(seq 1 300); do
        if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
            return
        fi
        sleep 0.1
    done
    echo "s3-server.sh: $1 did not start; see $run/server.log" >&2
    exit 1
}

# Kills the server of $run/pid: SIGTERM, SIGKILL past `grace` tenths of
# a second; returns once it is gone, so that its ports are free.
kill_server() { # grace
    [ -f "$run/pid" ] || return 0
    local pid
    pid=$(cat "$run/pid")
    if [ "$1" -gt 0 ]; then
        kill "$pid" 2>/dev/null || true
    fi
    for _ in $(seq 1 "$1"); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    rm -f "$run/pid"
}

case "${1:-start}" in
start)
    mkdir -p "$run"
    if [ ! -x "$venv/bin/moto_server" ]; then
        python3 -m venv "$venv" >&2
        "$venv/bin/python" -m pip install -q --upgrade pip >&2
        "$venv/bin/python" -m pip install -q 'moto[server]' >&2
    fi
    : >"$run/server.log"
    if [ "$server" = seaweedfs ]; then
        [ -x "$dir/bin/weed" ] || build_seaweedfs
        rm -rf "$run/data"
        mkdir -p "$run/data"
        # One identity with the tests' keys, so that requests are signed
        # and checked (with none, SeaweedFS lets every request in).
        cat >"$run/data/s3.json" <<'JSON'
{"identities": [{"name": "test", "credentials": [{"accessKey": "test", "secretKey": "test"}],
                 "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
        pid=$(launch_seaweedfs)
        name="SeaweedFS $weed_version"
    elif [ "$server" = versitygw ]; then
        [ -x "$dir/bin/versitygw" ] || build_versitygw
        rm -rf "$run/data"
        mkdir -p "$run/data"
        pid=$(launch_versitygw)
        name="versitygw $vgw_version (posix)"
    else
        "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >>"$run/server.log" 2>&1 &
        pid=$!
        name="moto $("$venv/bin/python" -c 'import moto; print(moto.__version__)')"
    fi
    echo "$pid" >"$run/pid"
    wait_ready "$name"
    echo "s3-server.sh: $name (S3-compatible) on http://127.0.0.1:$port, pid $pid" >&2
    echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test" \
        "AWS_REGION=us-east-1 SPOOL_S3_PYTHON=$venv/bin/python SPOOL_S3_PORT=$port" \
        "SPOOL_S3_SERVER=$server SPOOL_S3_SERVER_NAME='$name'"
    ;;
build)
    # The server's binary alone (start builds it when missing).
    mkdir -p "$dir"
    case "$server" in
    seaweedfs) [ -x "$dir/bin/weed" ] || build_seaweedfs ;;
    versitygw) [ -x "$dir/bin/versitygw" ] || build_versitygw ;;
    esac
    ;;
restart)
    # A crash, SECONDS down (default none), and a restart on the same
    # data (moto keeps its buckets in memory: a restart would lose them).
    kill_server 0
    sleep "${2:-0}"
    case "$server" in
    seaweedfs) pid=$(launch_seaweedfs) ;;
    versitygw) pid=$(launch_versitygw) ;;
    *)
        echo "s3-server.sh: restart: only SeaweedFS and versitygw keep their data over a restart" >&2
        exit 2
        ;;
    esac
    echo "$pid" >"$run/pid"
    wait_ready "$server"
    ;;
stop)
    # SeaweedFS's graceful stop takes about 25 s (its volume server waits
    # 10 s, its filer 15 s to flush a log into the stopped volumes): past
    # 3 s it is killed, as its data (tens of MB per test run) is deleted.
    kill_server 30
    rm -rf "$run/data"
    ;;
*)
    echo "usage: $0 start|restart|stop|build" >&2
    exit 2
    ;;
esac
