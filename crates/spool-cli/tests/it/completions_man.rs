//! `spool completions` and `spool man`: the generated scripts and pages
//! exist, are well-formed for their tools, and name the subcommands and
//! options `spool --help` lists (read from the binary, so the checks follow
//! the command line as it changes).

use std::process::{Command, Output, Stdio};

use crate::support::Dir;

fn spool(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "spool {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(args: &[&str]) -> String {
    String::from_utf8(spool(args).stdout).unwrap()
}

/// The subcommands `spool --help` lists under "Commands:", `help` aside.
fn subcommands() -> Vec<String> {
    let help = stdout(&["--help"]);
    let list = help
        .split("Commands:\n")
        .nth(1)
        .expect("spool --help lists its commands");
    let names: Vec<String> = list
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    for expected in ["partition", "pwned", "completions", "man"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    names
}

/// Names every completion script and page must mention besides the
/// top-level subcommands: nested subcommands and long options.
const NESTED: &[&str] = &["build", "check", "--memory", "--max-open", "--output"];

#[test]
fn completions_name_every_subcommand_and_option() {
    let subcommands = subcommands();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&["completions", shell]);
        for name in subcommands
            .iter()
            .map(String::as_str)
            .chain(NESTED.iter().copied())
        {
            // fish names a long option `-l memory`.
            let fish = format!("-l {}", name.trim_start_matches("--"));
            assert!(
                script.contains(name) || script.contains(&fish),
                "{shell} completions lack {name}"
            );
        }
    }
}

#[test]
fn bash_completion_script_parses_and_registers() {
    let dir = Dir::new("completions-bash");
    let path = dir.0.join("spool.bash");
    std::fs::write(&path, stdout(&["completions", "bash"])).unwrap();
    // Source it in a fresh bash and ask which function completes `spool`.
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p spool", path.display()))
        .output()
        .expect("bash runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("-F _spool") && said.trim_end().ends_with(" spool"),
        "{said}"
    );
}

#[test]
fn unknown_shell_is_refused_with_the_choices() {
    let out = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'tcsh'") && err.contains("bash"),
        "{err}"
    );
}

#[test]
fn man_page_of_spool_lists_every_subcommand_page() {
    let page = stdout(&["man"]);
    assert!(page.contains(".TH spool 1  \"spool "), "{page}");
    assert!(page.contains(".SH SUBCOMMANDS"));
    for name in subcommands() {
        assert!(
            page.contains(&format!("spool\\-{name}(1)")),
            "spool.1 lacks spool-{name}(1)"
        );
    }
}

#[test]
fn man_page_of_a_nested_subcommand_documents_its_options() {
    let page = stdout(&["man", "pwned", "build"]);
    assert!(page.contains(".TH spool-pwned-build 1  \"spool "), "{page}");
    for option in ["\\-\\-output", "\\-\\-memory", "\\-\\-threads"] {
        assert!(page.contains(option), "spool-pwned-build.1 lacks {option}");
    }
}

#[test]
fn man_dir_writes_one_complete_page_per_command() {
    let dir = Dir::new("man-dir");
    let out = dir.0.join("man1");
    spool(&["man", "--dir", out.to_str().unwrap()]);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut expected: Vec<String> = subcommands()
        .iter()
        .map(|s| format!("spool-{s}.1"))
        .chain(["spool.1", "spool-pwned-build.1", "spool-pwned-check.1"].map(String::from))
        .collect();
    expected.sort();
    // Every command's page is there, and no temporary file is left behind.
    for name in &expected {
        assert!(names.contains(name), "{name} missing from {names:?}");
    }
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".1") && !n.starts_with('.')),
        "{names:?}"
    );
    let page = std::fs::read_to_string(out.join("spool-partition.1")).unwrap();
    assert!(page.contains(".TH spool-partition 1  \"spool ") && page.contains("\\-\\-max\\-open"));
}

#[test]
fn man_pages_render_without_warnings() {
    let Ok(probe) = Command::new("groff").arg("--version").output() else {
        eprintln!("groff not installed: rendering not checked");
        return;
    };
    assert!(probe.status.success());
    for args in [
        &["man"][..],
        &["man", "partition"],
        &["man", "pwned", "check"],
    ] {
        let page = spool(args).stdout;
        let mut groff = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut groff.stdin.take().unwrap(), &page).unwrap();
        let out = groff.wait_with_output().unwrap();
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && warnings.is_empty(),
            "spool {args:?}: {warnings}"
        );
    }
}

#[test]
fn man_for_an_unknown_subcommand_names_the_choices() {
    let out = Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["man", "pwned", "nosuch"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("spool-pwned has no subcommand \"nosuch\"")
            && err.contains("build, convert, check"),
        "{err}"
    );
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    for args in [&["man"][..], &["completions", "bash"]] {
        // `spool man | head -0`: the pipe is closed before spool writes.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_spool"))
            .args(args)
            .stdout(writer)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && err.is_empty(),
            "spool {args:?}: {err}"
        );
    }
}
