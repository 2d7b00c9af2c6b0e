//! `spool partition merge-manifests` and `spool partition clean`: the
//! tools for a dataset that several `--append` runs write into. The work
//! is `spool_partition::{dataset, clean}`; this module maps arguments
//! to it and prints what it found.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use spool_io::write::PartialFile;
use spool_partition::clean::clean;
use spool_partition::dataset::merge_manifests;
use spool_partition::s3::S3Url;
use spool_partition::MANIFEST_PREFIX;

/// Tools for a dataset written by several runs.
#[derive(clap::Subcommand)]
pub enum Tool {
    /// Print the whole dataset's column/key/path/records table, from every
    /// _partitions*.tsv in OUT (one per run), and warn about data files no
    /// manifest lists (runs still writing, or dead: see `clean`) and listed
    /// files that are missing.
    MergeManifests(MergeArgs),
    /// Remove what dead --append runs left in OUT: their staging
    /// directories, lock files, and the files of runs that died before
    /// writing their manifest. A run is dead when its lock
    /// (OUT/_staging-ID.lock) is free; live runs are never touched. For
    /// s3://BUCKET/PREFIX/: finish every run whose commit started, undo
    /// every other, abort every pending upload under the prefix; no run
    /// may be writing into it meanwhile.
    Clean(CleanArgs),
}

/// Arguments of `spool partition merge-manifests`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The dataset directory.
    out: PathBuf,
    /// Write the table to FILE (whole or not at all: a temporary name,
    /// then a rename) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Exit with status 1 if a data file is unlisted or a listed file is
    /// missing.
    #[arg(long)]
    check: bool,
}

/// Arguments of `spool partition clean`.
#[derive(clap::Args)]
pub struct CleanArgs {
    /// The dataset directory, or s3://BUCKET/PREFIX/.
    out: PathBuf,
    /// Errors from an object store print the store's whole answer, not
    /// one line of error code and message.
    #[arg(short, long)]
    verbose: bool,
}

/// Runs a tool.
pub fn run(tool: Tool) -> anyhow::Result<ExitCode> {
    match tool {
        Tool::MergeManifests(args) => merge(&args),
        Tool::Clean(args) => clean_dataset(&args),
    }
}

fn merge(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    let table = merge_manifests(&args.out)?;
    match &args.output {
        Some(path) => {
            refuse_inside(path, &args.out)?;
            let mut file = PartialFile::create(path)?;
            let mut out = std::io::BufWriter::new(file.file());
            table.write_tsv(&mut out).and_then(|()| out.flush())?;
            drop(out);
            file.commit()?;
        }
        None => {
            let mut text = Vec::new();
            table.write_tsv(&mut text)?;
            crate::stdout::print(&text, "merged manifest")?;
        }
    }
    let tell = |what: &str, paths: &[PathBuf]| {
        for path in paths {
            eprintln!(
                "spool partition: warning: {}: {what}",
                args.out.join(path).display()
            );
        }
    };
    tell("no manifest lists this file (a run still writing, or a dead one: see `spool partition clean`)", &table.unlisted);
    tell("listed by a manifest but missing", &table.missing);
    eprintln!(
        "spool partition: {} file(s), {} record(s) from {} manifest(s); {} unlisted, {} missing",
        table.rows.len(),
        table.records(),
        table.manifests.len(),
        table.unlisted.len(),
        table.missing.len()
    );
    let clean = table.unlisted.is_empty() && table.missing.is_empty();
    Ok(if args.check && !clean {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Refuses to write the table as a manifest of the dataset itself: the
/// next merge would read every row twice.
fn refuse_inside(path: &Path, out: &Path) -> anyhow::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let same_dir = match (parent.canonicalize(), out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    anyhow::ensure!(
        !(same_dir && name.starts_with(MANIFEST_PREFIX)),
        "{}: would be read as one more run's manifest by the next merge; write the merged table \
         elsewhere or under a name not starting with {MANIFEST_PREFIX}",
        path.display()
    );
    Ok(())
}

fn clean_dataset(args: &CleanArgs) -> anyhow::Result<ExitCode> {
    if let Some(url) = S3Url::parse(&args.out)? {
        return clean_s3(&url, args);
    }
    let cleaned = clean(&args.out)?;
    let mut text = Vec::new();
    for path in &cleaned.removed {
        writeln!(text, "removed {}", path.display())?;
    }
    crate::stdout::print(&text, "list of removed files")?;
    for id in &cleaned.live {
        eprintln!(
            "spool partition: run {id} is still writing into {}; left alone",
            args.out.display()
        );
    }
    eprintln!(
        "spool partition: {} dead run(s) cleaned up ({} path(s) removed), {} live run(s) left alone",
        cleaned.dead.len(),
        cleaned.removed.len(),
        cleaned.live.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn clean_s3(url: &S3Url, args: &CleanArgs) -> anyhow::Result<ExitCode> {
    let cleaned = spool_partition::s3::clean(url, args.verbose)?;
    let mut text = Vec::new();
    for id in &cleaned.rolled_forward {
        writeln!(text, "committed run {id}")?;
    }
    for id in &cleaned.rolled_back {
        writeln!(text, "rolled back run {id}")?;
    }
    for (id, _) in &cleaned.lost {
        writeln!(
            text,
            "rolled back run {id} (its commit could not be finished)"
        )?;
    }
    for key in &cleaned.aborted {
        writeln!(text, "aborted upload {key}")?;
    }
    for path in &cleaned.local_removed {
        writeln!(text, "removed {}", path.display())?;
    }
    crate::stdout::print(&text, "list of cleaned runs")?;
    let out = args.out.display();
    if let Some(why) = &cleaned.unlisted {
        eprintln!(
            "spool partition: {out}: pending uploads not listed ({why}); the uploads the runs' \
             journals named were aborted, others begun by a run killed before its journal may \
             remain (see the store's lifecycle rules for incomplete multipart uploads)"
        );
    }
    for (id, why) in &cleaned.lost {
        eprintln!("spool partition: {out}: run {id} not committed: {why}");
    }
    eprintln!(
        "spool partition: {out}: {} run(s) committed, {} rolled back, {} not committed (objects \
         lost by the store), {} pending upload(s) aborted, {} local staging folder(s) removed",
        cleaned.rolled_forward.len(),
        cleaned.rolled_back.len(),
        cleaned.lost.len(),
        cleaned.aborted.len(),
        cleaned.local_removed.len(),
    );
    Ok(if cleaned.lost.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
