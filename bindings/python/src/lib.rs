//! The `spool` Python module: [`StringChain`](string_chain::StringChain), a
//! drop-in for the `stringchain` package and foolscap's copy of it, and
//! [`BananaDecoder`](banana::BananaDecoder).
#![deny(missing_docs)]

use pyo3::prelude::*;

mod banana;
mod string_chain;

/// spool: byte chains without quadratic copies.
#[pymodule]
#[pyo3(name = "spool")]
fn spool_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<string_chain::StringChain>()?;
    m.add_class::<banana::BananaDecoder>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
