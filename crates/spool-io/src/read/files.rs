//! Many inputs, read ahead several at a time, handed out in input order.
//!
//! Each input gets its own [`ChunkReader`] (its own thread, decompressor and
//! ring), so while the caller parses file 1, files 2..n are already being
//! read and decompressed. Blocks still come out strictly in input order —
//! all of file 1, then all of file 2 — which is what keeps the merge step
//! deterministic: whatever the timing, the caller sees the same sequence.

use std::collections::VecDeque;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use super::{Block, ChunkReader, ReadOptions};

/// Blocks of many inputs in input order; see the module docs.
///
/// # Examples
///
/// ```
/// use spool_io::read::{FileBlocks, ReadOptions};
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-files-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("a.txt"), b"1\n2\n")?;
/// std::fs::write(dir.join("b.txt"), b"3\n")?;
/// let inputs = vec![dir.join("a.txt"), dir.join("b.txt")];
/// let mut blocks = FileBlocks::new(inputs, ReadOptions::default(), 2);
/// let mut seen = Vec::new();
/// while let Some((file, block)) = blocks.next_block()? {
///     for record in block.records() {
///         seen.push((file, record.bytes().to_vec()));
///     }
/// }
/// assert_eq!(seen, [(0, b"1".to_vec()), (0, b"2".to_vec()), (1, b"3".to_vec())]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct FileBlocks {
    inputs: Vec<PathBuf>,
    options: ReadOptions,
    parallel: usize,
    /// Index of the next input to open.
    next_to_open: usize,
    /// Open readers, the front one being consumed; with their input index.
    open: VecDeque<(usize, ChunkReader)>,
    counter: Option<Arc<AtomicU64>>,
    cancel: Option<Arc<AtomicBool>>,
}

impl FileBlocks {
    /// Reads `inputs` (paths, `-` for standard input) with up to `parallel`
    /// of them open and reading ahead at once.
    pub fn new(inputs: Vec<PathBuf>, options: ReadOptions, parallel: usize) -> Self {
        FileBlocks {
            inputs,
            options,
            parallel: parallel.max(1),
            next_to_open: 0,
            open: VecDeque::new(),
            counter: None,
            cancel: None,
        }
    }

    /// Adds every raw (still compressed) byte read to `counter`.
    pub fn count_raw_bytes(mut self, counter: Arc<AtomicU64>) -> Self {
        self.counter = Some(counter);
        self
    }

    /// Stops waiting for input once `cancel` is raised: `next_block` then
    /// returns an error of kind `Interrupted`.
    pub fn cancel_on(mut self, cancel: Arc<AtomicBool>) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// The inputs, in order.
    pub fn inputs(&self) -> &[PathBuf] {
        &self.inputs
    }

    /// The next block and the index of the input it comes from, or `None`
    /// when every input is finished.
    ///
    /// # Errors
    ///
    /// An input that cannot be opened or read; the message names its path
    /// (read errors also the byte offset where they apply).
    pub fn next_block(&mut self) -> io::Result<Option<(usize, Block)>> {
        loop {
            while self.open.len() < self.parallel && self.next_to_open < self.inputs.len() {
                let index = self.next_to_open;
                let path = &self.inputs[index];
                let (input, _) = crate::input::open_counted(path, self.counter.clone())?;
                self.open
                    .push_back((index, ChunkReader::new(input, self.options.clone())));
                self.next_to_open += 1;
            }
            let Some((index, reader)) = self.open.front_mut() else {
                return Ok(None);
            };
            let index = *index;
            match reader.next_block_or_cancel(self.cancel.as_deref()) {
                Ok(Some(block)) => return Ok(Some((index, block))),
                Ok(None) => {
                    self.open.pop_front();
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
                Err(e) => {
                    let path = &self.inputs[index];
                    return Err(crate::input::with_path(e, path));
                }
            }
        }
    }
}
