//! The memory plan against its promises: every byte of `--memory` is
//! somewhere, the same options give the same plan, a total too small is
//! refused naming one that works, only a Parquet run gets arena slack (a
//! sixteenth of the total up to the default, none above), and pinned
//! buffer sizes are kept as given.

use spool_partition::parquet::ParquetOptions;
use spool_partition::{BufferSizes, ColumnRef, MemoryPlan, Options, OutputFormat};

const MIB: usize = 1 << 20;

fn options(memory: usize, format: OutputFormat) -> Options {
    let mut options = Options::new(vec!["in".into()], "out".into(), vec![ColumnRef("1".into())]);
    (options.memory, options.workers, options.format) = (memory, 2, format);
    options
}

fn formats() -> [OutputFormat; 2] {
    [
        OutputFormat::Text,
        OutputFormat::Parquet(ParquetOptions::default()),
    ]
}

/// Every byte of the total is somewhere, in every format.
#[test]
fn the_parts_add_up_to_the_total() {
    for format in formats() {
        for memory in [100 * MIB, 128 * MIB, 1024 * MIB] {
            let plan = MemoryPlan::new(&options(memory, format.clone())).unwrap();
            let parts = plan.read_ahead()
                + plan.writers()
                + plan.open_files()
                + plan.program()
                + plan.buffers().budget;
            assert_eq!(parts, memory, "{format:?} {memory}");
            assert_eq!(plan.writers(), plan.writer_threads() * plan.per_writer());
            assert!(plan.buffers().max_chunk.is_power_of_two());
            assert!(plan.buffers().min_chunk <= plan.buffers().max_chunk);
            assert!(plan.buffers().budget >= spool_partition::memory_plan::MIN_BUFFER_BUDGET);
        }
    }
}

/// The plan is a function of the options alone.
#[test]
fn the_same_options_give_the_same_plan() {
    for format in formats() {
        let options = options(128 * MIB, format);
        assert_eq!(
            MemoryPlan::new(&options).unwrap(),
            MemoryPlan::new(&options).unwrap()
        );
    }
}

/// A writer thread per `workers`, but no more than `max_open`.
#[test]
fn no_more_writer_threads_than_open_files() {
    let mut options = options(128 * MIB, OutputFormat::Text);
    options.workers = 8;
    options.max_open = 3;
    assert_eq!(MemoryPlan::new(&options).unwrap().writer_threads(), 3);
    options.workers = 0;
    assert_eq!(MemoryPlan::new(&options).unwrap().writer_threads(), 1);
}

/// Under an open-file limit, the output files and the descriptors kept
/// for everything else fit it: `--max-open` as asked where it fits, else
/// the most that fits (one more would not), with no more writer threads
/// than files and (Parquet) a write buffer per file that may be open; a
/// limit that cannot take one output file is refused, naming it.
#[test]
fn the_open_files_fit_the_open_file_limit() {
    for format in formats() {
        for (workers, asked) in [(1, 1), (2, 3), (2, 256), (8, 256), (8, 5_000)] {
            let mut options = options(1024 * MIB, format.clone());
            (options.workers, options.max_open) = (workers, asked);
            let unlimited = MemoryPlan::with_open_file_limit(&options, None).unwrap();
            assert_eq!(unlimited.max_open(), asked);
            let mut one = options.clone();
            one.max_open = 1;
            let one = MemoryPlan::with_open_file_limit(&one, None).unwrap();
            let least = (1 + one.reserved_files()) as u64;
            for limit in (0..6_000).step_by(7) {
                let Ok(plan) = MemoryPlan::with_open_file_limit(&options, Some(limit)) else {
                    assert!(limit < least, "{format:?} {asked}: refused at {limit}");
                    let err = MemoryPlan::with_open_file_limit(&options, Some(limit));
                    let err = err.unwrap_err().to_string();
                    assert!(err.contains(&format!("(ulimit -n) is {limit}")), "{err}");
                    continue;
                };
                assert!(limit >= least);
                let files = plan.max_open();
                assert!((1..=asked).contains(&files));
                assert!((files + plan.reserved_files()) as u64 <= limit);
                assert!(plan.writer_threads() <= files);
                assert_eq!(plan.open_file_limit(), Some(limit));
                if files < asked {
                    let mut more = options.clone();
                    more.max_open = files + 1;
                    let more = MemoryPlan::with_open_file_limit(&more, Some(limit)).unwrap();
                    assert_eq!(more.max_open(), files, "{files} + 1 would fit {limit}");
                }
                assert_eq!(plan.open_files() * asked, unlimited.open_files() * files);
            }
        }
    }
}

/// Only a Parquet run tunes the allocator: a sixteenth of the total, 1 to
/// 8 MiB, up to the default total and none above; the slack is part of
/// each writer's share.
#[test]
fn the_arena_slack_is_for_parquet_up_to_the_default_total() {
    let text = MemoryPlan::new(&options(128 * MIB, OutputFormat::Text)).unwrap();
    assert_eq!(text.arena_slack(), 0);
    let parquet = |memory| {
        let format = OutputFormat::Parquet(ParquetOptions::default());
        MemoryPlan::new(&options(memory, format)).unwrap()
    };
    assert_eq!(parquet(128 * MIB).arena_slack(), 8 * MIB);
    assert_eq!(parquet(112 * MIB).arena_slack(), 7 * MIB);
    assert_eq!(parquet(256 * MIB).arena_slack(), 0);
    let plan = parquet(128 * MIB);
    assert!(plan.per_writer() > plan.arena_slack() + plan.row_group_bytes());
    assert_eq!(plan.row_group_bytes(), 4 * MIB);
}

/// A total too small is refused naming one that is enough, and that one
/// is the least that is.
#[test]
fn too_small_names_the_least_total_that_works() {
    for format in formats() {
        let mut options = options(8 * MIB, format);
        let err = MemoryPlan::new(&options).unwrap_err().to_string();
        let least = err.split("use at least ").nth(1).unwrap();
        let least = least.split(" (or").next().unwrap();
        options.memory = spool_io::size::parse(least).unwrap();
        MemoryPlan::new(&options).expect(&err);
        options.memory -= MIB;
        assert!(MemoryPlan::new(&options).is_err(), "{err}: not the least");
    }
}

/// Sizes given directly are taken as they are, even below what a plan
/// would accept.
#[test]
fn given_buffer_sizes_are_kept() {
    let mut options = options(128 * MIB, OutputFormat::Text);
    let sizes = BufferSizes {
        min_chunk: 8,
        max_chunk: 64,
        budget: 512,
    };
    options.buffer_sizes = Some(sizes);
    assert_eq!(MemoryPlan::new(&options).unwrap().buffers(), sizes);
}
