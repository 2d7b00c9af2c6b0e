//! The sources' blocks, read ahead several inputs at a time (a
//! [`ChunkReader`] each, with its own thread) and handed out in input
//! order, each input opened through its source ([`Sources::open`]): a
//! text file as it is, an NDJSON or Parquet file as text records.
//!
//! An input read through a transcoder fails with the transcoder's own
//! error (the file, line and offset in the user's file), not with where
//! the reader was in the text made from it.
//!
//! Remote text and NDJSON objects are also read early: the first range of
//! the objects after those open is asked for before they are opened, so
//! a prefix of many small objects is not read one request (one round
//! trip) at a time. What those early reads and the open objects' reads
//! hold together stays within what the memory plan set aside for the
//! open inputs' remote reads (`parallel` × [`REMOTE_READ_BYTES`]), and at
//! most [`EARLY_READS`] are under way.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use spool_io::read::{Block, ChunkReader, ReadOptions};

use super::remote::{first_range_bytes, held_while_open, read_early, EARLY_READS};
use super::{SourceFormat, Sources, REMOTE_READ_BYTES};
use crate::PartitionError;

/// Blocks of every source in input order; see the module docs.
pub(crate) struct SourceBlocks<'s> {
    sources: &'s Sources,
    options: ReadOptions,
    parallel: usize,
    /// Index of the next source to open.
    next_to_open: usize,
    /// Sources from `next_to_open` up to this one had their first range
    /// read early (or are local).
    early_up_to: usize,
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
            early_up_to: 0,
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
            self.read_early();
            let Some((index, reader)) = self.open.front_mut() else {
                return Ok(None);
            };
            let index = *index;
            match reader.next_block_or_cancel(self.cancel.as_deref()) {
                Ok(Some(block)) => return Ok(Some((index, block))),
                Ok(None) => {
                    self.open.pop_front();
                    // Its reads' bytes are free for the next objects'.
                    self.read_early();
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

    /// Asks for the first range of the remote objects after the open
    /// sources, in order, while the bytes held stay within the budget (see
    /// the module docs). A Parquet source's reads are its own (the footer
    /// first).
    fn read_early(&mut self) {
        if self.sources.format() == SourceFormat::Parquet {
            return;
        }
        let sources = self.sources;
        let held_open = |index: usize| sources.object(index).map_or(0, held_while_open);
        let held_early = |index: usize| sources.object(index).map_or(0, first_range_bytes);
        self.early_up_to = self.early_up_to.max(self.next_to_open);
        let early = self.next_to_open..self.early_up_to;
        let mut held = (self.open.iter())
            .map(|(index, _)| held_open(*index))
            .sum::<usize>()
            + early.clone().map(held_early).sum::<usize>();
        let mut under_way = early.filter(|&i| sources.object(i).is_some()).count();
        let budget = self.parallel * REMOTE_READ_BYTES;
        while self.early_up_to < sources.len() && under_way < EARLY_READS {
            let index = self.early_up_to;
            if let Some(object) = sources.object(index) {
                if held + first_range_bytes(object) > budget {
                    break;
                }
                read_early(object);
                held += first_range_bytes(object);
                under_way += 1;
            }
            self.early_up_to += 1;
        }
    }
}
