//! Running commands: each printed before it runs, a failure reported with
//! the command and its exit status.

use std::fmt;
use std::path::PathBuf;
use std::process::Command;

/// A job's outcome: the first failure, said in one line.
pub type Result<T = ()> = std::result::Result<T, Failed>;

/// A command that did not succeed, or a job that could not go on.
#[derive(Debug)]
pub struct Failed(pub String);

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Changes to the workspace's root (the folder above this crate), so every
/// job sees the same relative paths wherever `cargo xtask` was run.
pub fn to_workspace_root() -> std::io::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is a folder of the workspace")
        .to_path_buf();
    std::env::set_current_dir(root)
}

/// A command to run, printed before it runs.
pub struct Job {
    command: Command,
    /// The program as printed: `cargo` rather than the path of the cargo
    /// that runs this job.
    name: String,
}

/// `cargo ARGS`, with the same cargo that runs this job.
pub fn cargo(args: &[&str]) -> Job {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(args);
    Job {
        command,
        name: "cargo".into(),
    }
}

/// `program ARGS`.
pub fn program(program: &str, args: &[&str]) -> Job {
    let mut command = Command::new(program);
    command.args(args);
    Job {
        command,
        name: program.into(),
    }
}

impl Job {
    /// More arguments.
    pub fn args<S: AsRef<std::ffi::OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.command.args(args);
        self
    }

    /// An environment variable for the command.
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    /// Runs in `dir` (relative to the workspace root).
    pub fn dir(mut self, dir: &str) -> Self {
        self.command.current_dir(dir);
        self
    }

    fn line(&self) -> String {
        let mut line = self.name.clone();
        for arg in self.command.get_args() {
            line.push(' ');
            line.push_str(&arg.to_string_lossy());
        }
        line
    }

    /// Runs it, its output going to this process's; fails unless it exits 0.
    pub fn status_ok(mut self) -> Result {
        let line = self.line();
        eprintln!("==> {line}");
        let status = self
            .command
            .status()
            .map_err(|e| Failed(format!("{line}: {e}")))?;
        if status.success() {
            Ok(())
        } else {
            Err(Failed(format!("{line}: {status}")))
        }
    }

    /// Runs it quietly and returns its standard output; fails unless it
    /// exits 0.
    pub fn output(mut self) -> Result<String> {
        let line = self.line();
        let out = self
            .command
            .output()
            .map_err(|e| Failed(format!("{line}: {e}")))?;
        if !out.status.success() {
            return Err(Failed(format!(
                "{line}: {}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}
