//! A spilled group waiting on the run's board to be converted into its
//! part file, and the shelf it comes from: the groups of the writer thread
//! that spilled it, with that thread's finished spill log.
//!
//! The board holds one [`Conversion`] per spilled group of every thread
//! at the end of the run, so it is kept to a group number and a shared
//! reference; the thread that takes it finds the group on its shelf,
//! converts it (see the `sink` module) and puts it back, no longer
//! spilled, for its own thread to report.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::group_parts::GroupParts;
use super::spill::SpillLog;

/// A spilled group to be turned into a part file, by any writer thread:
/// its number and the thread's groups it is among (kept this small
/// because the board holds nearly every group when there are many keys:
/// a copy of each group's record would add up at the end of the run).
pub(crate) struct Conversion {
    /// The group.
    pub gid: u32,
    /// Its thread's groups.
    pub shelf: Arc<Shelf>,
}

/// A writer thread's groups once its input has ended, shared with the
/// threads that convert its spilled ones, and its finished spill log.
pub(crate) struct Shelf {
    /// Every group the thread wrote; a spilled one is away (an empty
    /// `GroupParts` in its place) while a thread converts it, and comes
    /// back no longer spilled.
    pub groups: Mutex<foldhash::HashMap<u32, GroupParts>>,
    /// The thread's finished spill log.
    pub log: Arc<SpillLog>,
}

impl Shelf {
    /// The groups, locked.
    pub fn groups(&self) -> MutexGuard<'_, foldhash::HashMap<u32, GroupParts>> {
        // Nothing is left half-changed under the lock: a group is taken
        // out, or the map is read.
        self.groups.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
