#!/usr/bin/env bash
# Installs what spool's demo and tests need on a fresh machine: a Rust
# toolchain, a C/C++ compiler with CMake, Python with pytest and maturin,
# and the zstd and gzip tools.
# Safe to run again: every step checks first.
set -euo pipefail

need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3 python3-pip python3-venv)
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
