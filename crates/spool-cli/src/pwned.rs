//! `spool pwned`: build and query an index of Have I Been Pwned hashes.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::{Subcommand, ValueEnum};
use spool_io::progress::Progress;
use spool_io::size::Size;
use spool_io::write::PartialFile;
use spool_pwned::build::{build_as, convert, sources, BuildOptions};
use spool_pwned::format::IndexLayout;
use spool_pwned::sample::{write_sample, write_sample_ranges, Order};
use spool_pwned::{AnyIndex, HashKind, Index};

use crate::progress::{input_size, show_while};

/// Arguments of `spool pwned`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build an index from HIBP text: files (plain, .gz, .zst), range
    /// directories (XXXXX.txt files) or `-` for standard input.
    Build {
        /// Input files or directories.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The index to write (written under a temporary name, then renamed).
        #[arg(short, long)]
        output: PathBuf,
        /// The input holds NTLM hashes (32 hex digits) instead of SHA-1.
        #[arg(long)]
        ntlm: bool,
        /// Memory for the build, e.g. 512M or 2G (peak RSS stays within it;
        /// at least 40M plus 4M per thread).
        #[arg(long, default_value = "512M", value_parser = spool_io::size::parse)]
        memory: usize,
        /// Threads parsing lines and sorting buckets (default: one per core,
        /// at most 8; more than four per core are capped).
        #[arg(long, value_parser = crate::count::parse_count)]
        threads: Option<usize>,
        /// Skip malformed lines (and report how many) instead of stopping.
        #[arg(long)]
        skip_invalid: bool,
        /// Folder for temporary spill files (default: next to the output).
        #[arg(long)]
        temp_dir: Option<PathBuf>,
        /// The index's layout: `full` (hashes and counts, 22 bytes per
        /// SHA-1 hash, serves /range), `t64` (hashes truncated to 64 bits
        /// and counts, about 8 bytes per hash) or `filter` (a binary fuse
        /// filter: "probably pwned" or not, no counts, about 2.3 bytes per
        /// hash). The smaller ones are converted from a full index built
        /// first beside the output (and removed).
        #[arg(long, value_enum, default_value_t = IndexFormat::Full)]
        format: IndexFormat,
        /// No progress bar.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Convert a full index into a smaller layout (see `build --format`).
    Convert {
        /// The full index to read.
        index: PathBuf,
        /// The index to write.
        #[arg(short, long)]
        output: PathBuf,
        /// The layout to write.
        #[arg(long, value_enum)]
        format: IndexFormat,
        /// Memory for building a filter (it is built in shards that fit).
        #[arg(long, default_value = "512M", value_parser = spool_io::size::parse)]
        memory: usize,
        /// No summary line (convert shows no progress bar; errors and
        /// warnings are still printed).
        #[arg(short, long)]
        quiet: bool,
    },
    /// Check a password, a hash, or a batch of them against an index.
    ///
    /// Without --password, --hash or --batch the password is the first line
    /// of standard input (or typed at a prompt); an empty line is the empty
    /// password, and an empty standard input is an error.
    ///
    /// Exit status: 0 if found (any, in batch mode), 1 if not found,
    /// 2 on error.
    Check {
        /// The index file.
        #[arg(short, long)]
        index: PathBuf,
        /// The password itself. WARNING: a password on the command line is
        /// visible to other users (ps) and saved in shell history; without
        /// this option the password is read from a no-echo prompt or stdin.
        #[arg(long, conflicts_with_all = ["hash", "batch"])]
        password: Option<String>,
        /// A hex hash (40 digits for SHA-1, 32 for NTLM) instead of a password.
        #[arg(long, conflicts_with = "batch")]
        hash: Option<String>,
        /// Check one hex hash per line from FILE (or `-`), printing
        /// `HASH<TAB>COUNT` (0 when absent).
        #[arg(long)]
        batch: Option<PathBuf>,
    },
    /// Check an index's checksums (reads the whole file).
    ///
    /// Exit status: 0 if every checksum holds, 2 if not (or on error).
    Verify {
        /// The index file.
        index: PathBuf,
        /// Print nothing when the index is sound (the exit status says
        /// so); errors are still printed.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Write deterministic sample data: the passwords `sample-SEED-I` for I
    /// below LINES are present, with known counts.
    Sample {
        /// Number of hashes.
        #[arg(long, default_value_t = 1000)]
        lines: u64,
        /// Seed of the sample.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Line order.
        #[arg(long, value_enum, default_value_t = SampleOrder::Hash)]
        order: SampleOrder,
        /// End lines with CRLF.
        #[arg(long)]
        crlf: bool,
        /// NTLM instead of SHA-1 hashes.
        #[arg(long)]
        ntlm: bool,
        /// Write a directory of range files (XXXXX.txt) here instead of one file.
        #[arg(long)]
        ranges: Option<PathBuf>,
        /// The output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// No summary line (there is none when the sample goes to standard
        /// output); errors are still printed.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Serve indexes over HTTP/1.1 and HTTP/2, plain or TLS: the Pwned
    /// Passwords range API (`/range/{prefix}`, with per-range ETags),
    /// counts (`/check/...`), `/healthz`, `/metrics`.
    Serve(crate::pwned_serve::Args),
    /// Download every range of the Pwned Passwords API (or a mirror's,
    /// such as another `spool pwned serve`) into an index; resumable.
    Download(crate::pwned_download::DownloadArgs),
    /// Update an index from the range API: ranges whose ETag still holds
    /// (304) are kept, the others fetched; the new index replaces the old
    /// atomically.
    Update(crate::pwned_download::UpdateArgs),
}

/// `--format` of `build`, `convert` and `download`.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum IndexFormat {
    /// Whole hashes and counts.
    Full,
    /// Hashes truncated to 64 bits, and counts.
    T64,
    /// A binary fuse filter: membership only.
    Filter,
}

impl IndexFormat {
    pub(crate) fn layout(self) -> IndexLayout {
        match self {
            IndexFormat::Full => IndexLayout::Sorted,
            IndexFormat::T64 => IndexLayout::T64,
            IndexFormat::Filter => IndexLayout::Filter,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum SampleOrder {
    /// Sorted by hash.
    Hash,
    /// Sorted by count, highest first.
    Prevalence,
}

pub(crate) fn kind(ntlm: bool) -> HashKind {
    if ntlm {
        HashKind::Ntlm
    } else {
        HashKind::Sha1
    }
}

/// Runs `spool pwned`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Build {
            inputs,
            output,
            ntlm,
            memory,
            skip_invalid,
            temp_dir,
            threads,
            format,
            quiet,
        } => {
            let defaults = BuildOptions::default();
            let threads = threads.unwrap_or(defaults.threads).max(1);
            let max = spool_pwned::build::max_threads();
            if threads > max {
                eprintln!("spool pwned build: warning: --threads {threads} capped to {max} (four per core, at most 64)");
            }
            let opts = BuildOptions {
                kind: kind(ntlm),
                memory,
                skip_invalid,
                temp_dir,
                threads: threads.min(max),
                progress: None,
            };
            let least = opts.min_memory();
            anyhow::ensure!(
                memory >= least,
                "--memory {} is too small for a build with {} thread(s): use at least {} \
                 (or fewer --threads)",
                Size(memory),
                opts.threads,
                Size(least.next_multiple_of(1 << 20))
            );
            run_build(&inputs, &output, &opts, format.layout(), !quiet)
        }
        Command::Convert {
            index,
            output,
            format,
            memory,
            quiet,
        } => {
            let start = Instant::now();
            let full = Index::open(&index)?;
            let header = convert(&full, &output, format.layout(), memory)?;
            if quiet {
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!(
                "spool pwned convert: {} hashes written to {} as {} in {:.2}s",
                header.records,
                output.display(),
                header.layout.name(),
                start.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Check {
            index,
            password,
            hash,
            batch,
        } => crate::pwned_check::run(&index, password, hash, batch),
        Command::Serve(args) => crate::pwned_serve::run(args),
        Command::Download(args) => crate::pwned_download::run_download(args),
        Command::Update(args) => crate::pwned_download::run_update(args),
        Command::Verify { index, quiet } => {
            let index = AnyIndex::open(&index)?;
            index.verify()?;
            if !quiet {
                println!(
                    "{}: ok, {} hashes ({} index)",
                    index.path(),
                    index.header().records,
                    index.layout().name()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Sample {
            lines,
            seed,
            order,
            crlf,
            ntlm,
            ranges,
            output,
            quiet,
        } => {
            let start = Instant::now();
            let order = match order {
                SampleOrder::Hash => Order::Hash,
                SampleOrder::Prevalence => Order::Prevalence,
            };
            if ranges.is_some() || output.is_some() {
                crate::interrupt::exit_on_signal("spool pwned sample");
            }
            let written = if let Some(dir) = ranges {
                write_sample_ranges(&dir, kind(ntlm), lines, seed, crlf)?;
                dir
            } else if let Some(path) = output {
                // Under a temporary name until complete, like every output.
                let mut file = PartialFile::create(&path)?;
                let mut w = io::BufWriter::new(file.file());
                write_sample(&mut w, kind(ntlm), lines, seed, order, crlf)?;
                w.flush()?;
                drop(w);
                file.commit()?;
                path
            } else {
                let mut out = io::BufWriter::new(io::stdout().lock());
                write_sample(&mut out, kind(ntlm), lines, seed, order, crlf)?;
                out.flush()?;
                return Ok(ExitCode::SUCCESS);
            };
            if !quiet {
                eprintln!(
                    "spool pwned sample: {lines} hashes written to {} in {:.2}s",
                    written.display(),
                    start.elapsed().as_secs_f64()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run_build(
    inputs: &[PathBuf],
    output: &std::path::Path,
    opts: &BuildOptions,
    layout: IndexLayout,
    progress_bar: bool,
) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let progress = Arc::new(Progress::default());
    let opts = BuildOptions {
        progress: Some(progress.clone()),
        ..opts.clone()
    };
    let sources = sources(inputs)?;
    crate::interrupt::exit_on_signal("spool pwned build");
    let show = progress_bar && io::stderr().is_terminal();
    let (report, _) = show_while(&progress, input_size(inputs), show, || {
        build_as(sources, output, &opts, layout)
    })?;
    eprintln!(
        "spool pwned build: {} lines, {} hashes written to {} ({} index) in {:.2}s ({} duplicates merged, {} invalid lines skipped, {} spill files)",
        report.lines,
        report.records,
        output.display(),
        layout.name(),
        start.elapsed().as_secs_f64(),
        report.duplicates,
        report.invalid,
        report.spills
    );
    Ok(ExitCode::SUCCESS)
}
