#!/usr/bin/env bash
# Installs what spool's demo and tests need on a fresh machine: a Rust
# toolchain, a C/C++ compiler with make, CMake and pkg-config (the C
# library's install is tested with both), Python 3 with venv and pip
# (scripts/test-python.sh creates a virtualenv and installs maturin, pytest
# and mypy into it), groff (to check the manual pages render) and the zstd
# and gzip tools.
# Safe to run again: every step checks first.
set -euo pipefail

need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
command -v groff >/dev/null 2>&1 || need_apt+=(groff-base)
if ! command -v python3 >/dev/null 2>&1; then
    need_apt+=(python3 python3-pip python3-venv)
elif ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    # Debian's python3 comes without ensurepip, so `python3 -m venv` fails
    # until python3-venv is installed.
    need_apt+=(python3-venv)
fi
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
# The partition tests check outputs with the standard decompressors.
command -v zstd >/dev/null 2>&1 || need_apt+=(zstd)
command -v gzip >/dev/null 2>&1 || need_apt+=(gzip)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
    else
        sudo apt-get update -qq && sudo apt-get install -y -qq "${need_apt[@]}"
    fi
fi

if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    else
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c rustfmt,clippy
        export PATH="$HOME/.cargo/bin:$PATH"
    fi
fi
