//! Spilled groups into Parquet: while the input is still being read, in
//! a writer thread's idle moments, and at its end.
//!
//! A writer thread is mostly idle while the router reads: the router is
//! the busy thread, and a spilled block costs the writer one append to
//! its log. Left to the end of the input, the conversion of every spilled
//! group would run after the router is done, the router's core idle
//! before it and the writers' after. So a spilled group whose runs not
//! yet converted reach [`early_bytes`] is *ready*, and a thread whose
//! queue is empty converts its oldest ready group into a row group of
//! the group's *parked* writer: an `ArrowWriter` kept open between
//! conversions with no row group in progress, which holds little (its
//! state, the metadata of its row groups, a file buffer; no page, no
//! dictionary, no codec context). A key thus still gets one part file,
//! of a few row groups, and most of the conversion happens while the
//! input is read.
//!
//! # Bounds
//!
//! A parked writer is charged to the budget for as long as it is open:
//! [`writer_state_bytes`] and [`FILE_BUFFER`] when it is opened, and
//! [`row_group_metadata_bytes`] for the row groups a conversion will
//! write, before it starts. A writer that cannot be charged (or would take
//! the thread past `max_open`) is not opened, and a conversion whose
//! metadata does not fit does not start: those groups wait for the end of
//! the input, as every spilled group did before. The conversion itself — one piece read back, one batch and the
//! row group being written — is set aside from `--memory` like the
//! conversions at the end, one per thread at a time.

use std::io;

use super::super::{row_group_metadata_bytes, writer_state_bytes};
use super::{OpenPart, ParquetSink, FILE_BUFFER};

/// The runs a spilled group must have gathered before it is converted
/// early: a sixteenth of a row group (256 KiB under `--memory 128M`), so
/// that a part file has row groups of a useful size.
///
/// # Examples (internal)
///
/// `early_bytes(4 << 20) == 256 << 10`.
pub(super) fn early_bytes(row_group_bytes: usize) -> usize {
    (row_group_bytes / 16).max(64 << 10)
}

impl ParquetSink {
    /// Converts the oldest ready group (see the module docs) into a row
    /// group of its parked writer, opening one if there is room; `false`
    /// if no group is ready.
    ///
    /// # Errors
    ///
    /// Reading the spill log or writing the part file fails.
    pub fn convert_early(&mut self) -> io::Result<bool> {
        while let Some(gid) = self.ready.pop_front() {
            if self.groups[&gid].pending < self.early_bytes {
                continue;
            }
            if !self.open.contains_key(&gid) && !self.try_park(gid)? {
                continue;
            }
            // The footer metadata of the row groups it will write is
            // charged first; without room, the group waits for the end.
            let columns = self.columns(self.groups[&gid].grouping);
            let row_groups = self.groups[&gid].pending / self.run.row_group_bytes + 1;
            let metadata = row_groups * row_group_metadata_bytes(columns);
            if !self.memory().try_charge(metadata) {
                continue;
            }
            self.open.get_mut(&gid).expect("parked").fixed += metadata;
            self.spill.flush()?;
            self.drain_into(gid)?;
            self.flush_row_group(gid)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Opens a parked writer for group `gid` (a new part) if the thread
    /// has fewer than `max_open` open and the budget has room.
    fn try_park(&mut self, gid: u32) -> io::Result<bool> {
        let fixed = writer_state_bytes(self.columns(self.groups[&gid].grouping)) + FILE_BUFFER;
        if self.open.len() >= self.max_open || !self.memory().try_charge(fixed) {
            return Ok(false);
        }
        let writer = match self.create_part(gid) {
            Ok(writer) => writer,
            Err(e) => {
                self.memory().release(fixed);
                return Err(e);
            }
        };
        self.open.insert(
            gid,
            OpenPart {
                writer,
                budgeted: false,
                charged: 0,
                fixed,
                footprint: 0,
            },
        );
        Ok(true)
    }

    /// Writes group `gid`'s runs not converted yet to its open writer.
    fn drain_into(&mut self, gid: u32) -> io::Result<()> {
        let group = self.groups.get_mut(&gid).expect("known group");
        group.pending = 0;
        let Some(last) = group.spilled.take() else {
            return Ok(());
        };
        let mut drain = self.spill.drain(gid, last)?;
        while let Some(piece) = drain.next_piece()? {
            self.write_batch(gid, piece)?;
        }
        Ok(())
    }

    /// Finishes every direct writer's part, then turns each spilled
    /// group's runs not converted yet into its parked writer's last row
    /// groups or its next part, one group at a time; returns each group's
    /// parts (see [`parts`](Self::parts)).
    ///
    /// # Errors
    ///
    /// Reading the spill log or writing a part file fails.
    pub fn finish(&mut self) -> io::Result<Vec<(u32, Vec<u64>)>> {
        let direct: Vec<u32> = (self.open.keys().copied())
            .filter(|gid| !self.groups[gid].spills)
            .collect();
        for gid in direct {
            let part = self.open.remove(&gid).expect("open");
            self.close(part)?;
        }
        self.spill.flush()?;
        let mut spilled: Vec<u32> = (self.groups.iter())
            .filter(|(_, group)| group.spills)
            .map(|(&gid, _)| gid)
            .collect();
        spilled.sort_unstable();
        for gid in spilled {
            self.convert(gid)?;
        }
        self.spill.remove()?;
        Ok(self.parts())
    }

    /// Writes group `gid`'s runs not converted yet to its parked writer,
    /// or as its next part file, in row groups of `row_group_bytes`,
    /// outside the budget (see the module docs), and finishes the part.
    fn convert(&mut self, gid: u32) -> io::Result<()> {
        let group = &self.groups[&gid];
        let rest = group.spilled.is_some() || !group.carry.is_empty();
        if rest && !self.open.contains_key(&gid) {
            let writer = self.create_part(gid)?;
            self.open.insert(
                gid,
                OpenPart {
                    writer,
                    budgeted: false,
                    charged: 0,
                    fixed: 0,
                    footprint: 0,
                },
            );
        }
        self.drain_into(gid)?;
        match self.open.remove(&gid) {
            Some(part) => self.close(part),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn early_bytes_is_a_sixteenth_of_a_row_group_at_least_64_kib() {
        assert_eq!(super::early_bytes(4 << 20), 256 << 10);
        assert_eq!(super::early_bytes(1 << 20), 64 << 10);
    }
}
