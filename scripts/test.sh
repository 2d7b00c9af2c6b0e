#!/usr/bin/env bash
# Every test: Rust (unit, property, integration, doc), loom, C, C++,
# Python, third-party clients of `pwned serve`, and Spark running
# spool.partition in its tasks. Installs what it needs first. Exits
# non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

for part in scripts/test-rust.sh scripts/test-c-cpp.sh scripts/test-python.sh scripts/test-s3.sh scripts/test-pwned-clients.sh scripts/test-sv2.sh scripts/test-spark.sh; do
    if [ -f "$part" ]; then
        echo "==> $part"
        start=$SECONDS
        bash "$part"
        echo "==> $part passed in $((SECONDS - start)) s"
    fi
done
echo "==> all spool tests passed in $SECONDS s"
