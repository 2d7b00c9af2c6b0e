//! The sources' blocks, read ahead several inputs at a time (a
//! [`ChunkReader`] each, with its own thread) and handed out in input
//! order, each input opened through its source ([`Sources::open`]): a
//! text file as it is, an NDJSON or Parquet file as text records.
//!
//! An input read through a transcoder fails with the transcoder's own
//! error (the file, line and offset in the user's file), not with where
//! the reader was in the text made from it.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use spool_io::read::{Block, ChunkReader, ReadOptions};

use super::Sources;
use crate::PartitionError;

/// Blocks of every source in input order; see the module docs.
pub(crate) struct SourceBlocks<'s> {
    sources: &'s Sources,
    options: ReadOptions,
    parallel: usize,
    /// Index of the next source to open.
    next_to_open: usize,
    /// Open readers, the front one being consumed; with their source index.
    open: VecDeque<(usize, ChunkReader)>,
    counter: Arc<AtomicU64>,
    cancel: Option<Arc<AtomicBool>>,
}

impl<'s> SourceBlocks<'s> {
    /// Reads `sources` with up to `parallel` of them open and reading
    /// ahead at once, adding the raw bytes read to `counter`.
    pub fn new(
        sources: &'s Sources,
        options: ReadOptions,
        parallel: usize,
        counter: Arc<AtomicU64>,
        cancel: Option<Arc<AtomicBool>>,
    ) -> Self {
        SourceBlocks {
            sources,
            options,
            parallel: parallel.max(1),
            next_to_open: 0,
            open: VecDeque::new(),
            counter,
            cancel,
        }
    }

    /// The next block and the index of the source it comes from, or
    /// `None` after the last.
    ///
    /// # Errors
    ///
    /// A source that cannot be opened or read, or a record a transcoder
    /// refused (naming the file and line); [`PartitionError::Interrupted`]
    /// once the cancel flag is raised.
    pub fn next_block(&mut self) -> Result<Option<(usize, Block)>, PartitionError> {
        loop {
            while self.open.len() < self.parallel && self.next_to_open < self.sources.len() {
                let index = self.next_to_open;
                let input = self.sources.open(index, self.counter.clone())?;
                let reader = ChunkReader::new(input, self.options.clone());
                self.open.push_back((index, reader));
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
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    return Err(PartitionError::Interrupted)
                }
                Err(e) => {
                    return Err(self.sources.take_error(index).unwrap_or_else(|| {
                        PartitionError::Io(spool_io::input::with_path(
                            e,
                            &self.sources.paths()[index],
                        ))
                    }))
                }
            }
        }
    }
}
