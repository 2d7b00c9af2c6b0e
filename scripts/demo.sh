#!/usr/bin/env bash
# The main job: installs what it needs (scripts/setup.sh), then builds and
# runs `spool-demo` (`cargo xtask demo`), which generates its own sample
# data and prints each system's figures next to its peers'. Extra
# arguments go to `spool-demo` (e.g. --quick, --json).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec cargo xtask demo "$@"
