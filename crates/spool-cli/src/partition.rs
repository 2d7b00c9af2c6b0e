//! `spool partition`: write every record of many inputs to the file of its
//! key. The engine is `spool_partition`; this module maps flags to its
//! options, tunes the allocator as the run's memory plan says, shows
//! progress and prints the summary.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use spool_io::progress::Progress;
use spool_partition::choices::{self, Codec, ParquetChoices, Quote};
use spool_partition::{
    ColumnRef, DatasetLayout, Filter, Options, PartitionError, Run, SourceFormat,
};

use crate::progress::{input_size, show_while};

/// Arguments of `spool partition`.
#[derive(clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "\
Output: OUT/COLUMN=VALUE/part-00000.tsv[.zst|.gz] (a Hive-partitioned dataset \
for Spark, DuckDB, Polars), or OUT/VALUE.tsv with --layout flat; with several \
--by, one tree per column (OUT/by-COLUMN/...). Records keep input order. Keys \
are escaped for file names (see docs/partition.md); OUT/_partitions.tsv lists \
every key, file and record count. The dataset is built in a hidden directory \
beside OUT and appears whole with one rename when the run succeeds; on an \
error, Ctrl-C or a kill no part of it appears. One run at a time per OUT (a \
second one refuses).

Several runs into one dataset (the tasks of a Spark job, a job array): \
give each its own --run-id and --append; each run's files appear one rename \
each, its OUT/_partitions-ID.tsv last. `spool partition merge-manifests OUT` \
prints the whole table, `spool partition clean OUT` removes what dead runs \
left. An input file named like a subcommand is given as ./clean.

Exit status: 0 on success, 2 on error, 130 when interrupted."
)]
pub struct Args {
    #[command(subcommand)]
    tool: Option<crate::partition_tools::Tool>,
    /// Inputs: files (plain, gzip or zstd, detected by content),
    /// directories (every file under them), globs such as
    /// 'data/**/*.csv.gz' (quoted: spool expands them; a directory's or a
    /// glob's files are read in path order, names starting with . or _
    /// left out); `-` is stdin. Remote: s3://BUCKET/PREFIX/ (every object
    /// under it, in key order, names starting with . or _ left out),
    /// s3://BUCKET/KEY, 's3://BUCKET/GLOB' (the glob matched on keys) and
    /// http(s):// URLs, read by ranged requests without a local copy, each
    /// checked against the ETag seen when listed (an object written again
    /// during the run fails it); S3 credentials and endpoint as for an
    /// s3:// OUT.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// What the inputs hold: csv, tsv (text in the dialect --delimiter and
    /// --quote give; csv sets a comma), ndjson (one JSON object per line;
    /// --by names a top-level field), parquet. Default: detected per file
    /// from its first bytes and name (.parquet, .ndjson/.jsonl/.json).
    #[arg(long, value_name = "FORMAT", value_parser = parse_input_format)]
    input_format: Option<(SourceFormat, Option<u8>)>,
    /// Output directory (created if missing; must be empty unless --force).
    /// Its parent holds the run's hidden staging directory and a lock file,
    /// `.OUT.spool-lock`.
    #[arg(short, long, required = true)]
    out: Option<PathBuf>,
    /// Column to group by: a header name (with --header) or a number from 1.
    /// Repeat for several groupings in one pass.
    #[arg(long, required = true)]
    by: Vec<String>,
    /// Field delimiter: tab, comma, semicolon, pipe, space or any single
    /// ASCII character. Any delimiter but tab reads RFC 4180 CSV (fields
    /// may be quoted with "); tab reads unquoted TSV unless --quote is given.
    #[arg(short, long, default_value = "tab", value_parser = parse_delimiter)]
    delimiter: u8,
    /// Quote character for fields, or `none` for no quoting (every byte is
    /// data). Default: `"` except with a tab delimiter.
    #[arg(long, value_name = "CHAR|none", value_parser = parse_quote)]
    quote: Option<Quote>,
    /// Inputs start with a header line: names columns, is checked to be the
    /// same in every input, and starts every output file.
    #[arg(long)]
    header: bool,
    /// Keep only records whose COLUMN matches REGEX (COLUMN~REGEX), or does
    /// not (COLUMN!~REGEX). Repeat to require several.
    #[arg(long = "where", value_name = "COL~REGEX")]
    filters: Vec<String>,
    /// Output compression. Text: none (default), zstd or gzip, one frame
    /// or member per block, so every file decompresses with the standard
    /// tools. Parquet: zstd (default), snappy or none, per column chunk.
    #[arg(long)]
    compress: Option<CompressArg>,
    /// Compression level (zstd 1-22, default 3; gzip 1-12, default 6; 10-12
    /// compress harder than gzip itself can).
    #[arg(long)]
    level: Option<i32>,
    /// Output format: the records as text, or a Parquet dataset
    /// (OUT/COLUMN=VALUE/part-NNNNN.parquet, the --by column left out of
    /// the files).
    #[arg(long, default_value = "text")]
    format: FormatArg,
    /// Parquet column types of text and NDJSON inputs and of the hive keys
    /// of a dataset's directories, e.g. 'id:int64,price:float64,day:date'
    /// (int64, float64, bool, date, timestamp, string); other columns are
    /// strings; an empty field is NULL (an NDJSON "" in a string column
    /// stays empty). A Parquet input's own columns keep their types.
    #[arg(long, value_name = "COL:TYPE,...")]
    schema: Option<String>,
    /// Most rows in a Parquet row group (smaller under memory pressure).
    #[arg(long, default_value_t = spool_partition::parquet::DEFAULT_ROW_GROUP_ROWS)]
    row_group_size: usize,
    /// Parquet page encoding of string columns without a dictionary:
    /// delta (DELTA_LENGTH_BYTE_ARRAY: smaller, and much faster to
    /// compress) or plain (PLAIN, for readers older than the delta
    /// encodings, such as Spark's vectorized reader before 3.3). Default:
    /// delta.
    #[arg(long)]
    encodings: Option<EncodingsArg>,
    /// Writer threads (default: one per core).
    #[arg(long, value_parser = crate::count::parse_count)]
    threads: Option<usize>,
    /// Memory for the whole run, e.g. 256M (read-ahead, buffers, encoders).
    #[arg(long, default_value = "128M", value_parser = spool_io::size::parse)]
    memory: usize,
    /// Most output files open at once (default: 256); least recently used
    /// ones are closed and reopened in append mode. Fewer if the open-file
    /// limit (ulimit -n, raised to its hard limit first) cannot take as
    /// many beside the descriptors kept for everything else (20, one per
    /// input read at once, 3 per Parquet writer, 2 per S3 upload).
    #[arg(long, value_name = "N", value_parser = crate::count::parse_count)]
    max_open: Option<usize>,
    /// Output layout.
    #[arg(long, default_value = "hive")]
    layout: LayoutArg,
    /// Most records in one file: a group's file rolls over to its next
    /// part (part-00001, ...) at N. Hive layout only.
    #[arg(long, value_name = "N", value_parser = crate::count::parse_count)]
    max_rows_per_file: Option<usize>,
    /// Most bytes in one file, e.g. 64M, within one block: text rolls over
    /// before the record that would pass it (counted before compression),
    /// Parquet at the first row group boundary at or past it. Hive layout
    /// only.
    #[arg(long, value_name = "SIZE", value_parser = spool_io::size::parse)]
    max_bytes_per_file: Option<usize>,
    /// Count and skip invalid records instead of stopping: too few fields,
    /// a quote never closed, and with --format parquet a value that does
    /// not fit --schema or a field count other than the header's.
    #[arg(long)]
    skip_invalid: bool,
    /// Replace an existing dataset (a directory holding a _partitions*.tsv
    /// manifest) as a whole, in one step, once the new one is complete.
    #[arg(long)]
    force: bool,
    /// Name every file of this run after ID (COL=KEY/part-ID-00000.tsv,
    /// flat KEY.ID.tsv, manifest _partitions-ID.tsv), so runs with
    /// different ids never write the same name. ID: 1-64 ASCII letters,
    /// digits, '_' and '-', starting with a letter or digit.
    #[arg(long, value_name = "ID")]
    run_id: Option<String>,
    /// Add this run's files to the dataset in OUT (created if missing)
    /// beside other runs' files, even while other runs with other ids
    /// write into it; nothing is replaced. Needs --run-id. Each file
    /// appears by one rename, the run's manifest last.
    #[arg(long, requires = "run_id", conflicts_with = "force")]
    append: bool,
    /// Flush every output file and directory to disk before the dataset is
    /// published (and the publish after), so even a power loss cannot leave
    /// a published dataset with missing data; the run then waits for the
    /// disk.
    #[arg(long)]
    fsync: bool,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
    /// Errors from an object store (s3:// OUT, remote inputs) print the store's whole
    /// answer, not one line of error code and message.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CompressArg {
    None,
    Zstd,
    Gzip,
    Snappy,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum EncodingsArg {
    /// DELTA_LENGTH_BYTE_ARRAY.
    Delta,
    /// PLAIN.
    Plain,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FormatArg {
    /// The records as read.
    Text,
    /// A Parquet dataset.
    Parquet,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LayoutArg {
    /// OUT/COLUMN=VALUE/part-00000.tsv
    Hive,
    /// OUT/VALUE.tsv
    Flat,
}

fn parse_input_format(s: &str) -> Result<(SourceFormat, Option<u8>), String> {
    choices::input_format(s).map_err(|e| e.to_string())
}

fn parse_delimiter(s: &str) -> Result<u8, String> {
    choices::delimiter(s).map_err(|e| e.to_string())
}

fn parse_quote(s: &str) -> Result<Quote, String> {
    s.parse().map_err(|e: PartitionError| e.to_string())
}

impl From<CompressArg> for Codec {
    fn from(arg: CompressArg) -> Codec {
        match arg {
            CompressArg::None => Codec::None,
            CompressArg::Zstd => Codec::Zstd,
            CompressArg::Gzip => Codec::Gzip,
            CompressArg::Snappy => Codec::Snappy,
        }
    }
}

/// Runs `spool partition`.
pub fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    if let Some(tool) = args.tool.take() {
        return crate::partition_tools::run(tool);
    }
    // Required unless a tool is named (an Option only for that case).
    let out = args.out.take().unwrap_or_default();
    let start = Instant::now();
    let (format, compression) = choices::output_format(
        match args.format {
            FormatArg::Text => "text",
            FormatArg::Parquet => "parquet",
        },
        args.compress.map(Codec::from),
        args.level,
        ParquetChoices {
            schema: args.schema.as_deref(),
            row_group_size: args.row_group_size,
            encodings: args.encodings.map(|e| match e {
                EncodingsArg::Delta => "delta",
                EncodingsArg::Plain => "plain",
            }),
        },
    )?;
    let mut options = Options::new(
        args.inputs.clone(),
        out.clone(),
        args.by.into_iter().map(ColumnRef).collect(),
    );
    // `csv` brings its comma unless --delimiter named another.
    let delimiter = match args.input_format {
        Some((_, Some(implied))) if args.delimiter == b'\t' => implied,
        _ => args.delimiter,
    };
    options.source_format = args.input_format.map(|(format, _)| format);
    options.delimiter = delimiter;
    options.quote = choices::quote_for(delimiter, args.quote);
    options.header = args.header;
    options.filters = args
        .filters
        .iter()
        .map(|f| Filter::parse(f))
        .collect::<Result<_, _>>()?;
    (options.format, options.compression) = (format, compression);
    if let Some(threads) = args.threads {
        options.workers = threads;
    }
    if let Some(max_open) = args.max_open {
        options.max_open = max_open;
    }
    options.layout = match args.layout {
        LayoutArg::Hive => DatasetLayout::Hive,
        LayoutArg::Flat => DatasetLayout::Flat,
    };
    options.skip_invalid = args.skip_invalid;
    options.force = args.force;
    options.run_id = args.run_id;
    options.append = args.append;
    options.max_rows_per_file = args.max_rows_per_file.map(|n| n as u64);
    options.max_bytes_per_file = args.max_bytes_per_file.map(|n| n as u64);
    options.fsync = args.fsync;
    options.verbose = args.verbose;
    options.memory = args.memory;
    let cancel = Arc::new(AtomicBool::new(false));
    options.cancel = Some(cancel.clone());
    let progress = Arc::new(Progress::default());
    options.progress = Some(progress.clone());

    // The binary owns its process: the soft open-file limit as high as the
    // hard one lets it go, as the Go runtime and many servers set it. The
    // plan fits --max-open to it.
    spool_partition::open_files::raise_soft_limit(u64::MAX);
    // Checked and planned; nothing started yet.
    let run = Run::new(&options)?;
    let note = args
        .max_open
        .and_then(|asked| run.memory().max_open_note("--max-open ", asked));
    if let Some(note) = note {
        eprintln!("spool partition: {note}");
    }
    crate::allocator::keep_freed_blocks(run.memory().arena_slack());
    let signal = crate::interrupt::cancel_on_signal("spool partition", cancel);
    let show = !args.quiet && std::io::stderr().is_terminal();
    let total = input_size(run.sources().paths());
    let inputs = run.sources().len();
    let result = show_while(&progress, total, show, || run.execute());
    let summary = match result {
        Ok(summary) => summary,
        Err(PartitionError::Interrupted) => {
            let signal = signal.load(Ordering::SeqCst);
            let name = crate::interrupt::name(signal);
            eprintln!("spool partition: {name}; partial output removed");
            return Ok(ExitCode::from(crate::interrupt::status(signal)));
        }
        Err(e) => return Err(e.into()),
    };
    let secs = start.elapsed().as_secs_f64();
    let written = summary.records_in - summary.filtered - summary.skipped_invalid;
    eprintln!(
        "spool partition: {} records ({:.1} MB) from {} input(s) into {} file(s) of {} group(s) under {} in {:.2}s ({:.0} MB/s); \
         {:.1} MB written; {} filtered out, {} invalid skipped, {} reopened; {:.2}s from the last byte read to the dataset visible",
        written,
        summary.bytes_in as f64 / 1e6,
        inputs,
        summary.groups.iter().map(|g| u64::from(g.files)).sum::<u64>(),
        summary.groups.len(),
        out.display(),
        secs,
        summary.bytes_in as f64 / 1e6 / secs.max(1e-9),
        summary.bytes_out as f64 / 1e6,
        summary.filtered,
        summary.skipped_invalid,
        summary.reopened,
        summary.finishing.as_secs_f64(),
    );
    for stale in &summary.stale_removed {
        eprintln!(
            "spool partition: warning: removed {}, left by an earlier run that did not finish",
            stale.display()
        );
    }
    if summary.over_budget_bytes > 0 {
        eprintln!(
            "spool partition: warning: the table of {} keys outgrew --memory by about {:.1} MB; \
             give more --memory to keep the run within it",
            summary.groups.len(),
            summary.over_budget_bytes as f64 / 1e6
        );
    }
    Ok(ExitCode::SUCCESS)
}
