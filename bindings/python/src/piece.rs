//! One chunk of a `StringChain`: a caller's `bytes` object and the range of
//! it still in the chain.
//!
//! Invariant (kept by `StringChain`): `start < end <= len(obj)`; an empty
//! piece is never stored.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One chunk: `obj[start..end]`.
pub(crate) struct Piece {
    pub(crate) obj: Py<PyBytes>,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Piece {
    /// Bytes of the object still in the chain.
    pub(crate) fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the piece is the whole object (it can be handed back as is).
    pub(crate) fn is_whole(&self, py: Python<'_>) -> bool {
        self.start == 0 && self.end == self.obj.bind(py).as_bytes().len()
    }

    /// The bytes still in the chain.
    pub(crate) fn bytes<'a>(&'a self, py: Python<'a>) -> &'a [u8] {
        &self.obj.bind(py).as_bytes()[self.start..self.end]
    }

    /// The same range of the same object (a reference count, no copy).
    pub(crate) fn share(&self, py: Python<'_>) -> Piece {
        Piece {
            obj: self.obj.clone_ref(py),
            start: self.start,
            end: self.end,
        }
    }
}
