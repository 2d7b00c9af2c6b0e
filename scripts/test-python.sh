#!/usr/bin/env bash
# Python tests: builds the extension with maturin into a virtualenv under
# bindings/python/.venv, installs pytest and foolscap (whose pure-Python
# StringChain is the reference), and runs the tests.
set -euo pipefail
cd "$(dirname "$0")/../bindings/python"
export PATH="$HOME/.cargo/bin:$PATH"

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q "maturin>=1.5,<2" pytest twisted
# foolscap (the reference StringChain and its test suite) without its TLS extras.
.venv/bin/python -m pip install -q --no-deps foolscap
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --release -q
.venv/bin/python -m pytest -q tests
