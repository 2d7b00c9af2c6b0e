#!/usr/bin/env bash
# The main job: builds and runs `spool-demo`, which generates its own
# sample data and prints each system's figures next to its peers'.
# Extra arguments go to `spool-demo` (e.g. --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cargo run --release --locked -p spool-bench --bin spool-demo -- "$@"
