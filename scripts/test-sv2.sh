#!/usr/bin/env bash
# Stratum V2's codec (codec_sv2 7.x from crates.io) on spool's buffer_sv2
# (compat/buffer_sv2), switched in by one `[patch]` line:
#   1. the round trips of compat/sv2-tests (plain and Noise; small frames,
#      frames larger than the pool, 3,000 frames held past the decoder's
#      drop, frames on other threads, clones), built four ways: spool's
#      buffer_sv2 and crates.io's (compat/sv2-tests/real, the same sources
#      without the patch), each with codec_sv2's pool and with its heap
#      buffer. Every line must be the same in all four, except the cases
#      crates.io's pool cannot run, which it prints as `skipped`;
#   1b. codec_sv2 3.x (what roles_logic_sv2 5.x, network_helpers_sv2 4.x
#      and stratum-common 4.x use) on spool's buffer_sv2 2.x face
#      (compat/buffer_sv2-2) and on crates.io's buffer_sv2 2.0.0
#      (compat/sv2-tests/v2 and v2/real): frames dropped at once, 16 held,
#      one held through 100,000, 3,000 held, larger than the pool; the same
#      lines from both, and `cargo tree` showing spool's crates in use;
#   2. the clone-hazard test on both crates (it must find the hazard on
#      crates.io's and not on spool's);
#   3. codec_sv2's own unit tests and examples, from its crates.io package,
#      on spool's buffer_sv2 (compat/sv2-tests/codec_sv2-own);
#   4. Miri on the compat crate's contract tests and the pool's clone,
#      copy-on-write and truncation tests (nightly Miri, installed with
#      rustup if missing; SV2_MIRI=0 skips it). The property tests are left out
#      here to keep the script to a few minutes; under Miri they run a few
#      cases each and take about ten minutes apiece on two busy cores:
#      `cargo +nightly miri test -p buffer_sv2` and
#      `cargo +nightly miri test -p spool --test it -- pool_model::`.
# Installs nightly Miri if missing. Everything builds into target/sv2-tests (and target/miri).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

tests=compat/sv2-tests
bin=target/sv2-tests/release
out=target/sv2-tests/roundtrip
mkdir -p "$out"

echo "==> sv2 round trips: spool's buffer_sv2 and crates.io's, pool and heap"
for pool in "" with_buffer_pool; do
    for crate in spool real; do
        if [ "$crate" = spool ]; then dir=$tests exe=sv2-roundtrip; else dir=$tests/real exe=sv2-roundtrip-real; fi
        (cd "$dir" && cargo build --release --locked --bin "$exe" ${pool:+--features "$pool"})
        name="$crate-${pool:-heap}"
        "$bin/$exe" >"$out/$name.txt"
    done
done
reference=$out/spool-with_buffer_pool.txt
for name in spool-heap real-heap; do
    diff -u "$reference" "$out/$name.txt"
done
# crates.io's pool: every case it runs prints the same line.
grep -v ' skipped: ' "$out/real-with_buffer_pool.txt" >"$out/real-pool-ran.txt"
if grep -vxF -f "$reference" "$out/real-pool-ran.txt"; then
    echo "crates.io's buffer_sv2 pool printed the lines above differently" >&2
    exit 1
fi
echo "    $(wc -l <"$reference") cases the same on all four builds ($(grep -c ' skipped: ' "$out/real-with_buffer_pool.txt") skipped on crates.io's pool)"

echo "==> codec_sv2 3.x on spool's buffer_sv2 2.x face and on crates.io's buffer_sv2 2.0.0, pool"
# The heap buffer of the 2.x face is the 3.x face's, checked above; the
# pool builds are the ones that differ.
v2=$tests/v2
(cd "$v2" && cargo build --release --locked --bin sv2-roundtrip-v2 --features with_buffer_pool)
"$bin/sv2-roundtrip-v2" >"$out/v2-spool-pool.txt"
(cd "$v2/real" && cargo build --release --locked --bin sv2-roundtrip-v2-real --features with_buffer_pool)
"$bin/sv2-roundtrip-v2-real" >"$out/v2-real-pool.txt"
diff -u "$out/v2-real-pool.txt" "$out/v2-spool-pool.txt"
echo "    $(wc -l <"$out/v2-spool-pool.txt") cases the same on both"
# The switch is real: cargo resolves buffer_sv2 2.x to spool's face, whose
# items are the 3.x face's.
(cd "$v2" && cargo tree --locked -i buffer_sv2@2.0.0 --features with_buffer_pool) | head -1 | grep -F "compat/buffer_sv2-2)"
(cd "$v2" && cargo tree --locked -i buffer_sv2@3.0.1) | head -1 | grep -F "compat/buffer_sv2)"

echo "==> the clone hazard: present on crates.io's buffer_sv2, absent on spool's"
(cd "$tests" && cargo test --release --locked --test clone_hazard)
(cd "$tests/real" && cargo test --release --locked --test clone_hazard)

echo "==> codec_sv2's own tests and examples on spool's buffer_sv2"
own=$tests/codec_sv2-own
package=$(cd "$tests" && cargo metadata --locked --format-version 1 |
    python3 -c 'import json, sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"] == "codec_sv2"))')
package=$(dirname "$package")
rm -rf "$own/src" "$own/examples"
cp -r "$package/src" "$package/examples" "$own/"
for features in noise_sv2 noise_sv2,with_buffer_pool; do
    (cd "$own" && cargo test --locked --features "$features")
    for example in unencrypted encrypted; do
        (cd "$own" && cargo run --locked --features "$features" --example "$example")
    done
done

# Miri comes with the nightly toolchain as a component; install it unless
# told not to (SV2_MIRI=0).
if [ "${SV2_MIRI:-1}" != 0 ] && ! cargo +nightly miri --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal --component miri,rust-src
fi
if [ "${SV2_MIRI:-1}" != 0 ]; then
    echo "==> Miri: buffer_sv2's contract and the pool's clones, copy on write, truncation"
    # Isolation off: proptest reads the working directory for its
    # regression files.
    export MIRIFLAGS="-Zmiri-disable-isolation"
    cargo +nightly miri test --locked -p buffer_sv2 --test contract -- --skip keeps_the_contract
    cargo +nightly miri test --locked -p spool --test it -- pool::clone pool::truncate pool::copy pool::dropped_before
else
    echo "==> Miri skipped (SV2_MIRI=0)"
fi
echo "==> sv2 tests passed"
