//! What the `--append` tests share: the `spool` binary, shard inputs,
//! an appending run, and the check of a whole dataset against its inputs
//! (every record once, per-key order within a run, files = manifests).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub use super::spool;

/// Shard `shard`'s input: `lines` records `SHARD-SEQ<TAB>kKEY<TAB>payload`.
pub fn write_shard(path: &Path, shard: usize, keys: usize, lines: usize) {
    let text: String = (0..lines)
        .map(|i| format!("{shard}-{i}\tk{}\tp{}\n", (i * 7919 + shard) % keys, i * 31))
        .collect();
    std::fs::write(path, text).unwrap();
}

pub fn append(input: &Path, out: &Path, id: &str, extra: &[&str]) -> Command {
    let mut cmd = spool();
    cmd.args(["partition", "-q", "--by", "2", "--threads", "2", "--append"])
        .args(["--run-id", id])
        .args(extra)
        .arg("--out")
        .arg(out)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A text file's records, decompressed by its extension.
pub fn read_text(path: &Path) -> Vec<String> {
    let raw = std::fs::read(path).unwrap();
    let mut text = String::new();
    match path.extension().and_then(|e| e.to_str()) {
        Some("zst") => zstd::Decoder::new(&raw[..])
            .unwrap()
            .read_to_string(&mut text)
            .unwrap(),
        Some("gz") => flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_string(&mut text)
            .unwrap(),
        _ => {
            text = String::from_utf8(raw).unwrap();
            0
        }
    };
    text.lines().map(str::to_owned).collect()
}

/// Every `path` and `records` column of every `_partitions*.tsv` in `out`.
pub fn manifest_rows(out: &Path) -> BTreeMap<PathBuf, u64> {
    let mut rows = BTreeMap::new();
    for entry in std::fs::read_dir(out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !(name.starts_with("_partitions") && name.ends_with(".tsv")) {
            continue;
        }
        let text = std::fs::read_to_string(out.join(&name)).unwrap();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split('\t').collect();
            let previous = rows.insert(PathBuf::from(fields[2]), fields[3].parse().unwrap());
            assert!(previous.is_none(), "{} listed twice", fields[2]);
        }
    }
    rows
}

/// Every file under `out` but the top level's `_`-names, relative.
pub fn data_files(out: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, root: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if dir == root && path.file_name().unwrap().to_string_lossy().starts_with('_') {
                continue;
            }
            if path.is_dir() {
                walk(&path, root, found);
            } else {
                found.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut found = Vec::new();
    walk(out, out, &mut found);
    found.sort();
    found
}

/// Checks the dataset against the shards it was written from: every
/// record once, per-key input order within each run, files = manifests,
/// no staging or lock left.
pub fn check_dataset(out: &Path, shards: &[(PathBuf, String)]) {
    let rows = manifest_rows(out);
    let files = data_files(out);
    assert_eq!(
        files,
        rows.keys().cloned().collect::<Vec<_>>(),
        "files under the output = files the manifests list"
    );
    let mut got = Vec::new();
    for (rel, &records) in &rows {
        let lines = read_text(&out.join(rel));
        assert_eq!(lines.len() as u64, records, "{}", rel.display());
        // One run per file, and its records in input order.
        let seqs: Vec<(usize, usize)> = lines
            .iter()
            .map(|l| {
                let (shard, seq) = l.split('\t').next().unwrap().split_once('-').unwrap();
                (shard.parse().unwrap(), seq.parse().unwrap())
            })
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0].0 == w[1].0 && w[0].1 < w[1].1),
            "{}",
            rel.display()
        );
        got.extend(lines);
    }
    let mut want: Vec<String> = shards
        .iter()
        .flat_map(|(input, _)| {
            std::fs::read_to_string(input)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got.len(), want.len(), "records in = records out");
    assert!(got == want, "every input record exactly once");
    let leftovers: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("_staging-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
