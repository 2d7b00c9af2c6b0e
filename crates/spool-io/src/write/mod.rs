//! Writing in fixed-size chunks under a global memory budget.
//!
//! * [`ChunkPool`] — recycled fixed-size chunks; at most `budget / chunk_len`
//!   exist at once, so the memory held in chunks has a hard bound.
//! * [`BlockEncoder`] — turns one chunk into one self-contained block:
//!   plain bytes, a zstd frame or a gzip member. Frames and members
//!   concatenate into valid streams, so a file can be appended to (closed
//!   and reopened) at any block boundary, and no per-file compressor state
//!   has to stay in memory.
//! * [`PartialFile`] — a file written under a hidden temporary name and
//!   renamed when complete, removed on failure.
//! * [`StagedDir`] — a directory tree built under a hidden name by one run
//!   at a time (an exclusive lock) and published whole with one rename.
//! * [`AppendRun`] — one run's files added to a directory that other runs
//!   add to at the same time: staged inside it, moved in file by file
//!   without replacing anything, its manifest last.
//! * [`remove_temporaries`] — removes every [`PartialFile`] not yet in
//!   place (and every listed [`ScratchFile`]), for a signal handler
//!   about to exit.
//! * [`remove_dead_pid_temporaries`] — removes temporaries that older
//!   versions named after their process, once that process is gone.
//! * [`ChunkedWriter`] — an [`io::Write`](std::io::Write) that puts the
//!   three together for one output.

mod append_run;
mod chunk_pool;
mod chunked_writer;
mod encode;
mod moves_list;
mod no_replace;
mod output_lock;
mod partial_file;
mod publish_steps;
mod run_id;
mod staged_dir;
mod stale;
mod temporaries;

pub use append_run::{AppendRun, STAGING_PREFIX};
pub use chunk_pool::{Chunk, ChunkPool};
pub use chunked_writer::ChunkedWriter;
pub use encode::{BlockEncoder, Compression};
pub use output_lock::OutputLock;
pub use partial_file::PartialFile;
pub use publish_steps::sync_directory;
pub use run_id::{check_run_id, MAX_RUN_ID_LEN};
pub use staged_dir::StagedDir;
pub use stale::{remove_dead_pid_temporaries, Leftover};
pub use temporaries::{remove_temporaries, ScratchFile, TemporariesRemoved};

/// An error on a file or folder made beside `target`, told as an error on
/// `target`: the user asked for `target` and may not know the other name.
pub(crate) fn beside(
    err: std::io::Error,
    target: &std::path::Path,
    made: &std::path::Path,
) -> std::io::Error {
    let made = made
        .file_name()
        .unwrap_or(made.as_os_str())
        .to_string_lossy();
    std::io::Error::new(
        err.kind(),
        format!(
            "{}: {err} (creating {made}; check that the folder exists and can be written)",
            target.display()
        ),
    )
}

/// An error whose message names a path inside a staging directory
/// (`STAGING/REST`), told on the path the user will see (`TARGET/REST`),
/// naming the staging directory after: the hidden name means nothing to
/// the user, and is gone once the run has failed.
pub fn told_in_target(
    err: std::io::Error,
    staging: &std::path::Path,
    target: &std::path::Path,
) -> std::io::Error {
    let message = err.to_string();
    let hidden = staging.display().to_string();
    if !message.contains(&hidden) {
        return err;
    }
    let staging_name = staging
        .file_name()
        .unwrap_or(staging.as_os_str())
        .to_string_lossy();
    std::io::Error::new(
        err.kind(),
        format!(
            "{} (writing it in {staging_name}, published as {} when complete)",
            message.replacen(&hidden, &target.display().to_string(), 1),
            target.display()
        ),
    )
}
