//! `spool.partition`: `spool partition` in-process, for a script or for
//! each task of Spark, Dask or Ray.
//!
//! The keywords are the CLI's flags, taking the same words (see
//! `spool_partition::choices`), so the two read the same in docs and
//! refuse the same mistakes. The run is checked and its memory planned by
//! `spool_partition::Run::new`, the same call the CLI makes (a mistake is
//! a `ValueError` before anything starts), then executed on a thread of
//! its own while the calling thread waits with the GIL released: other
//! Python threads run meanwhile, and the caller wakes every
//! [`SIGNAL_POLL`] to let Python handle signals. A Ctrl-C there raises the
//! cancel flag; the run removes its partial output and the call raises
//! `KeyboardInterrupt`. (The allocator tuning the `spool` binary takes
//! from the plan is left out: it would change the whole interpreter's
//! allocator.)

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use spool_partition::choices::{self, Codec, ParquetChoices, Quote};
use spool_partition::parquet::DEFAULT_ROW_GROUP_ROWS;
use spool_partition::{ColumnRef, DatasetLayout, Filter, Options, PartitionError, Run, Summary};

use crate::partition_error::to_python;
use crate::summary::summary_dict;

/// How often the waiting caller takes the GIL back to check for signals.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Writes every record of `inputs` to the file of its key under `out`;
/// returns the run's summary as a dict.
///
/// See the package README and the type stubs for the keywords; errors:
/// `ValueError` for options, `OSError` (its subclasses by errno) for I/O,
/// `spool.PartitionError` for input that cannot be used.
#[pyfunction]
#[pyo3(signature = (
    inputs, out, by, *,
    header = false, delimiter = None, quote = None, input_format = None, r#where = Vec::new(),
    format = "text", compress = None, level = None, schema = None,
    row_group_size = DEFAULT_ROW_GROUP_ROWS, encodings = None, memory = None, threads = None,
    max_open = None, layout = "hive", skip_invalid = false, force = false,
    fsync = false, run_id = None, append = false,
    max_rows_per_file = None, max_bytes_per_file = None,
))]
#[allow(clippy::too_many_arguments)] // one per keyword, as the CLI has flags
pub(crate) fn partition<'py>(
    py: Python<'py>,
    inputs: &Bound<'py, PyAny>,
    out: PathBuf,
    by: &Bound<'py, PyAny>,
    header: bool,
    delimiter: Option<&str>,
    quote: Option<&str>,
    input_format: Option<&str>,
    r#where: Vec<String>,
    format: &str,
    compress: Option<&str>,
    level: Option<i32>,
    schema: Option<&str>,
    row_group_size: usize,
    encodings: Option<&str>,
    memory: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    max_open: Option<usize>,
    layout: &str,
    skip_invalid: bool,
    force: bool,
    fsync: bool,
    run_id: Option<String>,
    append: bool,
    max_rows_per_file: Option<u64>,
    max_bytes_per_file: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let usage = |e: PartitionError| to_python(py, e);
    let mut options = Options::new(paths(inputs)?, out, columns(by)?);
    let input_format = input_format
        .map(choices::input_format)
        .transpose()
        .map_err(usage)?;
    // `csv` brings its comma unless `delimiter` names another.
    let implied = input_format.and_then(|(_, implied)| implied);
    options.delimiter = match delimiter {
        Some(name) => choices::delimiter(name).map_err(usage)?,
        None => implied.unwrap_or(b'\t'),
    };
    options.source_format = input_format.map(|(format, _)| format);
    let quote = quote.map(str::parse::<Quote>).transpose().map_err(usage)?;
    options.quote = choices::quote_for(options.delimiter, quote);
    options.header = header;
    options.filters = r#where
        .iter()
        .map(|f| Filter::parse(f))
        .collect::<Result<_, _>>()
        .map_err(usage)?;
    let codec = compress
        .map(str::parse::<Codec>)
        .transpose()
        .map_err(usage)?;
    let parquet = ParquetChoices {
        schema,
        row_group_size,
        encodings,
    };
    (options.format, options.compression) =
        choices::output_format(format, codec, level, parquet).map_err(usage)?;
    options.layout = match layout {
        "hive" => DatasetLayout::Hive,
        "flat" => DatasetLayout::Flat,
        _ => return Err(value_error(format!("layout '{layout}': use hive or flat"))),
    };
    if let Some(threads) = threads {
        options.workers = threads;
    }
    if let Some(max_open) = max_open {
        options.max_open = max_open;
    }
    options.skip_invalid = skip_invalid;
    options.force = force;
    options.fsync = fsync;
    options.run_id = run_id;
    options.append = append;
    if let Some(memory) = memory {
        options.memory = bytes(memory, "memory")?;
    }
    options.max_rows_per_file = max_rows_per_file;
    if let Some(size) = max_bytes_per_file {
        options.max_bytes_per_file = Some(bytes(size, "max_bytes_per_file")? as u64);
    }
    let summary = run_detached(py, options, max_open.is_some())?;
    summary_dict(py, &summary)
}

/// Plans `options` ([`Run::new`]), then runs them on a thread of its own
/// while this one waits without the GIL, waking every [`SIGNAL_POLL`] for
/// Python's signal handlers. A `max_open` the caller gave that the
/// open-file limit cannot take is lowered with a `RuntimeWarning`.
fn run_detached(py: Python<'_>, mut options: Options, max_open_given: bool) -> PyResult<Summary> {
    let cancel = Arc::new(AtomicBool::new(false));
    options.cancel = Some(cancel.clone());
    let planned = Run::new(&options).map_err(|e| to_python(py, e))?;
    let note = (planned.memory())
        .max_open_note("max_open=", options.max_open)
        .filter(|_| max_open_given);
    if let Some(note) = note {
        let message = std::ffi::CString::new(note).expect("no NUL in a number");
        let category = py.get_type::<PyRuntimeWarning>();
        PyErr::warn(py, category.as_any(), &message, 1)?;
    }
    let caller = std::thread::current();
    std::thread::scope(|scope| {
        let run = scope.spawn(move || {
            let result = planned.execute();
            caller.unpark();
            result
        });
        let mut interrupt = None;
        while !run.is_finished() {
            // Woken by the run's end, or after SIGNAL_POLL (or spuriously).
            py.detach(|| std::thread::park_timeout(SIGNAL_POLL));
            if let Err(signal) = py.check_signals() {
                cancel.store(true, Ordering::Relaxed);
                interrupt = Some(signal);
                break;
            }
        }
        let result = py.detach(|| run.join());
        let result = result.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match (interrupt, result) {
            // The handler's own exception (KeyboardInterrupt), once the run
            // has removed its partial output — or, if the run had finished
            // before it saw the cancel flag, after it published: the
            // handler has run, and its exception is not to be lost.
            (Some(signal), Err(PartitionError::Interrupted) | Ok(_)) => Err(signal),
            (_, result) => result.map_err(|e| to_python(py, e)),
        }
    })
}

/// `inputs` as paths: one path (`str` or `os.PathLike`) or an iterable of
/// them.
fn paths(inputs: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if let Ok(one) = inputs.extract::<PathBuf>() {
        return Ok(vec![one]);
    }
    let paths = inputs
        .try_iter()
        .and_then(|it| {
            it.map(|p| p?.extract::<PathBuf>())
                .collect::<PyResult<Vec<_>>>()
        })
        .map_err(|_| value_error("inputs must be a path or a list of paths"))?;
    if paths.is_empty() {
        return Err(value_error("inputs is empty: give at least one path"));
    }
    Ok(paths)
}

/// `by` as columns: a name or a number from 1, or a list of them.
fn columns(by: &Bound<'_, PyAny>) -> PyResult<Vec<ColumnRef>> {
    let one = |c: &Bound<'_, PyAny>| -> PyResult<ColumnRef> {
        if let Ok(name) = c.cast::<PyString>() {
            return Ok(ColumnRef(name.extract::<String>()?));
        }
        match c.extract::<u64>() {
            Ok(n) if n > 0 => Ok(ColumnRef(n.to_string())),
            _ => Err(value_error(format!(
                "by: {c} is neither a column name nor a column number from 1"
            ))),
        }
    };
    if by.is_instance_of::<PyString>() || by.extract::<u64>().is_ok() {
        return Ok(vec![one(by)?]);
    }
    let columns = by
        .try_iter()
        .map_err(|_| value_error("by must be a column or a list of columns"))?
        .map(|c| one(&c?))
        .collect::<PyResult<Vec<_>>>()?;
    if columns.is_empty() {
        return Err(value_error("by is empty: give at least one column"));
    }
    Ok(columns)
}

/// A memory size: an int of bytes or a string like `"256M"`.
fn bytes(size: &Bound<'_, PyAny>, name: &str) -> PyResult<usize> {
    if let Ok(text) = size.cast::<PyString>() {
        return spool_io::size::parse(&text.extract::<String>()?)
            .map_err(|e| value_error(format!("{name}: {e}")));
    }
    size.extract::<usize>().map_err(|_| {
        value_error(format!(
            "{name}: {size} is not a size like 268435456 or '256M'"
        ))
    })
}

fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}
