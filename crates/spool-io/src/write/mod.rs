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
//! * [`remove_temporaries`] — removes every [`PartialFile`] not yet in
//!   place (and every listed [`ScratchFile`]), for a signal handler
//!   about to exit.

mod chunk_pool;
mod encode;
mod output_lock;
mod partial_file;
mod publish_steps;
mod staged_dir;
mod temporaries;

pub use chunk_pool::{Chunk, ChunkPool};
pub use encode::{BlockEncoder, Compression};
pub use output_lock::OutputLock;
pub use partial_file::PartialFile;
pub use publish_steps::{split_target, sync_directory};
pub use staged_dir::StagedDir;
pub use temporaries::{remove_temporaries, ScratchFile, TemporariesRemoved};

/// An error on a file or folder made beside `target`, told as an error on
/// `target`: the user asked for `target` and may not know the other name.
///
/// # Examples
///
/// ```
/// use spool_io::write::beside;
/// let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
/// let told = beside(e, "data/out".as_ref(), "data/.out.lock".as_ref());
/// assert!(told.to_string().starts_with("data/out: "));
/// assert!(told.to_string().contains("creating .out.lock"));
/// ```
pub fn beside(
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
