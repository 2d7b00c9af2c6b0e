//! Which format a file holds: Parquet, NDJSON or delimited text, from
//! its first bytes and its name.
//!
//! Content decides where it can: a Parquet file starts with `PAR1`, which
//! no text file a user means as text does. Then the name (after a `.gz`,
//! `.zst` or `.zstd` suffix): `.parquet`/`.pq`, `.ndjson`/`.jsonl`/`.json`,
//! `.csv`/`.tsv`/`.txt`. Then content again: a first byte (after white
//! space) of `{` is a JSON object. Anything else is delimited text, read
//! in the dialect the options give (`--delimiter`, `--quote`), as before
//! formats were detected. Compressed files are looked at decompressed.

use std::io::Read;
use std::path::Path;

use super::SourceFormat;

/// Bytes looked at: enough for white space before a first `{`.
const HEAD: usize = 256;

/// What `path`'s first bytes and its name say it holds. Only a regular
/// file is looked into: a named pipe's bytes would be gone once read, so
/// its name alone decides. A file that cannot be opened or read (missing,
/// a corrupt compressed file) is left for the run to report where it
/// reads it: what could be read decides.
pub(crate) fn detect(path: &Path) -> SourceFormat {
    let mut head = Vec::with_capacity(HEAD);
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if let Some(input) = regular.then(|| spool_io::input::open(path).ok()).flatten() {
        let _ = input.take(HEAD as u64).read_to_end(&mut head);
    }
    from_head_and_name(&head, path)
}

/// [`detect`] on bytes already read.
pub(crate) fn from_head_and_name(head: &[u8], path: &Path) -> SourceFormat {
    if head.starts_with(b"PAR1") {
        return SourceFormat::Parquet;
    }
    if let Some(format) = from_name(path) {
        return format;
    }
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => SourceFormat::Ndjson,
        _ => SourceFormat::Text,
    }
}

/// The format a file's name says, after any compression suffix.
fn from_name(path: &Path) -> Option<SourceFormat> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = [".gz", ".zst", ".zstd"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(&name);
    let extension = name.rsplit_once('.')?.1;
    match extension {
        "parquet" | "pq" => Some(SourceFormat::Parquet),
        "ndjson" | "jsonl" | "json" => Some(SourceFormat::Ndjson),
        "csv" | "tsv" | "txt" => Some(SourceFormat::Text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_then_name_then_content() {
        let f = |head: &[u8], name: &str| from_head_and_name(head, Path::new(name));
        assert_eq!(f(b"PAR1\x15\x04", "x.csv"), SourceFormat::Parquet);
        assert_eq!(f(b"a,b\n", "x.parquet"), SourceFormat::Parquet);
        assert_eq!(f(b"{\"a\":1}", "x.csv"), SourceFormat::Text);
        assert_eq!(f(b"{\"a\":1}", "x.jsonl.gz"), SourceFormat::Ndjson);
        assert_eq!(f(b"  \n{\"a\":1}", "events"), SourceFormat::Ndjson);
        assert_eq!(f(b"a\tb\n", "events.log"), SourceFormat::Text);
        assert_eq!(f(b"", "empty"), SourceFormat::Text);
    }
}
