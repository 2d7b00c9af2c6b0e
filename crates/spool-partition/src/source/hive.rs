//! The keys a hive-partitioned dataset keeps in its directory names
//! (`ROOT/year=2026/month=05/part-0.parquet`), as columns of the records
//! read from its files: re-partitioning such a dataset by another column
//! keeps the old keys.
//!
//! Only the directories between the input's root (the directory given,
//! or a glob's directory part) and the file count, so a dataset's own
//! location (`/data/run=3/out/…` given as `/data/run=3/out`) adds nothing.
//! Values are unescaped as the writers escape them (`%2F`), and Hive's
//! `__HIVE_DEFAULT_PARTITION__` is the empty (null) value.

use std::path::Path;

use crate::escape::unescape;

/// The `NAME=VALUE` directories of `path` below `root`, outermost first.
pub(crate) fn keys(path: &Path, root: &Path) -> Vec<(String, Vec<u8>)> {
    let Some(dirs) = path.parent().and_then(|p| p.strip_prefix(root).ok()) else {
        return Vec::new();
    };
    (dirs.components())
        .filter_map(|part| {
            let part = part.as_os_str().to_str()?;
            let (name, value) = part.split_once('=')?;
            if name.is_empty() {
                return None;
            }
            // `__HIVE_DEFAULT_PARTITION__` unescapes to the empty value.
            let value = unescape(value).unwrap_or_else(|| value.as_bytes().to_vec());
            let name = (unescape(name).and_then(|n| String::from_utf8(n).ok()))
                .unwrap_or_else(|| name.to_owned());
            Some((name, value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_below_the_root_only() {
        let root = Path::new("/data/run=3/out");
        let file = root
            .join("year=2026/city=S%C3%A3o%2FPaulo/other/k=__HIVE_DEFAULT_PARTITION__/p.parquet");
        let keys = keys(&file, root);
        let keys: Vec<(&str, &[u8])> = keys
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_slice()))
            .collect();
        assert_eq!(
            keys,
            [
                ("year", &b"2026"[..]),
                ("city", "São/Paulo".as_bytes()),
                ("k", b"")
            ]
        );
        assert!(super::keys(&root.join("p.parquet"), root).is_empty());
    }
}
