//! Arguments as the chain methods take them from Python.
//!
//! Counts follow stringchain's contract: a count past the length is cut to
//! the length. Python ints have no upper bound, so a count that does not
//! fit in `usize` (`popleft(2**70)`) is just such a count: it saturates to
//! `usize::MAX` and is then cut like any other, where a plain `usize`
//! argument would raise `OverflowError`. A negative count is a `ValueError`
//! naming the method, and anything that is not an int (or has no
//! `__index__`) a `TypeError`.
//!
//! Data must be `bytes`: the chain keeps references to the objects it is
//! given, and a `bytearray` or `memoryview` could change under it.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The name of `obj`'s type, for error messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

/// `n` as a byte count for `method`: ints past `usize::MAX` saturate.
///
/// # Errors
/// `ValueError` for a negative count, `TypeError` for a non-integer.
pub(crate) fn count(n: &Bound<'_, PyAny>, method: &str) -> PyResult<usize> {
    let py = n.py();
    match n.extract::<usize>() {
        Ok(n) => Ok(n),
        // Raised both for negative ints and for ints past usize::MAX.
        Err(err) if err.is_instance_of::<PyOverflowError>(py) => {
            let index = n.call_method0("__index__")?;
            if index.lt(0)? {
                Err(PyValueError::new_err(format!(
                    "{method}: count must be >= 0, not {index}"
                )))
            } else {
                Ok(usize::MAX)
            }
        }
        Err(err) if err.is_instance_of::<PyTypeError>(py) => Err(PyTypeError::new_err(format!(
            "{method}() takes an int count, not {}",
            type_name(n)
        ))),
        Err(err) => Err(err),
    }
}

/// `s` if it is a `bytes` object (a subclass of `bytes` included).
///
/// # Errors
/// `TypeError` naming `method` and the type that was passed.
pub(crate) fn bytes_arg<'py>(s: &Bound<'py, PyAny>, method: &str) -> PyResult<Bound<'py, PyBytes>> {
    s.cast::<PyBytes>()
        .cloned()
        .map_err(|_| PyTypeError::new_err(format!("{method}() takes bytes, not {}", type_name(s))))
}
