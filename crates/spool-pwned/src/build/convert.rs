//! Writing the smaller layouts (t64, filter) from a full index, read in
//! hash order — the order both writers need, and the only one in which a
//! filter can be built a shard at a time.
//!
//! [`build_as`] builds a full index first (beside the output, as
//! `.NAME.full`), converts it, and removes it: the input is parsed, sorted
//! and merged by the one build pipeline whatever the output's layout, at
//! the cost of one extra sequential write and read of the full index (22
//! bytes per hash of temporary disk space). [`convert`] alone turns an
//! index already built into a smaller one.
//!
//! # Memory
//!
//! A t64 conversion holds the escaped counts (12 bytes per count of
//! 65,535 or more). A filter conversion holds one shard's keys while its
//! filter is built: about [`FILTER_BYTES_PER_KEY`] bytes per key (the key
//! itself, xorf's construction arrays at 1.125 slots per key, and the
//! fingerprints), so [`shard_bits`] picks the fewest shards that keep the
//! largest shard within the memory given. At 512 MiB that is 12.7 million
//! keys per shard: 128 shards for a billion hashes (7.8 million keys and
//! 300 MiB each), one shard below 12 million hashes.

use std::io;
use std::path::{Path, PathBuf};

use spool_io::write::{OutputLock, ScratchFile};

use crate::format::{Header, IndexError, IndexLayout, FANOUT_ENTRIES};
use crate::lookup::Index;

use super::input::Source;
use super::options::{BuildError, BuildOptions, BuildReport};
use super::write::SortedWriter;

/// Bytes per key a filter shard needs while it is built: the key (8),
/// xorf's arrays per slot (fingerprint 2, `alone` 4, `t2count` 1,
/// `t2hash` 8, at 1.125 slots per key: 17) and per key (`reverse_order`
/// 8, `reverse_h` 1), rounded up for the vector's slack.
pub const FILTER_BYTES_PER_KEY: usize = 40;

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// Writing the output failed (the message names the file).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The full index is damaged: nothing was written from it.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Building the full index first failed.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Shard bits for a filter of `records` keys built within `memory` bytes:
/// the least `b` (at most 16) for which a shard of `records / 2^b` keys,
/// plus a sixteenth for uneven shards, fits.
///
/// # Examples
///
/// ```
/// use spool_pwned::build::shard_bits;
/// assert_eq!(shard_bits(1_000_000, 512 << 20), 0);
/// assert_eq!(shard_bits(1_000_000_000, 512 << 20), 7);
/// assert_eq!(shard_bits(u64::MAX, 0), 16);
/// ```
pub fn shard_bits(records: u64, memory: usize) -> u8 {
    let fits = (memory / FILTER_BYTES_PER_KEY) as u64;
    let mut bits = 0u8;
    while bits < 16 {
        let shard = records >> bits;
        if shard.saturating_add(shard / 16) <= fits {
            break;
        }
        bits += 1;
    }
    bits
}

/// Writes `full`'s hashes to `output` in `layout`, checking every block
/// of `full` as it is read; a filter is built within `memory` (see the
/// module docs). Converting to [`IndexLayout::Sorted`] copies the index.
///
/// # Errors
///
/// [`ConvertError::Index`] if `full` is damaged (the output is then not
/// written), I/O errors naming the output.
pub fn convert(
    full: &Index,
    output: &Path,
    layout: IndexLayout,
    memory: usize,
) -> Result<Header, ConvertError> {
    let _lock = OutputLock::for_file(output, "another build is writing this index")?;
    convert_locked(full, output, layout, memory)
}

/// [`convert`] for a caller that holds `output`'s lock.
fn convert_locked(
    full: &Index,
    output: &Path,
    layout: IndexLayout,
    memory: usize,
) -> Result<Header, ConvertError> {
    let kind = full.kind();
    let records = full.header().records;
    let mut writer = SortedWriter::create(output, kind, layout, records, memory)?;
    let mut hash = [0u8; 20];
    for p in 0..FANOUT_ENTRIES - 1 {
        let records = full
            .prefix_checked(p)
            .map_err(|source| IndexError::Damaged {
                path: full.path().to_string(),
                source,
            })?;
        hash[..2].copy_from_slice(&(p as u16).to_be_bytes());
        for r in records.iter() {
            hash[2..2 + r.key().len()].copy_from_slice(r.key());
            writer.push(&hash[..kind.byte_len()], r.count())?;
        }
    }
    Ok(writer.finish()?)
}

/// Builds the index at `output` in `layout` from `sources`: a full index is
/// built beside it as `.NAME.full` (see [`build`](super::build)), converted,
/// and removed (also when the conversion fails).
///
/// # Errors
///
/// What [`build`](super::build) or [`convert`] returns.
pub fn build_as(
    sources: Vec<Source>,
    output: &Path,
    opts: &BuildOptions,
    layout: IndexLayout,
) -> Result<(BuildReport, Header), ConvertError> {
    if layout == IndexLayout::Sorted {
        let report = super::build(sources, output, opts)?;
        let header = *Index::open(output)?.header();
        return Ok((report, header));
    }
    // One lock, the output's, for the scratch index and the output: a
    // lock of the scratch file's own would leave `..NAME.full.spool-lock`
    // behind (lock files are never removed, see `OutputLock`).
    let _lock = OutputLock::for_file(output, "another build is writing this index")?;
    // Listed before the build makes it, so an interrupt removes it in
    // every state; removed when this function returns.
    let full = ScratchFile::new(full_path(output)?);
    let report = super::build_locked(sources, full.path(), opts)?;
    let index = Index::open(full.path())?;
    let header = convert_locked(&index, output, layout, opts.memory)?;
    Ok((report, header))
}

/// `.NAME.full` beside `output`.
fn full_path(output: &Path) -> io::Result<PathBuf> {
    let name = output.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a file name to write an index to", output.display()),
        )
    })?;
    let mut full = std::ffi::OsString::from(".");
    full.push(name);
    full.push(".full");
    Ok(output.with_file_name(full))
}
