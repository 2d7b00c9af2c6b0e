#!/usr/bin/env bash
# `spool partition --out s3://…` and `s3://` inputs against an S3-compatible server on
# loopback (scripts/s3-server.sh: started once here, stopped at the end):
# the round trips and tools (tests/s3/test_partition_s3.py, read back by
# boto3, PyArrow and Polars; the Python binding too when
# bindings/python/.venv has it), the remote inputs, S3 and HTTP
# (tests/s3/test_partition_s3_input.py, about 6 s), then the fault trials
# (tests/s3/fault_trials.py, TRIALS of each kind, 20 by default, fewer
# of the slowest and of those reading S3 inputs; with
# SeaweedFS or versitygw, also their crash and restart mid-run). The
# server is moto, or SeaweedFS or versitygw with SPOOL_S3_SERVER=seaweedfs
# or versitygw (see scripts/s3-server.sh).
# Prints the server that ran and the wall time from its start (the
# builds not counted).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# The test build (Cargo.toml's `ci` profile), as the Rust tests use it.
cargo build --profile ci -q --locked -p spool-cli
export SPOOL_BIN="$PWD/target/ci/spool"
started=$SECONDS

eval "$(scripts/s3-server.sh start)"
logs=$(mktemp -d)
trap 'scripts/s3-server.sh stop; rm -rf "$logs"' EXIT

# The test client: the binding's virtualenv when scripts/test-python.sh
# made it (so spool.partition is tested too), else the server's.
python="$SPOOL_S3_PYTHON"
if [ -x bindings/python/.venv/bin/python ]; then
    python=bindings/python/.venv/bin/python
fi
"$python" -m pip install -q pytest boto3 pyarrow polars zstandard
"$python" -m pytest -q tests/s3/test_partition_s3.py tests/s3/test_partition_s3_input.py
# The kinds of fault trial in two processes at once (each with its own
# fault proxy and buckets): they spend most of their time waiting on the
# server and on injected delays, so two share the machine's cores well.
export TRIALS="${TRIALS:-20}"
# lost-object, the slowest (each trial undoes a run object by object),
# gets LOST_TRIALS (6 by default) beside the others' TRIALS.
{
    "$python" tests/s3/fault_trials.py kill-upload kill-commit kill-commit-403 &&
        TRIALS="${LOST_TRIALS:-6}" "$python" tests/s3/fault_trials.py lost-object
} >"$logs/trials-kill.log" 2>&1 &
kill_pid=$!
# The kinds whose inputs are objects too (kill-input, input-overwritten)
# get INPUT_TRIALS (10 by default), in the process that ends first.
{
    "$python" tests/s3/fault_trials.py outage slowdown kill-upload-nolist &&
        TRIALS="${INPUT_TRIALS:-10}" "$python" tests/s3/fault_trials.py kill-input input-overwritten
} >"$logs/trials-outage.log" 2>&1 || trials_failed=1
wait "$kill_pid" || trials_failed=1
cat "$logs/trials-kill.log" "$logs/trials-outage.log"
# A real crash and restart of the server, alone (every client loses it):
# SeaweedFS and versitygw keep their data over a restart, moto does not.
# RESTART_TRIALS of them (30 by default: each is a run of 807 files).
if [ "$SPOOL_S3_SERVER" != moto ]; then
    TRIALS="${RESTART_TRIALS:-30}" "$python" tests/s3/fault_trials.py restart || trials_failed=1
fi
if [ -n "${trials_failed:-}" ]; then
    echo "test-s3.sh: fault trials failed (logs above)" >&2
    exit 1
fi
echo "test-s3.sh: server, tests and trials passed in $((SECONDS - started)) s against $SPOOL_S3_SERVER_NAME"
