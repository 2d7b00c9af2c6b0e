//! `cargo xtask lint`: formatting, clippy and rustdoc, warnings denied,
//! and the published crates packaged as crates.io would take them (the
//! core built from its package with the oldest toolchain it promises).

use crate::run::{cargo, program, Result};

/// `undocumented_unsafe_blocks` is also a workspace lint; naming it here
/// keeps it on for a crate that has not opted into the workspace lints.
const CLIPPY_DENY: [&str; 5] = [
    "--",
    "-D",
    "warnings",
    "-D",
    "clippy::undocumented_unsafe_blocks",
];

pub fn lint() -> Result {
    // Installed by rustup when missing; a toolchain without rustup has
    // them or fails below, saying so.
    let _ = program("rustup", &["component", "add", "rustfmt", "clippy"]).output();
    cargo(&["fmt", "--all", "--", "--check"]).status_ok()?;
    cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--locked",
    ])
    .args(CLIPPY_DENY)
    .status_ok()?;
    // The core without the standard library (`#![no_std]` + `alloc`): a
    // std-only item used outside the `std` feature fails here, not in a
    // user's firmware.
    cargo(&["clippy", "-p", "spool", "--no-default-features", "--locked"])
        .args(CLIPPY_DENY)
        .status_ok()?;
    cargo(&[
        "doc",
        "--workspace",
        "--all-features",
        "--no-deps",
        "--locked",
    ])
    .env("RUSTDOCFLAGS", "-D warnings")
    .status_ok()?;
    package()
}

/// The crates published to crates.io, in dependency order. `spool-cli`
/// is published with `cargo hakari publish` (which takes out its
/// dependency on the unpublished `spool-workspace-hack`), so plain
/// packaging cannot take it.
const PUBLISHED: [&str; 6] = [
    "spool",
    "spool-io",
    "spool-pwned",
    "spool-download",
    "spool-partition",
    "spool-serve",
];

/// What `cargo publish --dry-run` checks before it builds: every
/// dependency has a version crates.io can resolve (the workspace's own
/// crates from the packages made here), every manifest field and file the
/// package names is there. The package of the core, whose dependencies
/// are few, is also built from its own files (a file the package leaves
/// out fails here) with the oldest toolchain its manifest promises, so
/// that promise is checked on every change; the others' builds would each
/// compile Arrow or hyper again (`cargo xtask msrv` checks them).
fn package() -> Result {
    let mut args = vec!["package", "--locked", "--allow-dirty", "--no-verify"];
    for crate_name in PUBLISHED {
        args.extend(["-p", crate_name]);
    }
    cargo(&args).status_ok()?;
    let version = crate::msrv::stated("crates/spool/Cargo.toml")?;
    crate::msrv::install(&version)?;
    // `cargo +VERSION` needs rustup's cargo, not the one running us.
    program(
        "cargo",
        &[
            &format!("+{version}"),
            "package",
            "--locked",
            "--allow-dirty",
            "-p",
            "spool",
        ],
    )
    .env("CARGO_TARGET_DIR", format!("target/msrv-{version}"))
    .status_ok()
}
