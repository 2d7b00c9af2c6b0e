//! What the command-line inputs of a build are: a regular file, a stream
//! (standard input, a pipe), or a directory of HIBP range files
//! `XXXXX.txt` (one source per file, read whole when its turn comes). This
//! is the one place an input is classified; its compression is found when
//! the build reads it, from its first bytes, read once (`read.rs`).
//! Opening and error messages that name the path are `spool_io::input`'s.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use spool_io::input::{open_raw, with_path};

/// One stream of lines to index, with the hex prefix its lines omit.
pub struct Source {
    /// Name for messages: the path, or `-`.
    pub name: String,
    /// Hex digits prepended to every line's hash (a range file's name).
    pub prefix: Vec<u8>,
    /// Where the bytes come from.
    pub input: Input,
}

/// Where a [`Source`]'s bytes come from.
pub enum Input {
    /// A stream, opened but not read yet: standard input, a pipe, or a
    /// reader handed in. The build decompresses it (gzip or zstd, by magic
    /// number) and counts its bytes for progress when it gets there.
    Stream(Box<dyn Read + Send>),
    /// A regular file, opened but not read yet: decompressed as a stream
    /// if it is compressed; plain, it may be read around the page cache
    /// (`spool_io::direct`).
    File(File),
    /// A range file, read whole when its turn comes, so that a directory of
    /// a million of them never holds more than a few open.
    RangeFile(PathBuf),
}

impl Source {
    /// A source reading `reader`, whose lines hold whole hashes.
    ///
    /// # Examples
    ///
    /// ```
    /// let source = spool_pwned::build::Source::from_reader("inline", &b"5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:1\n"[..]);
    /// assert_eq!(source.name, "inline");
    /// ```
    pub fn from_reader(name: impl Into<String>, reader: impl Read + Send + 'static) -> Self {
        Source {
            name: name.into(),
            prefix: Vec::new(),
            input: Input::Stream(Box::new(reader)),
        }
    }
}

/// Expands the command-line inputs into sources, in order: `-` is standard
/// input, a directory is its `XXXXX.txt` range files in name order, anything
/// else a file. Named files are opened now (not read), so that a missing
/// one fails before any work is done.
///
/// # Errors
///
/// If a path cannot be opened or a directory read, naming the path.
pub fn sources(inputs: &[PathBuf]) -> io::Result<Vec<Source>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.as_os_str() != "-" && input.is_dir() {
            let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(input)
                .map_err(|e| with_path(e, input))?
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
                    input: Input::RangeFile(path),
                });
            }
        } else {
            let input_of = if input.as_os_str() == "-" {
                Input::Stream(open_raw(input)?)
            } else {
                let file = File::open(input).map_err(|e| with_path(e, input))?;
                if file.metadata().is_ok_and(|m| m.is_file()) {
                    Input::File(file)
                } else {
                    Input::Stream(Box::new(file))
                }
            };
            out.push(Source {
                name: input.display().to_string(),
                prefix: Vec::new(),
                input: input_of,
            });
        }
    }
    Ok(out)
}
