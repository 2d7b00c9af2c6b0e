//! What the CSV tests share: running `spool partition` on a CSV input
//! and reading back every file it wrote.

use std::path::Path;
use std::process::Output;

use super::Dir;

pub use super::spool;

/// Runs `spool partition ARGS -o OUT INPUT -q` on `input`; returns the
/// output and the output directory.
pub fn partition(
    dir: &Dir,
    name: &str,
    input: &[u8],
    args: &[&str],
) -> (Output, std::path::PathBuf) {
    let path = dir.0.join(format!("{name}.csv"));
    std::fs::write(&path, input).unwrap();
    let out = dir.0.join(format!("out-{name}"));
    let output = spool()
        .arg("partition")
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg(&path)
        .arg("-q")
        .output()
        .unwrap();
    (output, out)
}

/// Every output file (relative path, contents), sorted, manifest aside.
pub fn files(out: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut stack = vec![out.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().unwrap() != "_partitions.tsv" {
                let rel = path.strip_prefix(out).unwrap().display().to_string();
                found.push((
                    rel,
                    String::from_utf8(std::fs::read(&path).unwrap()).unwrap(),
                ));
            }
        }
    }
    found.sort();
    found
}

pub fn assert_ok(output: &Output) {
    assert!(
        output.status.success(),
        "status {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}
