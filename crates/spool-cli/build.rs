//! Link options of the executables.
//!
//! The loader reads an executable's relative relocations in full at
//! start-up, and a position-independent Rust executable has one for every
//! pointer in its read-only data (vtables, string tables): stored one
//! 24-byte entry each, they are resident memory of every command, however
//! small its work. Packed (`DT_RELR`, a few bitmaps), they are not. A
//! linker or C library without `DT_RELR` support ignores the request.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.ends_with("-linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
