//! The text a download keeps beside its index when asked, in the forms
//! other tools read:
//!
//! - `--text FILE`: every hash as a `HASH:COUNT` line, LF-ended, in hash
//!   order — what `spool pwned build` and the official downloader's
//!   single-file mode hold;
//! - `--ranges DIR`: one file per range, `PREFIX.txt`, holding the body
//!   the official API sends for it (`SUFFIX:COUNT` lines in upper-case hex,
//!   CRLF between lines, none after the last: [`encode_range_body`]) — the
//!   layout the official downloader's per-file mode writes, which range
//!   mirrors and `spool pwned build` read. A range with no hashes is an
//!   empty file.
//!
//! Both are written from the complete journal, like the index: its
//! records are the hashes the bodies held, checked, so what is written is
//! the official API's form of them even if a mirror sent LF endings or
//! padding. Both appear only whole: the file through a [`PartialFile`],
//! the folder through a [`StagedDir`] (begun before the download, so a
//! folder that exists and is not empty is refused before anything is
//! fetched; a dead run's staging folder is removed by the next run).

use std::io::{self, Write};

use spool_io::write::{PartialFile, StagedDir};
use spool_pwned::range_body::{encode_range_body, encoded_len_bound, prefix_hex};

use crate::journal::Shape;
use crate::options::Options;

/// Lines gathered before they are written to `--text`'s file.
const TEXT_BUFFER: usize = 1 << 20;

/// The `--ranges` folder being written, begun before the download.
pub(crate) struct RangesDir(StagedDir);

impl RangesDir {
    /// Begins `opts.ranges`, if asked for: locks it and refuses a folder
    /// that exists and is not empty.
    ///
    /// # Errors
    ///
    /// [`StagedDir::begin`]'s, naming the folder.
    pub fn begin(opts: &Options) -> io::Result<Option<RangesDir>> {
        opts.ranges
            .as_deref()
            .map(|dir| StagedDir::begin(dir, None).map(RangesDir))
            .transpose()
    }
}

/// The text outputs of one publish, fed the ranges in order.
pub(crate) struct TextOutputs {
    shape: Shape,
    /// `--text`: the file and the lines not yet written to it.
    lines: Option<(PartialFile, Vec<u8>)>,
    ranges: Option<RangesDir>,
    /// One range's body, reused.
    body: Vec<u8>,
}

impl TextOutputs {
    /// Starts `opts.text` (if asked for) and takes the begun `ranges`.
    ///
    /// # Errors
    ///
    /// If the text file cannot be created.
    pub fn create(opts: &Options, shape: Shape, ranges: Option<RangesDir>) -> io::Result<Self> {
        let lines = match &opts.text {
            Some(path) => Some((PartialFile::create(path)?, Vec::with_capacity(TEXT_BUFFER))),
            None => None,
        };
        Ok(TextOutputs {
            shape,
            lines,
            ranges,
            body: Vec::new(),
        })
    }

    /// Whether there is anything to write (the journal then keeps whole
    /// hashes).
    pub fn wanted(opts: &Options) -> bool {
        opts.text.is_some() || opts.ranges.is_some()
    }

    /// Writes range `prefix` (`hashes` hashes, `records` as a journal
    /// frame holds them): its lines to the text file, its body to the
    /// folder.
    ///
    /// # Errors
    ///
    /// I/O errors naming the file.
    pub fn push(&mut self, prefix: u32, hashes: u32, records: &[u8]) -> io::Result<()> {
        if self.lines.is_none() && self.ranges.is_none() {
            return Ok(());
        }
        let shape = self.shape;
        let key_len = shape.kind.byte_len() - 2;
        let records = || {
            records.chunks_exact(shape.record_len()).map(|r| {
                let (key, count) = r.split_at(key_len);
                (key, u32::from_le_bytes(count.try_into().expect("4 bytes")))
            })
        };
        self.body.clear();
        self.body
            .reserve(encoded_len_bound(shape.kind, hashes as usize));
        encode_range_body(records(), &mut self.body);
        let prefix = prefix_hex(prefix);
        if let Some((file, lines)) = &mut self.lines {
            // The API's body with the prefix put back at the start of each
            // line and LF endings.
            for line in self.body.split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if !line.is_empty() {
                    lines.extend_from_slice(&prefix);
                    lines.extend_from_slice(line);
                    lines.push(b'\n');
                }
            }
            if lines.len() >= TEXT_BUFFER {
                file.file().write_all(lines).map_err(|e| file.error(e))?;
                lines.clear();
            }
        }
        if let Some(RangesDir(staged)) = &self.ranges {
            let name = format!("{}.txt", std::str::from_utf8(&prefix).expect("hex digits"));
            let path = staged.dir().join(name);
            std::fs::write(&path, &self.body).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "{}: {e} (writing {})",
                        staged.target().display(),
                        path.display()
                    ),
                )
            })?;
        }
        Ok(())
    }

    /// Puts the text file in place; returns the folder, to be published
    /// after the index.
    ///
    /// # Errors
    ///
    /// I/O errors naming the file.
    pub fn commit_text(self) -> io::Result<Option<RangesDir>> {
        if let Some((mut file, lines)) = self.lines {
            file.file().write_all(&lines).map_err(|e| file.error(e))?;
            file.commit()?;
        }
        Ok(self.ranges)
    }
}

impl RangesDir {
    /// Puts the folder in place.
    ///
    /// # Errors
    ///
    /// A rename error naming it.
    pub fn publish(self) -> io::Result<()> {
        self.0.publish(false)
    }
}
