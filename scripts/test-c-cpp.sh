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

# The install as users get it (scripts/install-c.sh, README "Install"): into
# a temporary prefix, then a C program built with pkg-config against the
# shared library and a CMake project using find_package(spool) for the C++
# wrapper and the static library.
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
bash scripts/install-c.sh "$prefix"
installed="$out/installed"
rm -rf "$installed"
mkdir -p "$installed"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's output is a list of flags
cc -std=c11 -Wall -Wextra -Werror bindings/c/tests/install/hello.c \
    $(pkg-config --cflags --libs spool) -Wl,-rpath,"$prefix/lib" -o "$installed/hello_c"
test "$("$installed/hello_c")" = "hello, world"
# Linked to the installed shared library by its versioned soname.
soname=$(readelf -d "$prefix/lib/libspool_c.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
test -L "$prefix/lib/$soname"
# grep reads all its input (no -q): under pipefail, a grep that quits at
# the first match can kill the writer with SIGPIPE and fail the pipeline.
readelf -d "$installed/hello_c" | grep "Shared library: \[$soname\]" >/dev/null
ldd "$installed/hello_c" | grep "$prefix/lib/$soname" >/dev/null

cmake -S bindings/c/tests/install -B "$installed/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$installed/cmake" >/dev/null
ctest --test-dir "$installed/cmake" --output-on-failure
readelf -d "$installed/cmake/hello_cpp" | grep "Shared library: \[$soname\]" >/dev/null
if readelf -d "$installed/cmake/hello_c_static" | grep libspool_c >/dev/null; then
    echo "hello_c_static links libspool_c dynamically" >&2
    exit 1
fi
echo "==> C library installed, found by pkg-config and CMake, and used"

bash scripts/bench-cpp.sh --short
