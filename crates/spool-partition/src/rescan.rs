//! Where a Parquet run checks its records: in the writer threads, and
//! only when one fails, again in the router, to say where.
//!
//! Every value of a Parquet run is parsed by a writer thread anyway, to
//! build its column; checking it in the router as well parsed it twice,
//! on the one thread every record passes through (the router is the
//! busy thread while the input is read, and the check was a large share
//! of its work: docs/perf/partition-parquet.md, "Each value parsed
//! once"). So when the inputs can be read a second time, the router
//! routes without checking, the writers check as they parse, and a
//! writer that meets a record it cannot take stops the run with an
//! [`Unfit`](crate::parquet::Unfit) — which knows the record
//! but not its file, line or byte offset. The run then reads its inputs
//! again from the start, checking every record as the router would have,
//! and reports the first that does not fit, with the same message, so
//! the error does not depend on which check found it:
//!
//! ```text
//!  route, unchecked ──► writers parse and check ──► all fit: done
//!                                    │ Unfit
//!                                    ▼
//!  abort (nothing published) ──► read the inputs again, checking ──► the
//!                                first misfit: FILE:LINE: byte offset N …
//! ```
//!
//! The router keeps checking every record itself when an input cannot be
//! read twice (standard input, a pipe), and with `--skip-invalid`, whose
//! records must be skipped before they are routed.

use std::path::Path;

use crate::parquet::Unfit;
use crate::{Options, OutputFormat, PartitionError};

/// Whether the writers check a run's records (see the module docs): a
/// Parquet run without `--skip-invalid` whose inputs are all regular
/// files (compressed or not) or remote objects, which can be read again.
pub(crate) fn writers_check(options: &Options, inputs: &[std::path::PathBuf]) -> bool {
    matches!(options.format, OutputFormat::Parquet(_))
        && !options.skip_invalid
        && inputs.iter().all(|path| rereadable(path))
}

/// A regular file, or a remote object (read again at the version listed:
/// if it changed, the second reading fails naming it).
fn rereadable(path: &Path) -> bool {
    let file = || std::fs::metadata(path).is_ok_and(|m| m.is_file());
    path.as_os_str() != "-" && (crate::source::is_remote(path) || file())
}

/// Whether `e` is about a record: a writer's [`Unfit`], or one the router
/// found (too few fields, an unterminated quote, a header): an unchecked
/// record before it may not fit, and the router would have stopped there.
pub(crate) fn about_a_record(e: &PartitionError) -> bool {
    match e {
        PartitionError::Input { .. } => true,
        PartitionError::Io(e) => Unfit::is(e),
        _ => false,
    }
}

/// The error to report once the inputs were read again, checking every
/// record, after `found` (see [`about_a_record`]; the run has aborted):
/// the first record that does not fit, as the router checking every
/// record would have reported it. If none does (an input changed during
/// the run), `found`, a writer's with a word on why it names no line.
pub(crate) fn first_bad_record(
    found: PartitionError,
    reread: Result<(), PartitionError>,
) -> PartitionError {
    match (reread, found) {
        (Err(located), _) => located,
        (Ok(()), PartitionError::Io(e)) if Unfit::is(&e) => {
            PartitionError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{e}; reading the inputs again found no such record \
                     (did an input change during the run?)"
                ),
            ))
        }
        (Ok(()), found) => found,
    }
}
