//! `BananaDecoder`: spool's Banana decoder for Python.

use bytes::Bytes;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};
use spool::buf_list::BufList;
use spool::codec::banana::{self, Token};
use spool::codec::Decoder;

/// Decodes a stream of Banana tokens fed in chunks of any size.
///
/// `feed(data)` appends bytes; iterating yields `(kind, value)` tuples
/// until no complete token remains: `("STRING", b"...")`, `("INT", 5)`,
/// `("NEG", -5)`, `("FLOAT", 1.5)`, `("LONGINT", n)`, `("LONGNEG", -n)`,
/// `("LIST", count)`, `("VOCAB", i)`, `("OPEN", id)`, `("CLOSE", id)`,
/// `("ABORT", id)`, `("ERROR", b"...")`, `("PING", n)`, `("PONG", n)`.
/// Malformed input raises `ValueError` naming the problem and the stream
/// offset.
#[pyclass(module = "spool")]
pub struct BananaDecoder {
    input: BufList,
    decoder: banana::BananaDecoder,
}

#[pymethods]
impl BananaDecoder {
    /// A decoder accepting bodies up to `max_body` bytes (64 MiB by default).
    #[new]
    #[pyo3(signature = (max_body = 64 << 20))]
    fn new(max_body: u64) -> Self {
        Self {
            input: BufList::new(),
            decoder: banana::BananaDecoder::with_max_body(max_body),
        }
    }

    /// Appends `data` (bytes) to the input.
    fn feed(&mut self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let b = data
            .cast::<PyBytes>()
            .map_err(|_| PyTypeError::new_err("feed() takes bytes"))?;
        self.input.push_back(Bytes::copy_from_slice(b.as_bytes()));
        Ok(())
    }

    /// Bytes fed but not yet decoded.
    fn buffered(&self) -> usize {
        self.input.len()
    }

    /// The next complete token as `(kind, value)`, or `None`.
    fn next_token(&mut self, py: Python<'_>) -> PyResult<Option<(String, Py<PyAny>)>> {
        let token = self
            .decoder
            .decode(&mut self.input)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        token.map(|t| to_python(py, t)).transpose()
    }

    /// The decoder itself: iterating yields tokens until none is complete.
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next complete token; stops the iteration when none is left.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<(String, Py<PyAny>)>> {
        self.next_token(py)
    }
}

fn big_int(py: Python<'_>, magnitude: &[u8], negative: bool) -> PyResult<Py<PyAny>> {
    let value = py
        .get_type::<PyInt>()
        .call_method1("from_bytes", (PyBytes::new(py, magnitude), "big"))?;
    Ok(if negative {
        value.neg()?.unbind()
    } else {
        value.unbind()
    })
}

fn to_python(py: Python<'_>, token: Token) -> PyResult<(String, Py<PyAny>)> {
    let name = Token::type_name(token.type_byte()).to_string();
    let value: Py<PyAny> = match token {
        Token::String(b) | Token::Error(b) => PyBytes::new(py, &b).into_any().unbind(),
        Token::LongInt(b) => big_int(py, &b, false)?,
        Token::LongNeg(b) => big_int(py, &b, true)?,
        Token::Neg(n) => big_int(py, &n.to_be_bytes(), true)?,
        Token::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        Token::List(n)
        | Token::Int(n)
        | Token::Vocab(n)
        | Token::Open(n)
        | Token::Close(n)
        | Token::Abort(n)
        | Token::Ping(n)
        | Token::Pong(n) => n.into_pyobject(py)?.into_any().unbind(),
    };
    Ok((name, value))
}
