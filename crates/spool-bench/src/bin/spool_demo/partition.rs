//! Chunked file I/O + partition: read a generated TSV with spool's chunk
//! reader and with `BufRead::lines`/`bstr`/`csv`, then partition it by key
//! with spool (plain and zstd) and with the naive `HashMap` of a
//! `BufWriter` (or a zstd encoder) per key, checking that a partitioned
//! file holds exactly its key's records.

use std::path::{Path, PathBuf};

use spool_bench::{partition_peers, read_peers, tsv_sample};
use spool_io::write::Compression;
use spool_partition::{ColumnRef, DatasetLayout, Options};

use super::legend::Unit;
use super::table::Row;
use super::timing::{interleave, interleave_all, mb_per_s, secs};
use super::Context;

const SYSTEM: &str = "Chunked I/O + partition";
const KEYS: u32 = 1000;
/// The key whose output file is compared with the input's records.
const CHECKED_KEY: &str = "key0042";

/// Measures reading and partitioning.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let bytes: u64 = if ctx.quick { 8 << 20 } else { 32 << 20 };
    let input = ctx.work_dir.join("partition-sample.tsv");
    let file = std::io::BufWriter::new(std::fs::File::create(&input)?);
    let lines = tsv_sample::write_sample(file, bytes, KEYS, 42)?;
    let size = std::fs::metadata(&input)?.len();
    let mut rows = vec![read_row(&input, lines, size, ctx.runs)?];
    for compression in [Compression::None, Compression::Zstd(3)] {
        rows.push(partition_row(ctx, &input, size, compression)?);
    }
    Ok(rows)
}

/// Reading: lines + field 2; every reader must agree.
fn read_row(input: &Path, lines: u64, size: u64, runs: usize) -> anyhow::Result<Row> {
    let readers = read_peers::all();
    let mut answers = vec![None; readers.len()];
    let mut contestants: Vec<_> = readers
        .iter()
        .zip(&mut answers)
        .map(|(&(_, reader), answer)| {
            move || {
                *answer = Some(reader(input)?);
                Ok(())
            }
        })
        .collect();
    let mut refs: Vec<&mut dyn FnMut() -> anyhow::Result<()>> = contestants
        .iter_mut()
        .map(|c| c as &mut dyn FnMut() -> anyhow::Result<()>)
        .collect();
    let samples = interleave_all(runs, &mut refs)?;
    drop(refs);
    drop(contestants);
    let first = answers[0];
    for ((name, _), answer) in readers.iter().zip(&answers) {
        let (got_lines, _) = answer.expect("every reader ran");
        anyhow::ensure!(
            got_lines == lines,
            "{name} counted {got_lines} lines, expected {lines}"
        );
        anyhow::ensure!(*answer == first, "{name} disagrees on field 2");
    }
    let rate = |t| mb_per_s(size, t);
    let mut figures = readers
        .iter()
        .zip(&samples)
        .map(|((n, _), s)| (*n, s.figure(rate)));
    let (_, spool) = figures.next().expect("spool's reader is listed first");
    Ok(Row {
        system: SYSTEM,
        case: format!("read {} MB: lines + field 2", size / 1_000_000),
        unit: Unit::MbPerS,
        spool,
        peers: figures.collect(),
    })
}

/// Partitioning by column 1 into 1000 files, spool next to the naive
/// `HashMap` of writers, both writing `compression`.
fn partition_row(
    ctx: &Context,
    input: &Path,
    size: u64,
    compression: Compression,
) -> anyhow::Result<Row> {
    let spool_out = ctx.work_dir.join("partition-spool");
    let naive_out = ctx.work_dir.join("partition-naive");
    let mut groups = None;
    let mut naive_keys = 0;
    // Each run starts from an empty folder: the previous run's is renamed
    // away (one cheap step) and removed after timing, since removing 1000
    // files can take longer than writing them.
    let trash = ctx.work_dir.join("partition-trash");
    std::fs::create_dir_all(&trash)?;
    let moved = std::cell::Cell::new(0);
    let clear = |out: &Path| -> std::io::Result<()> {
        if out.exists() {
            moved.set(moved.get() + 1);
            std::fs::rename(out, trash.join(moved.get().to_string()))?;
        }
        Ok(())
    };
    let mut spool = || {
        clear(&spool_out)?;
        let mut options = Options::new(
            vec![input.to_owned()],
            spool_out.clone(),
            vec![ColumnRef("1".into())],
        );
        // OUT/KEY.tsv, as the naive peer writes.
        options.layout = DatasetLayout::Flat;
        options.compression = compression;
        groups = Some(spool_partition::run(&options)?.groups);
        Ok(())
    };
    let mut naive = || {
        clear(&naive_out)?;
        naive_keys = match compression {
            Compression::Zstd(level) => {
                partition_peers::naive_partition_zstd(input, 0, &naive_out, level)?
            }
            _ => partition_peers::naive_partition(input, 0, &naive_out)?,
        };
        Ok(())
    };
    let [spool, naive] = interleave(ctx.runs, [&mut spool, &mut naive])?;
    let groups = groups.expect("spool ran");
    anyhow::ensure!(
        groups.len() == KEYS as usize,
        "spool: expected {KEYS} groups"
    );
    anyhow::ensure!(
        naive_keys == KEYS as usize,
        "naive peer: expected {KEYS} keys"
    );
    let spool_file = groups
        .iter()
        .find(|g| g.key == CHECKED_KEY.as_bytes())
        .map(|g| g.path.clone())
        .ok_or_else(|| anyhow::anyhow!("spool wrote no file for {CHECKED_KEY}"))?;
    let naive_file: PathBuf = naive_out.join(match compression {
        Compression::Zstd(_) => format!("{CHECKED_KEY}.tsv.zst"),
        _ => format!("{CHECKED_KEY}.tsv"),
    });
    check_group(input, &spool_file, compression)?;
    check_group(input, &naive_file, compression)?;
    for dir in [&spool_out, &naive_out, &trash] {
        let _ = std::fs::remove_dir_all(dir);
    }
    let (case, peer) = match compression {
        Compression::Zstd(_) => (
            "same, zstd-3 output".to_owned(),
            "HashMap<key, zstd encoder>",
        ),
        _ => (
            format!("partition {} MB into {KEYS} files", size / 1_000_000),
            "HashMap<key, BufWriter>",
        ),
    };
    Ok(Row {
        system: SYSTEM,
        case,
        unit: Unit::Seconds,
        spool: spool.figure(secs),
        peers: vec![(peer, naive.figure(secs))],
    })
}

/// `file` holds exactly the input records with [`CHECKED_KEY`].
fn check_group(input: &Path, file: &Path, compression: Compression) -> anyhow::Result<()> {
    let raw = std::fs::read(file)?;
    let got = match compression {
        Compression::Zstd(_) => zstd::decode_all(&raw[..])?,
        _ => raw,
    };
    let key = CHECKED_KEY.as_bytes();
    let want: Vec<u8> = std::fs::read(input)?
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| line.split(|&b| b == b'\t').next() == Some(key))
        .flatten()
        .copied()
        .collect();
    anyhow::ensure!(
        !want.is_empty() && got == want,
        "{}: records differ from the input's",
        file.display()
    );
    Ok(())
}
