//! `cargo xtask msrv`: every member that states a `rust-version` built
//! (`cargo check`, libraries and binaries, every feature, the committed
//! lock file) with exactly that toolchain, so the stated minimum is one
//! that was seen to work.
//!
//! The versions are stated once, in the manifests: the workspace's
//! `rust-version` for the crates that inherit it, a crate's own where it
//! differs (the core and the `buffer_sv2` compat crates reach further back
//! for Stratum V2 users; the bench crate's peers need a newer one). Tests
//! and benches are not part of the promise: their dev-dependencies
//! (criterion, proptest) follow their own minimums. Each toolchain builds
//! into its own target folder (`target/msrv-VERSION`), installed by rustup
//! when missing.

use std::collections::BTreeMap;

use crate::run::{cargo, program, Failed, Result};

pub fn msrv() -> Result {
    let mut by_version: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let workspace = read("Cargo.toml")?;
    let inherited = value(&workspace, "rust-version");
    for manifest in member_manifests()? {
        let text = read(&manifest)?;
        let Some(name) = value(&text, "name") else {
            continue;
        };
        let version = if text.contains("rust-version.workspace = true") {
            inherited.clone()
        } else {
            value(&text, "rust-version")
        };
        if let Some(version) = version {
            by_version.entry(version).or_default().push(name);
        }
    }
    if by_version.is_empty() {
        return Err(Failed("no member states a rust-version".into()));
    }
    for (version, packages) in &by_version {
        eprintln!("==> rust {version}: {}", packages.join(", "));
        install(version)?;
        let toolchain = format!("+{version}");
        let target = format!("target/msrv-{version}");
        let mut args = vec![
            toolchain.as_str(),
            "check",
            "--locked",
            "--all-features",
            "--lib",
            "--bins",
        ];
        for p in packages {
            args.extend(["-p", p.as_str()]);
        }
        // `cargo +VERSION` needs rustup's cargo, not the one running us.
        program("cargo", &args)
            .env("CARGO_TARGET_DIR", &target)
            .status_ok()?;
    }
    Ok(())
}

/// The toolchain `version`, installed by rustup (its minimal profile)
/// when missing.
pub fn install(version: &str) -> Result {
    program(
        "rustup",
        &["toolchain", "install", version, "--profile", "minimal"],
    )
    .status_ok()
}

/// The `rust-version` one member's manifest states of its own.
pub fn stated(manifest: &str) -> Result<String> {
    value(&read(manifest)?, "rust-version")
        .ok_or_else(|| Failed(format!("{manifest} states no rust-version of its own")))
}

fn read(path: &str) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Failed(format!("{path}: {e}")))
}

/// The workspace members' manifests, from `cargo metadata`.
fn member_manifests() -> Result<Vec<String>> {
    let metadata = cargo(&["metadata", "--no-deps", "--format-version", "1"]).output()?;
    let key = "\"manifest_path\":\"";
    Ok(metadata
        .match_indices(key)
        .filter_map(|(at, _)| {
            let rest = &metadata[at + key.len()..];
            Some(rest[..rest.find('"')?].to_owned())
        })
        .collect())
}

/// The first `KEY = "VALUE"` line's value (the manifests keep `name` and
/// `rust-version` on lines of their own, in their first table).
fn value(manifest: &str, key: &str) -> Option<String> {
    manifest.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(key)?.trim_start();
        let quoted = rest.strip_prefix('=')?.trim();
        Some(quoted.strip_prefix('"')?.strip_suffix('"')?.to_owned())
    })
}
