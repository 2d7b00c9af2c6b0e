//! `cargo xtask deny`: cargo-deny's checks of the dependency graph, as
//! `deny.toml` configures them — licenses, duplicate versions, sources,
//! and advisories when its database can be fetched (it is on GitHub,
//! which some machines cannot reach: then the run says so and checks the
//! other three). Installs cargo-deny when it is missing (a build of
//! several minutes).

use crate::run::{cargo, program, Result};

pub fn deny() -> Result {
    if program("cargo-deny", &["--version"]).output().is_err() {
        cargo(&["install", "cargo-deny", "--locked"]).status_ok()?;
    }
    if cargo(&["deny", "fetch", "db"]).status_ok().is_ok() {
        return cargo(&["deny", "check"]).status_ok();
    }
    eprintln!("==> the advisory database could not be fetched: advisories NOT checked");
    cargo(&["deny", "check", "licenses", "bans", "sources"]).status_ok()
}
