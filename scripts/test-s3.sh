#!/usr/bin/env bash
# `spool partition --out s3://…` against an S3-compatible server on
# loopback (scripts/s3-server.sh: started once here, stopped at the end):
# the round trips and tools (tests/s3/test_partition_s3.py, read back by
# boto3, PyArrow and Polars; the Python binding too when
# bindings/python/.venv has it), then the fault trials
# (tests/s3/fault_trials.py, TRIALS of each kind, 20 by default). Prints
# the server that ran and the wall time from its start (the build not
# counted).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release -q --locked -p spool-cli
export SPOOL_BIN="$PWD/target/release/spool"
started=$SECONDS

eval "$(scripts/s3-server.sh start)"
trap 'scripts/s3-server.sh stop' EXIT

# The test client: the binding's virtualenv when scripts/test-python.sh
# made it (so spool.partition is tested too), else the server's.
python="$SPOOL_S3_PYTHON"
if [ -x bindings/python/.venv/bin/python ]; then
    python=bindings/python/.venv/bin/python
fi
"$python" -m pip install -q pytest boto3 pyarrow polars zstandard
"$python" -m pytest -q tests/s3/test_partition_s3.py
TRIALS="${TRIALS:-20}" "$python" tests/s3/fault_trials.py
echo "test-s3.sh: server, tests and trials passed in $((SECONDS - started)) s (server: moto, see above)"
