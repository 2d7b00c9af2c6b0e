//! Gives the shared library a versioned soname on Linux, so a program linked
//! against an installed `libspool_c.so` records `libspool_c.so.0.1` (the
//! ABI it was built for) rather than the unversioned development symlink.
//! As with cargo-c, a 0.x version keeps its minor in the soname: before 1.0
//! every minor release may change the ABI. `scripts/install-c.sh` installs
//! the file under that name with the usual symlinks.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        let major = env!("CARGO_PKG_VERSION_MAJOR");
        let minor = env!("CARGO_PKG_VERSION_MINOR");
        let abi = if major == "0" {
            format!("{major}.{minor}")
        } else {
            major.to_string()
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libspool_c.so.{abi}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
