//! `StringChain`: a queue of Python `bytes` objects with cheap pops.
//!
//! Semantics follow `stringchain` 0.9.8 and the copy vendored in foolscap:
//! counts larger than the length are cut to the length, chunk boundaries
//! are kept, `as_bytes` merges the chain in place. Incoming `bytes` objects
//! are kept as they are (a reference, no copy); each chunk is an object plus
//! the `[start, end)` range of it still in the chain, so trimming and
//! splitting never copy either. A pop copies only when it must return a new
//! `bytes` (exactly the bytes returned, once); a pop that covers exactly one
//! whole chunk returns that very object.

use std::collections::VecDeque;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One chunk: `obj[start..end]`.
struct Piece {
    obj: Py<PyBytes>,
    start: usize,
    end: usize,
}

impl Piece {
    fn len(&self) -> usize {
        self.end - self.start
    }

    fn is_whole(&self, py: Python<'_>) -> bool {
        self.start == 0 && self.end == self.obj.bind(py).as_bytes().len()
    }

    fn bytes<'a>(&'a self, py: Python<'a>) -> &'a [u8] {
        &self.obj.bind(py).as_bytes()[self.start..self.end]
    }

    fn share(&self, py: Python<'_>) -> Piece {
        Piece {
            obj: self.obj.clone_ref(py),
            start: self.start,
            end: self.end,
        }
    }
}

/// A queue of `bytes` chunks with O(1) append and cheap pops at the front.
/// A drop-in for `stringchain.StringChain` / `foolscap.stringchain.StringChain`.
#[pyclass(module = "spool")]
#[derive(Default)]
pub struct StringChain {
    pieces: VecDeque<Piece>,
    len: usize,
}

fn count(n: isize, what: &str) -> PyResult<usize> {
    usize::try_from(n)
        .map_err(|_| PyValueError::new_err(format!("{what}: count must be >= 0, not {n}")))
}

fn as_bytes<'py>(s: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyBytes>> {
    s.cast::<PyBytes>().cloned().map_err(|_| {
        let type_name = s
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        PyTypeError::new_err(format!("{what}() takes bytes, not {type_name}"))
    })
}

impl StringChain {
    /// Removes the first `n` (<= len) bytes as a chain sharing the objects.
    fn split_front(&mut self, py: Python<'_>, n: usize) -> StringChain {
        let mut head = StringChain::default();
        let mut left = n;
        while left > 0 {
            let front = self.pieces.front_mut().expect("len covers n");
            if front.len() <= left {
                left -= front.len();
                let piece = self.pieces.pop_front().expect("front exists");
                head.len += piece.len();
                head.pieces.push_back(piece);
            } else {
                let mut part = front.share(py);
                part.end = part.start + left;
                front.start += left;
                head.len += left;
                head.pieces.push_back(part);
                left = 0;
            }
        }
        self.len -= n;
        head
    }

    /// Number of leading whole chunks that hold at least `n` bytes (all of
    /// them if the chain is shorter), and their total length.
    fn whole_prefix(&self, n: usize) -> usize {
        let mut total = 0;
        for piece in &self.pieces {
            if total >= n {
                break;
            }
            total += piece.len();
        }
        total
    }

    /// The contents as one `bytes`: the object itself when the chain is one
    /// whole chunk, else one new object (one copy).
    fn join(&self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        match self.pieces.len() {
            0 => Ok(PyBytes::new(py, b"").unbind()),
            1 if self.pieces[0].is_whole(py) => Ok(self.pieces[0].obj.clone_ref(py)),
            _ => {
                let joined = PyBytes::new_with(py, self.len, |buf| {
                    let mut at = 0;
                    for piece in &self.pieces {
                        let b = piece.bytes(py);
                        buf[at..at + b.len()].copy_from_slice(b);
                        at += b.len();
                    }
                    Ok(())
                })?;
                Ok(joined.unbind())
            }
        }
    }

    fn push(&mut self, s: &Bound<'_, PyAny>, front: bool, what: &str) -> PyResult<()> {
        let b = as_bytes(s, what)?;
        let n = b.as_bytes().len();
        if n == 0 {
            return Ok(());
        }
        let piece = Piece {
            obj: b.unbind(),
            start: 0,
            end: n,
        };
        if front {
            self.pieces.push_front(piece);
        } else {
            self.pieces.push_back(piece);
        }
        self.len += n;
        Ok(())
    }
}

#[pymethods]
impl StringChain {
    /// An empty chain.
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Adds `s` (bytes) to the end of the chain, without copying it.
    fn append(&mut self, s: &Bound<'_, PyAny>) -> PyResult<()> {
        self.push(s, false, "append")
    }

    /// Adds `s` (bytes) to the beginning of the chain, without copying it.
    fn appendleft(&mut self, s: &Bound<'_, PyAny>) -> PyResult<()> {
        self.push(s, true, "appendleft")
    }

    /// Removes and returns the first `n` bytes (all of them if `n` is larger).
    /// Returns the chunk object itself when it is exactly one whole chunk.
    fn popleft(&mut self, py: Python<'_>, n: isize) -> PyResult<Py<PyBytes>> {
        let n = count(n, "popleft")?.min(self.len);
        self.split_front(py, n).join(py)
    }

    /// Removes the first `n` bytes and returns them as a new StringChain that
    /// shares the chunks (no copy).
    fn popleft_new_stringchain(&mut self, py: Python<'_>, n: isize) -> PyResult<StringChain> {
        let n = count(n, "popleft_new_stringchain")?.min(self.len);
        Ok(self.split_front(py, n))
    }

    /// Removes whole leading chunks until at least `n` bytes are removed (or
    /// the chain is empty) and returns them joined.
    fn popleft_at_least(&mut self, py: Python<'_>, n: isize) -> PyResult<Py<PyBytes>> {
        let n = self.whole_prefix(count(n, "popleft_at_least")?);
        self.split_front(py, n).join(py)
    }

    /// Like `popleft_at_least`, returning a new StringChain (no copy).
    fn popleft_at_least_new_stringchain(
        &mut self,
        py: Python<'_>,
        n: isize,
    ) -> PyResult<StringChain> {
        let n = self.whole_prefix(count(n, "popleft_at_least_new_stringchain")?);
        Ok(self.split_front(py, n))
    }

    /// Removes and returns everything.
    fn popall(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        let all = std::mem::take(self);
        all.join(py)
    }

    /// Removes everything and returns it as a new StringChain (no copy).
    fn popall_new_stringchain(&mut self) -> StringChain {
        std::mem::take(self)
    }

    /// Drops the first `n` bytes (all of them if `n` is larger).
    fn trim(&mut self, py: Python<'_>, n: isize) -> PyResult<()> {
        let n = count(n, "trim")?.min(self.len);
        self.split_front(py, n);
        Ok(())
    }

    /// Empties the chain.
    fn clear(&mut self) {
        self.pieces.clear();
        self.len = 0;
    }

    /// A new chain with the same contents, sharing the chunk objects.
    fn copy(&self, py: Python<'_>) -> StringChain {
        StringChain {
            pieces: self.pieces.iter().map(|p| p.share(py)).collect(),
            len: self.len,
        }
    }

    /// The whole contents as one `bytes`. Merges the chain in place into
    /// that one chunk (one copy, unless it already is one whole chunk).
    fn as_bytes(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        let joined = self.join(py)?;
        if self.pieces.len() > 1 || self.pieces.front().is_some_and(|p| !p.is_whole(py)) {
            let len = self.len;
            self.pieces.clear();
            self.pieces.push_back(Piece {
                obj: joined.clone_ref(py),
                start: 0,
                end: len,
            });
        }
        Ok(joined)
    }

    fn __bytes__(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        self.as_bytes(py)
    }

    fn __len__(&self) -> usize {
        self.len
    }

    /// Number of chunks (chunk boundaries are observable).
    fn chunk_count(&self) -> usize {
        self.pieces.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<StringChain: {} bytes in {} chunks>",
            self.len,
            self.pieces.len()
        )
    }
}
