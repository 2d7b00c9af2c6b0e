#!/usr/bin/env bash
# The C++ benchmark: the CS144 lab's reassembler and byte-stream speed tests
# through spool's C++ wrapper, next to a naive std::map / std::string
# implementation and the copy and harness floors (bindings/cpp/bench).
# Builds the C library and the benchmark optimised, then runs it:
#   scripts/bench-cpp.sh            full run (30 rounds per case)
#   scripts/bench-cpp.sh --short    3 rounds: checks every output, for the tests
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --release --locked -p spool-c
out=target/c-cpp-bench
mkdir -p "$out"
c++ -std=c++20 -O2 -DNDEBUG -Wall -Wextra -Werror -Ibindings/c/include -Ibindings/cpp \
    bindings/cpp/bench/bench_spool.cpp target/release/libspool_c.a -lpthread -ldl -lm \
    -o "$out/bench_spool"
"$out/bench_spool" "$@"
