#!/usr/bin/env bash
# Builds spool's C library (crate bindings/c) and installs it under PREFIX:
#
#   PREFIX/lib/libspool_c.a                   static library
#   PREFIX/lib/libspool_c.so.X.Y.Z            shared library (soname .so.0.Y
#   PREFIX/lib/libspool_c.so.0.Y, .so           before 1.0) and its symlinks
#   PREFIX/include/spool/spool.h              C header
#   PREFIX/include/spool/spool.hpp            header-only C++20 wrapper
#   PREFIX/lib/pkgconfig/spool.pc             for pkg-config
#   PREFIX/lib/cmake/spool/spoolConfig*.cmake for CMake's find_package(spool)
#
# Usage: scripts/install-c.sh [--no-build] PREFIX   (e.g. $HOME/.local)
#
# --no-build installs the library that `cargo build --release --locked -p
# spool-c` already built, for installing as root into a system prefix
# without building as root (and without cargo on root's PATH):
#   cargo build --release --locked -p spool-c
#   sudo scripts/install-c.sh --no-build /usr/local
# Installed by root into /usr or /usr/local (no DESTDIR), it refreshes the
# loader's cache (ldconfig) so programs find the new library at once.
# DESTDIR, if set, is put in front of every installed path (for packaging);
# the files still name PREFIX. Linux only, for now.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

build=1
if [ "${1:-}" = --no-build ]; then
    build=0
    shift
fi
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 [--no-build] PREFIX   (e.g. $0 \$HOME/.local)" >&2
    exit 2
fi
case "$1" in
    /*) prefix="${1%/}" ;;
    *) echo "install-c.sh: PREFIX must be an absolute path, not '$1'" >&2; exit 2 ;;
esac
if [ "$(uname -s)" != Linux ]; then
    echo "install-c.sh: only Linux is supported so far (this is $(uname -s))" >&2
    exit 2
fi

if [ "$build" = 1 ]; then
    cargo build --release --locked -p spool-c
fi
for built in target/release/libspool_c.a target/release/libspool_c.so; do
    if [ ! -f "$built" ]; then
        echo "install-c.sh: $built is missing: run cargo build --release --locked -p spool-c" >&2
        exit 1
    fi
done
# The version is the workspace's (bindings/c inherits it).
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
case "$version" in
    0.*) abi=$(echo "$version" | cut -d. -f1,2) ;;
    *) abi=$(echo "$version" | cut -d. -f1) ;;
esac

dest="${DESTDIR:-}$prefix"
lib="$dest/lib"
include="$dest/include/spool"
install -d "$lib/pkgconfig" "$lib/cmake/spool" "$include"
install -m 644 target/release/libspool_c.a "$lib/libspool_c.a"
install -m 755 target/release/libspool_c.so "$lib/libspool_c.so.$version"
ln -sfn "libspool_c.so.$version" "$lib/libspool_c.so.$abi"
ln -sfn "libspool_c.so.$abi" "$lib/libspool_c.so"
install -m 644 bindings/c/include/spool.h bindings/cpp/spool.hpp "$include/"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" \
    bindings/c/spool.pc.in >"$lib/pkgconfig/spool.pc"
install -m 644 bindings/c/cmake/spoolConfig.cmake "$lib/cmake/spool/spoolConfig.cmake"
sed -e "s|@VERSION@|$version|g" \
    bindings/c/cmake/spoolConfigVersion.cmake.in >"$lib/cmake/spool/spoolConfigVersion.cmake"

case "$prefix" in
    /usr | /usr/local)
        if [ "$(id -u)" = 0 ] && [ -z "${DESTDIR:-}" ] && command -v ldconfig >/dev/null 2>&1; then
            ldconfig
        fi
        ;;
esac
echo "installed spool $version (C library, C/C++ headers, pkg-config, CMake) under $dest"
