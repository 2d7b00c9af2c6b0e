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
//!
//! The class keeps foolscap's name, `StringChain`, because users import
//! it by that name; in Rust the same idea is the core's `BufList`.
//!
//! # Why not a wrapper around the core `BufList`
//!
//! [`spool::buf_list::BufList`] holds `bytes::Bytes` chunks, and this type
//! is the same design (a deque of shared chunks with a cached length; a cut
//! moves a start offset) in Python's currency. It cannot wrap `BufList`
//! itself: stringchain's contract, which foolscap's tests and callers
//! comparing with `is` rely on, hands the caller's own objects back
//! (`c.popleft(len(x)) is x`), and a `Bytes` cannot give back the object it
//! came from. A `BufList`-backed class must copy every chunk in
//! (`Bytes::copy_from_slice`) or wrap the object (`Bytes::from_owner`), and
//! in both cases allocate and copy a new `bytes` for every pop, whole
//! chunks included: measured with a prototype of both, that made popping
//! whole chunks many times slower and 100-byte pops no faster (the figures
//! are in docs/chain.md). Counts past the end are cut here, as stringchain
//! does, by this class itself: the core's `advance` and `split_to` panic
//! past the end, as `bytes`' do. `BananaDecoder`, which returns new objects
//! anyway, does use the core `BufList`.

use std::collections::VecDeque;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use crate::args::{bytes_arg, count};
use crate::piece::Piece;

/// A queue of `bytes` chunks with O(1) append and cheap pops at the front.
///
/// A drop-in for `stringchain.StringChain` and foolscap's copy of it: counts
/// past the length are cut to the length, chunk boundaries are kept, and the
/// caller's own `bytes` objects are kept and handed back uncopied where a
/// pop covers exactly one of them. Subclassable, picklable and copyable.
#[pyclass(module = "spool", subclass)]
#[derive(Default)]
pub struct StringChain {
    pieces: VecDeque<Piece>,
    len: usize,
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
        let b = bytes_arg(s, what)?;
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

    /// Each chunk as a `bytes` object of its own: the object itself when
    /// the chunk is whole, else a copy of its range (pickling's only copy).
    fn chunks<'py>(&self, py: Python<'py>) -> Vec<Bound<'py, PyBytes>> {
        self.pieces
            .iter()
            .map(|p| {
                if p.is_whole(py) {
                    p.obj.bind(py).clone()
                } else {
                    PyBytes::new(py, p.bytes(py))
                }
            })
            .collect()
    }

    /// An empty chain of `slf`'s own type, as foolscap's `self.__class__()`:
    /// a plain StringChain directly, a subclass by calling `type(slf)()`.
    /// Made before anything is taken out of `slf`, so a subclass whose
    /// constructor fails leaves `slf` as it was.
    fn empty_like<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let cls = slf.get_type();
        if cls.is(py.get_type::<StringChain>()) {
            return Bound::new(py, StringChain::default());
        }
        Ok(cls.call0()?.cast_into::<StringChain>()?)
    }

    /// Removes up to `n` leading bytes (a Python count) as a new chain.
    fn pop_front(slf: &Bound<'_, Self>, n: &Bound<'_, PyAny>, what: &str) -> PyResult<StringChain> {
        let n = count(n, what)?;
        let mut this = slf.borrow_mut();
        let n = n.min(this.len);
        Ok(this.split_front(slf.py(), n))
    }

    /// Removes the whole leading chunks holding at least `n` bytes (a Python
    /// count), or all of them, as a new chain.
    fn pop_whole_front(
        slf: &Bound<'_, Self>,
        n: &Bound<'_, PyAny>,
        what: &str,
    ) -> PyResult<StringChain> {
        let n = count(n, what)?;
        let mut this = slf.borrow_mut();
        let n = this.whole_prefix(n);
        Ok(this.split_front(slf.py(), n))
    }
}

#[pymethods]
impl StringChain {
    /// An empty chain.
    ///
    /// Takes no arguments; a subclass may, for its own `__init__`, which
    /// Python calls after this.
    #[new]
    #[classmethod]
    #[pyo3(signature = (*args, **kwargs), text_signature = "()")]
    fn new(
        cls: &Bound<'_, PyType>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let extra = !args.is_empty() || kwargs.is_some_and(|k| !k.is_empty());
        if extra {
            // As `object.__new__` does: arguments are an error unless a
            // subclass's own `__init__` is there to take them.
            let base_init = cls.py().get_type::<StringChain>().getattr("__init__")?;
            if cls.getattr("__init__")?.is(&base_init) {
                return Err(PyTypeError::new_err(format!(
                    "{}() takes no arguments",
                    cls.name()?
                )));
            }
        }
        Ok(Self::default())
    }

    /// Adds `s` (bytes) to the end of the chain, without copying it.
    fn append(&mut self, s: &Bound<'_, PyAny>) -> PyResult<()> {
        self.push(s, false, "append")
    }

    /// Adds `s` (bytes) to the beginning of the chain, without copying it.
    fn appendleft(&mut self, s: &Bound<'_, PyAny>) -> PyResult<()> {
        self.push(s, true, "appendleft")
    }

    /// Removes and returns the first `n` bytes (all of them if `n` is
    /// larger, however large). Returns the chunk object itself when that is
    /// exactly one whole chunk.
    fn popleft(slf: &Bound<'_, Self>, n: &Bound<'_, PyAny>) -> PyResult<Py<PyBytes>> {
        let py = slf.py();
        let n = count(n, "popleft")?;
        let mut this = slf.borrow_mut();
        if let Some(front) = this.pieces.front_mut() {
            // Inside the first chunk (the common case of a parser cutting
            // small tokens off a large read): one copy, no head chain.
            if n < front.len() {
                let out = PyBytes::new(py, &front.bytes(py)[..n]).unbind();
                front.start += n;
                this.len -= n;
                return Ok(out);
            }
        }
        let n = n.min(this.len);
        this.split_front(py, n).join(py)
    }

    /// Removes the first `n` bytes (all of them if `n` is larger) and
    /// returns them as a new chain of the same type that shares the chunks
    /// (no copy).
    fn popleft_new_stringchain<'py>(
        slf: &Bound<'py, Self>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let head = Self::empty_like(slf)?;
        *head.borrow_mut() = Self::pop_front(slf, n, "popleft_new_stringchain")?;
        Ok(head)
    }

    /// Removes whole leading chunks until at least `n` bytes are removed (or
    /// the chain is empty) and returns them joined.
    fn popleft_at_least(slf: &Bound<'_, Self>, n: &Bound<'_, PyAny>) -> PyResult<Py<PyBytes>> {
        Self::pop_whole_front(slf, n, "popleft_at_least")?.join(slf.py())
    }

    /// Like `popleft_at_least`, returning a new chain of the same type that
    /// shares the chunks (no copy).
    fn popleft_at_least_new_stringchain<'py>(
        slf: &Bound<'py, Self>,
        n: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let head = Self::empty_like(slf)?;
        *head.borrow_mut() = Self::pop_whole_front(slf, n, "popleft_at_least_new_stringchain")?;
        Ok(head)
    }

    /// Removes and returns everything.
    fn popall(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        std::mem::take(self).join(py)
    }

    /// Removes everything and returns it as a new chain of the same type
    /// (no copy).
    fn popall_new_stringchain<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let all = Self::empty_like(slf)?;
        *all.borrow_mut() = std::mem::take(&mut *slf.borrow_mut());
        Ok(all)
    }

    /// Drops the first `n` bytes (all of them if `n` is larger).
    fn trim(slf: &Bound<'_, Self>, n: &Bound<'_, PyAny>) -> PyResult<()> {
        Self::pop_front(slf, n, "trim").map(drop)
    }

    /// Empties the chain.
    fn clear(&mut self) {
        self.pieces.clear();
        self.len = 0;
    }

    /// A new chain of the same type with the same contents, sharing the
    /// chunk objects (no copy).
    fn copy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let copied = Self::empty_like(slf)?;
        {
            let this = slf.borrow();
            let mut copy = copied.borrow_mut();
            copy.pieces = this.pieces.iter().map(|p| p.share(py)).collect();
            copy.len = this.len;
        }
        Ok(copied)
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

    /// `bytes(chain)`: the same as `as_bytes()`.
    fn __bytes__(&mut self, py: Python<'_>) -> PyResult<Py<PyBytes>> {
        self.as_bytes(py)
    }

    /// `len(chain)`: the number of bytes in the chain.
    fn __len__(&self) -> usize {
        self.len
    }

    /// Number of chunks (chunk boundaries are observable).
    fn chunk_count(&self) -> usize {
        self.pieces.len()
    }

    /// `<StringChain: 1 byte in 1 chunk>`, with a subclass's own name.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let this = slf.borrow();
        let (bytes, chunks) = (this.len, this.pieces.len());
        Ok(format!(
            "<{}: {bytes} byte{} in {chunks} chunk{}>",
            slf.get_type().name()?,
            plural(bytes),
            plural(chunks)
        ))
    }

    /// Pickle and `copy` support: `copyreg.__newobj__(type(self))`, then
    /// `__setstate__` with the chunks (boundaries kept) and a subclass
    /// instance's `__dict__`. Whole chunks are pickled as the objects
    /// themselves; copies share them.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let newobj = py.import("copyreg")?.getattr("__newobj__")?;
        let dict = slf.getattr("__dict__").ok();
        let state = (slf.borrow().chunks(py), dict);
        (newobj, (slf.get_type(),), state).into_pyobject(py)
    }

    /// Restores the state `__reduce__` gave: `(chunks, dict or None)`.
    fn __setstate__(
        slf: &Bound<'_, Self>,
        state: (Vec<Bound<'_, PyAny>>, Option<Bound<'_, PyDict>>),
    ) -> PyResult<()> {
        let (chunks, dict) = state;
        {
            let mut this = slf.borrow_mut();
            this.clear();
            for chunk in &chunks {
                this.push(chunk, false, "__setstate__")?;
            }
        }
        if let Some(dict) = dict {
            slf.getattr("__dict__")?.call_method1("update", (dict,))?;
        }
        Ok(())
    }
}

/// The plural ending for a count of `n`.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
