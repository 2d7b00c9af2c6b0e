#!/usr/bin/env bash
# C and C++ tests: builds the C ABI library, then the C test and the C++
# wrapper's tests with AddressSanitizer and UndefinedBehaviorSanitizer, then
# the C++ benchmark in its short mode (every peer's output checked; the
# full run is scripts/bench-cpp.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --release --locked -p spool-c
lib=target/release/libspool_c.a
out=target/c-cpp-tests
mkdir -p "$out"
san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
links=(-lpthread -ldl -lm)

cc -std=c11 -Wall -Wextra -Werror "${san[@]}" -Ibindings/c/include \
    bindings/c/tests/test_stream.c "$lib" "${links[@]}" -o "$out/test_stream_c"
"$out/test_stream_c"

c++ -std=c++20 -Wall -Wextra -Werror "${san[@]}" -Ibindings/c/include -Ibindings/cpp \
    bindings/cpp/tests/test_spool.cpp "$lib" "${links[@]}" -o "$out/test_spool_cpp"
"$out/test_spool_cpp"

bash scripts/bench-cpp.sh --short
