//! Live counters of a long run, for a progress display on another thread.
//!
//! The engines that chew through gigabytes — `spool partition`
//! (`spool_partition::Options::progress`) and the pwned index build —
//! take an `Arc<Progress>` and update it once per block they finish; a
//! display thread reads it as often as it likes.
//! Updates are relaxed atomic stores: a reader may see the counters of
//! slightly different moments, never a torn value, and the engine never
//! waits for the display.
//!
//! # Examples
//!
//! ```
//! use std::sync::atomic::Ordering;
//! use spool_io::progress::{Phase, Progress};
//! let progress = Progress::default();
//! progress.raw_bytes.store(1 << 20, Ordering::Relaxed);
//! progress.set_phase(Phase::Sorting);
//! assert_eq!(progress.phase(), Phase::Sorting);
//! assert_eq!(progress.phase().to_string(), "sorting");
//! ```

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What a run is doing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Reading and parsing the inputs.
    #[default]
    Reading,
    /// Sorting what was read (the pwned build, when its input was not in
    /// hash order).
    Sorting,
    /// Writing what is left and committing the output.
    Finishing,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Phase::Reading => "reading",
            Phase::Sorting => "sorting",
            Phase::Finishing => "finishing",
        })
    }
}

/// Counters updated by a running engine; see the module docs.
#[derive(Debug, Default)]
pub struct Progress {
    /// Input bytes read from files so far, as stored (before
    /// decompression): comparable with the files' sizes. Inputs handed in
    /// as open readers are not counted.
    pub raw_bytes: AtomicU64,
    /// Records (lines) read so far.
    pub records: AtomicU64,
    /// Distinct groups (output files) so far; 0 for a run without groups.
    pub groups: AtomicU64,
    phase: AtomicU8,
}

impl Progress {
    /// The current phase.
    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Relaxed) {
            0 => Phase::Reading,
            1 => Phase::Sorting,
            _ => Phase::Finishing,
        }
    }

    /// Moves to `phase`.
    pub fn set_phase(&self, phase: Phase) {
        self.phase.store(phase as u8, Ordering::Relaxed);
    }
}
