# Sourced by the fuzz scripts: cargo-fuzz on PATH (installed if missing)
# and `toolchain`, the cargo arguments that give it nightly compiler flags
# — the nightly toolchain when installed, otherwise stable with
# RUSTC_BOOTSTRAP=1. Use as: cargo "${toolchain[@]}" fuzz ...
export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    toolchain=()
    export RUSTC_BOOTSTRAP=1
fi
