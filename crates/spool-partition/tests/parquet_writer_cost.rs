//! What an open Parquet writer really holds, measured with a counting
//! allocator: the fixed state of an `ArrowWriter` (column writers, their
//! encoders and page buffers) beyond what its `memory_size()` reports, and
//! the metadata each finished row group adds. The partition run charges
//! both to its budget; this pins its constants against the real cost.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use spool_partition::parquet::{
    dictionary_columns, file_properties, row_group_metadata_bytes, writer_state_bytes,
    Dictionaries, ParquetOptions, DELTA_LENGTHS_RESERVE, DICTIONARY_TABLE_BYTES,
};

static LIVE: AtomicIsize = AtomicIsize::new(0);

/// The system allocator, keeping a count of live bytes.
struct Live;

// SAFETY: every call is forwarded unchanged to `System`; the counter has
// no effect on the memory returned.
unsafe impl GlobalAlloc for Live {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract, passed through.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller upholds `dealloc`'s contract, passed through.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc_zeroed`'s contract, passed through.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: the caller upholds `realloc`'s contract, passed through.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Live = Live;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Held by each test while it counts: the counter is the process's, and
/// the test harness runs tests on several threads.
static COUNTING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The partition memory test's table without its key: an int64, a
/// timestamp and two strings.
fn batch(rows: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("col2", DataType::Int64, true),
        Field::new(
            "col3",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            true,
        ),
        Field::new("col4", DataType::Utf8, true),
        Field::new("col5", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(
            (0..rows as i64).map(|i| i * 7919),
        )),
        Arc::new(TimestampMicrosecondArray::from_iter_values(
            (0..rows as i64).map(|i| 1_770_000_000_000_000 + i),
        )),
        Arc::new(StringArray::from_iter_values(
            (0..rows).map(|i| ["red", "blue"][i % 2]),
        )),
        Arc::new(StringArray::from_iter_values(
            (0..rows).map(|i| format!("{i:0>50}")),
        )),
    ];
    RecordBatch::try_new(schema, columns).unwrap()
}

/// `n` writers with `properties`, each having written `b`.
fn writing(
    n: usize,
    b: &RecordBatch,
    properties: &WriterProperties,
) -> Vec<ArrowWriter<std::io::Sink>> {
    let mut writers: Vec<_> = (0..n)
        .map(|_| {
            ArrowWriter::try_new(std::io::sink(), b.schema(), Some(properties.clone())).unwrap()
        })
        .collect();
    for w in &mut writers {
        w.write(b).unwrap();
    }
    writers
}

/// The charges `--format parquet` makes per open writer and per row group
/// cover what four-column writers really hold.
#[test]
fn the_charged_costs_cover_an_open_writers_real_cost() {
    let _counting = COUNTING.lock().unwrap_or_else(|e| e.into_inner());
    const N: usize = 256;
    const COLUMNS: usize = 4;
    let b = batch(8);
    let run = ParquetOptions::default()
        .writer_properties(4 << 20)
        .unwrap();
    let properties = file_properties(&run, &b.schema());
    let dictionaries = dictionary_columns(&b.schema()).count();
    assert_eq!(dictionaries, 2, "the two string columns");
    let before = live();
    let mut writers = writing(N, &b, &properties);
    let written = live();
    let reported: usize = writers.iter().map(|w| w.memory_size()).sum();
    for w in &mut writers {
        w.flush().unwrap();
    }
    let flushed = live();
    const MORE: usize = 9;
    for _ in 0..MORE {
        for w in &mut writers {
            w.write(&b).unwrap();
            w.flush().unwrap();
        }
    }
    let more = live();
    let per_writer = |bytes: isize| (bytes / N as isize) as usize;
    let unreported = per_writer(written - before) - reported / N;
    let after_flush = per_writer(flushed - before);
    let per_row_group = per_writer(more - flushed) / MORE;
    eprintln!(
        "per writer: {} live, {} reported, {unreported} unreported; {after_flush} after a flush; \
         {per_row_group} per row group",
        per_writer(written - before),
        reported / N
    );
    assert!(unreported <= writer_state_bytes(COLUMNS), "{unreported}");
    assert!(after_flush <= writer_state_bytes(COLUMNS), "{after_flush}");
    assert!(
        per_row_group <= row_group_metadata_bytes(COLUMNS),
        "{per_row_group}"
    );
    // What a small writer reports is its string columns' dictionaries,
    // within the allowance the admission counts for them; its numbers
    // hold none (plain encoding).
    assert!(
        reported / N <= dictionaries * DICTIONARY_TABLE_BYTES,
        "{}",
        reported / N
    );
    drop(writers);
}

/// A file whose free-text column has no dictionary writes it
/// `DELTA_LENGTH_BYTE_ARRAY`: beyond the charged state, its writer holds
/// arrow-rs's lengths reservation, exactly [`DELTA_LENGTHS_RESERVE`] per
/// such column (address space, not charged: see its docs), and nothing
/// more; the dictionary column's fallback reserves nothing.
#[test]
fn a_delta_length_column_adds_only_its_lengths_reservation() {
    let _counting = COUNTING.lock().unwrap_or_else(|e| e.into_inner());
    const N: usize = 64;
    const COLUMNS: usize = 4;
    // Enough values for the file to choose (`MIN_SAMPLE`), few enough
    // that the pages stay small.
    let b = batch(64);
    let run = ParquetOptions::default()
        .writer_properties(4 << 20)
        .unwrap();
    let chosen = Dictionaries::sampled(&b);
    assert_eq!(
        chosen.columns(),
        &[false, false, true, false],
        "col4 repeats, col5 does not"
    );
    let properties = chosen.properties(&run, &b.schema());
    let before = live();
    let writers = writing(N, &b, &properties);
    let written = live();
    let reported: usize = writers.iter().map(|w| w.memory_size()).sum();
    let unreported = ((written - before) as usize - reported) / N;
    eprintln!(
        "per writer: {unreported} unreported, {} reported",
        reported / N
    );
    assert!(
        unreported >= DELTA_LENGTHS_RESERVE,
        "{unreported}: the reservation is gone"
    );
    assert!(
        unreported <= DELTA_LENGTHS_RESERVE + writer_state_bytes(COLUMNS),
        "{unreported}"
    );
    drop(writers);
}
