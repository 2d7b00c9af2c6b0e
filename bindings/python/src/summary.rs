//! A run's summary as a Python dict (typed as `spool.PartitionSummary`,
//! a `TypedDict`): plain data, so a Spark task can return it from
//! `mapPartitions` and the driver collect it, pickled like any dict.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use spool_partition::Summary;

/// `summary` as a dict; the counts as `spool partition` prints them,
/// `groups` one dict per output key.
pub(crate) fn summary_dict<'py>(
    py: Python<'py>,
    summary: &Summary,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let written = summary.records_in - summary.filtered - summary.skipped_invalid;
    dict.set_item("records", written)?;
    dict.set_item("records_in", summary.records_in)?;
    dict.set_item("filtered", summary.filtered)?;
    dict.set_item("skipped_invalid", summary.skipped_invalid)?;
    dict.set_item("bytes_in", summary.bytes_in)?;
    dict.set_item("bytes_out", summary.bytes_out)?;
    let files: u64 = summary.groups.iter().map(|g| u64::from(g.files)).sum();
    dict.set_item("files", files)?;
    dict.set_item("reopened", summary.reopened)?;
    dict.set_item("finishing", summary.finishing.as_secs_f64())?;
    let groups = PyList::empty(py);
    for group in &summary.groups {
        let g = PyDict::new(py);
        g.set_item("column", &group.column)?;
        g.set_item("key", PyBytes::new(py, &group.key))?;
        g.set_item("path", group.path.as_os_str())?;
        g.set_item("records", group.records)?;
        g.set_item("files", group.files)?;
        groups.append(g)?;
    }
    dict.set_item("groups", groups)?;
    let stale = PyList::empty(py);
    for path in &summary.stale_removed {
        stale.append(path.as_os_str())?;
    }
    dict.set_item("stale_removed", stale)?;
    Ok(dict)
}
