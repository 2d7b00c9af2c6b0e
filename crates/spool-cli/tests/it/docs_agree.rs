//! The documentation says what the code does: each test reads a doc and
//! the behaviour it describes, and fails when one changes without the other.

use std::path::PathBuf;

use crate::support::Dir;

use crate::support::spool;

/// A file of the repository, by its path from the top.
fn repo_file(path: &str) -> String {
    let full = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The paragraph or list item of `text` that contains `needle`, joined
/// into one line.
fn passage(text: &str, needle: &str) -> String {
    let at = text.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    let start = text[..at].rfind("\n\n").map_or(0, |i| i + 2);
    let start = text[start..at]
        .rfind("\n* ")
        .map_or(start, |i| start + i + 1);
    let end = at + text[at..].find("\n\n").unwrap_or(text.len() - at);
    let end = text[at..end].find("\n* ").map_or(end, |i| at + i);
    text[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn manifest_columns_are_the_documented_ones() {
    let dir = Dir::new("docs-manifest");
    let input = dir.0.join("in.tsv");
    std::fs::write(&input, "a\t1\nb\t2\n").unwrap();
    let out = dir.0.join("out");
    let status = spool()
        .args(["partition", "-q", "--by", "1", "--out"])
        .arg(&out)
        .arg(&input)
        .status()
        .unwrap();
    assert!(status.success());
    let manifest = std::fs::read_to_string(out.join("_partitions.tsv")).unwrap();
    let header: Vec<&str> = manifest.lines().next().unwrap().split('\t').collect();
    let docs = passage(
        &repo_file("docs/partition.md"),
        "`OUT/_partitions.tsv` lists",
    );
    let mut at = 0;
    for column in &header {
        let name = format!("`{column}`");
        let found = docs[at..].find(&name);
        assert!(found.is_some(), "{name} (in order) missing from: {docs}");
        at += found.unwrap() + name.len();
    }
}

#[test]
fn delimiter_help_and_docs_list_every_accepted_name() {
    // The names come from the parser's own error message...
    let out = spool()
        .args([
            "partition",
            "--by",
            "1",
            "--out",
            "x",
            "--delimiter",
            "no-such",
            "-",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let list = &err[err.find("use ").expect(&err) + 4..err.find(" or one").expect(&err)];
    let names: Vec<&str> = list.split(", ").collect();
    assert!(names.len() >= 5, "{err}");
    let help = spool().args(["partition", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let help = passage(&help, "Field delimiter");
    let docs = passage(&repo_file("docs/partition.md"), "| `-d, --delimiter` |");
    let dir = Dir::new("docs-delimiter");
    let input = dir.0.join("in.txt");
    std::fs::write(&input, "a\n").unwrap();
    for name in names {
        // ...each is accepted, and both the help and the docs name it.
        let ok = spool()
            .args(["partition", "-q", "--by", "1", "--delimiter", name, "--out"])
            .arg(dir.0.join(name))
            .arg(&input)
            .output()
            .unwrap();
        assert!(ok.status.success(), "--delimiter {name}");
        assert!(help.contains(name), "--help does not name {name}: {help}");
        assert!(
            docs.contains(&format!("`{name}`")),
            "docs do not name {name}: {docs}"
        );
    }
}

#[test]
fn readme_lists_the_ci_steps_in_their_order() {
    let run = repo_file(".ci/run");
    // A step is a script (`scripts/…`) or a `cargo xtask` job with its
    // arguments.
    let steps: Vec<String> = run
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| match l.find("cargo xtask") {
            Some(at) => Some(l[at..].trim().to_string()),
            None => l
                .split_whitespace()
                .find(|w| w.starts_with("scripts/"))
                .map(str::to_string),
        })
        .collect();
    assert!(steps.len() >= 4, "{steps:?}");
    let readme = passage(&repo_file("README.md"), "CI (`.ci/run`) runs");
    let mut at = 0;
    for step in steps {
        let name = format!("`{step}`");
        let found = readme[at..].find(&name);
        assert!(
            found.is_some(),
            "{name} missing or out of order in: {readme}"
        );
        at += found.unwrap() + name.len();
    }
}
