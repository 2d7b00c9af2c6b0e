#!/usr/bin/env bash
# Third-party clients of `spool pwned serve`'s range API, on loopback:
# pyhibp (pointed at the server through its base URL) with and without
# padding, and the reference XXH3 (python-xxhash) computing each range's
# ETag from its body. Installs them into a virtualenv under target/ and
# builds the binary first (the test build: Cargo.toml's `ci` profile).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

venv=target/pwned-clients-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
"$venv/bin/python" -m pip install -q pytest "pyhibp==4.2.0" requests xxhash
cargo build --profile ci -q --locked -p spool-cli
SPOOL_BIN="$PWD/target/ci/spool" "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/pwned_clients
