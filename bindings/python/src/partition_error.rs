//! How a failed `spool.partition` reads in Python.
//!
//! | the run's error | raised as |
//! |---|---|
//! | options that cannot work | `ValueError` |
//! | reading or writing failed | `OSError`, the subclass of its errno (`FileNotFoundError`, `PermissionError`, ...); the message names the path |
//! | a record or header that cannot be used | `spool.PartitionError` (a `ValueError`) with `path`, `line` and `offset` |
//! | interrupted | `KeyboardInterrupt` |
//!
//! Bad data gets a type of its own so that a task can tell "this input is
//! broken, skip or report it" from "this call is wrong" without parsing
//! messages; it derives from `ValueError` so that a plain `except
//! ValueError` still catches it.

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use spool_partition::PartitionError as RunError;

create_exception!(
    spool,
    PartitionError,
    PyValueError,
    "An input of spool.partition holds a record or header that cannot be \
     used. The message says path:line: byte offset: what is wrong; the \
     attributes path (str), line and offset (ints, from 1 and 0) say the \
     same. The run's partial output was removed."
);

/// The Python exception for a failed run.
pub(crate) fn to_python(py: Python<'_>, err: RunError) -> PyErr {
    match err {
        RunError::Io(e) => e.into(),
        RunError::Usage(message) => PyValueError::new_err(message),
        RunError::Interrupted => PyKeyboardInterrupt::new_err(err.to_string()),
        RunError::Input {
            ref file,
            line,
            offset,
            ..
        } => {
            let exc = PartitionError::new_err(err.to_string());
            let value = exc.value(py);
            let located = value
                .setattr("path", file)
                .and_then(|()| value.setattr("line", line))
                .and_then(|()| value.setattr("offset", offset));
            // Setting attributes on a fresh exception cannot fail but for
            // lack of memory; then that is the error to raise.
            match located {
                Ok(()) => exc,
                Err(e) => e,
            }
        }
    }
}
