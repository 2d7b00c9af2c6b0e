#!/usr/bin/env bash
# The Spark interop tests (tests/spark): PySpark in local mode runs
# spool.partition inside its tasks and checks the dataset against its own
# partitionBy write, and `spool partition` (the CLI of the `ci` build)
# re-partitions Parquet datasets Spark wrote; then
# (scripts/test-spark-s3.sh) the tasks write into the S3 test server and
# Spark reads the dataset back through s3a://. Uses the virtualenv of
# scripts/test-python.sh
# (bindings/python/.venv), adding a pinned PySpark to it once; installs the
# spool package from this checkout. PySpark 4.0 needs Java 17 or 21: one is
# installed from Debian when `java` is missing or older; if none can be, the
# test is skipped with a message saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
PYSPARK_VERSION=4.0.1

java_major() {
    java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1
}
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
    if [ "$(id -u)" = 0 ]; then sudo=(); else sudo=(sudo); fi
    "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || true
    "${sudo[@]}" apt-get install -y -qq openjdk-17-jre-headless >/dev/null 2>&1 ||
        "${sudo[@]}" apt-get install -y -qq default-jre-headless >/dev/null 2>&1 || true
fi
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
    echo "########################################################################"
    echo "## SKIPPED: the Spark interop test needs Java 17+ and none could be   ##"
    echo "## installed (apt-get install openjdk-17-jre-headless failed).        ##"
    echo "########################################################################"
    exit 0
fi

venv=bindings/python/.venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$PYSPARK_VERSION')" 2>/dev/null; then
    "$venv/bin/python" -m pip install -q "pyspark==$PYSPARK_VERSION" pytest
fi
# The extension as scripts/test-python.sh built it (the workspace's target
# folder), so nothing is compiled again.
MATURIN_PEP517_ARGS="--profile ci" "$venv/bin/python" -m pip install -q ./bindings/python

# The CLI for the Spark-written inputs: the test build (Cargo.toml's `ci`
# profile), as the Rust tests use it.
cargo build --profile ci -q --locked -p spool-cli
export SPOOL_BIN="$PWD/target/ci/spool"
# The tasks' Python workers run the same interpreter as the driver.
export PYSPARK_PYTHON="$PWD/$venv/bin/python"
export PYSPARK_DRIVER_PYTHON="$PYSPARK_PYTHON"
"$venv/bin/python" -m pytest -q tests/spark
bash scripts/test-spark-s3.sh
