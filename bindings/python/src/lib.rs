//! `spool._spool`, the extension module behind the `spool` Python package:
//! `StringChain` (`string_chain.rs`), a drop-in for the `stringchain`
//! package and foolscap's copy of it, `BananaDecoder` (`banana.rs`), and
//! `partition` (`partition.rs`), `spool partition` in-process.
//!
//! Built against the stable ABI (`abi3`, Python 3.9 and newer): one wheel
//! serves every CPython from 3.9 on. The package's `__init__.py` re-exports
//! all three; the classes' `__module__` is `spool`, so pickles name
//! `spool.StringChain`.
#![deny(missing_docs)]

use pyo3::prelude::*;

mod args;
mod banana;
mod partition;
mod partition_error;
mod piece;
mod string_chain;
mod summary;

/// spool: byte chains without quadratic copies.
#[pymodule]
#[pyo3(name = "_spool")]
fn spool_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<string_chain::StringChain>()?;
    m.add_class::<banana::BananaDecoder>()?;
    m.add_function(wrap_pyfunction!(partition::partition, m)?)?;
    m.add(
        "PartitionError",
        m.py().get_type::<partition_error::PartitionError>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
