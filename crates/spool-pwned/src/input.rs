//! Input sources: a file (plain, gzip or zstd, detected by magic number),
//! standard input, or a directory of HIBP range files `XXXXX.txt`.
//! Opening and decompression are `spool_io::input`'s.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// One stream of lines to index, with the hex prefix its lines omit.
pub struct Source {
    /// Name for messages: the path, or `-`.
    pub name: String,
    /// Hex digits prepended to every line's hash (a range file's name).
    pub prefix: Vec<u8>,
    /// The decompressed bytes.
    pub reader: Box<dyn Read + Send>,
}

/// Expands the command-line inputs into sources, in order: `-` is standard
/// input, a directory is its `XXXXX.txt` range files in name order, anything
/// else a file.
///
/// # Errors
///
/// If a path cannot be opened or a directory read, naming the path.
pub fn sources(inputs: &[PathBuf]) -> io::Result<Vec<Source>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" {
            out.push(Source {
                name: "-".into(),
                prefix: Vec::new(),
                reader: spool_io::input::decompress(Box::new(io::stdin()))?.0,
            });
        } else if input.is_dir() {
            let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(input)
                .map_err(|e| crate::writer::with_path(e, input))?
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let stem = name.strip_suffix(".txt")?;
                    (stem.len() == 5 && stem.bytes().all(|b| b.is_ascii_hexdigit()))
                        .then(|| (stem.to_ascii_uppercase(), e.path()))
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "{}: no range files (XXXXX.txt) in this directory",
                        input.display()
                    ),
                ));
            }
            for (stem, path) in files {
                out.push(Source {
                    name: path.display().to_string(),
                    prefix: stem.into_bytes(),
                    reader: open(&path)?,
                });
            }
        } else {
            out.push(Source {
                name: input.display().to_string(),
                prefix: Vec::new(),
                reader: open(input)?,
            });
        }
    }
    Ok(out)
}

fn open(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    spool_io::input::open(path)
}
