#!/usr/bin/env bash
# Every test: Rust (unit, property, integration, doc), loom, C, C++,
# Python, S3, third-party clients of `pwned serve`, Stratum V2's codec and
# Spark running spool.partition in its tasks. Installs what it needs
# first (scripts/setup.sh), then runs `cargo xtask test` (xtask/src/test.rs),
# which runs each part and stops at the first failure. Arguments name
# parts to run instead of all: rust, c-cpp, python, s3, pwned-clients,
# sv2, spark.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec cargo xtask test "$@"
