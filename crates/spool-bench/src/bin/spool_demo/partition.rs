//! Chunked file I/O + partition: read a generated TSV with spool's chunk
//! reader and with `BufRead::lines`/`bstr`/`csv`, then partition it by key
//! with spool (plain and zstd) and with the naive `HashMap` of `BufWriter`s,
//! checking that every partitioned file holds exactly its key's records.

use std::path::Path;

use spool_bench::{partition_peers, read_peers, tsv_sample};
use spool_io::partition::{self, ColumnRef, Options};
use spool_io::write::Compression;

use super::table::Row;
use super::timing::{best_of, mb_per_s};
use super::Context;

const SYSTEM: &str = "Chunked I/O + partition";
const KEYS: u32 = 1000;

/// Measures reading and partitioning.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let bytes: u64 = if ctx.quick { 32 << 20 } else { 256 << 20 };
    let runs = if ctx.quick { 1 } else { 3 };
    let input = ctx.work_dir.join("partition-sample.tsv");
    let file = std::io::BufWriter::new(std::fs::File::create(&input)?);
    let lines = tsv_sample::write_sample(file, bytes, KEYS, 42)?;
    let size = std::fs::metadata(&input)?.len();

    // Reading: lines + field 2, every reader must agree.
    let mut read_rows = Vec::new();
    let mut answer = None;
    for (name, reader) in read_peers::all() {
        let (time, got) = best_of(runs, || reader(&input));
        let got = got?;
        anyhow::ensure!(
            got.0 == lines,
            "{name} counted {} lines, expected {lines}",
            got.0
        );
        if *answer.get_or_insert(got) != got {
            anyhow::bail!("{name} disagrees on field 2");
        }
        read_rows.push((name, mb_per_s(size, time)));
    }
    let (_, spool_read) = read_rows[0];
    let mut rows = vec![Row {
        system: SYSTEM,
        case: format!("read {} MB: lines + field 2", size / 1_000_000),
        unit: "MB/s",
        higher_is_better: true,
        spool: spool_read,
        peers: read_rows[1..]
            .iter()
            .map(|(n, v)| ((*n).to_owned(), *v))
            .collect(),
    }];

    // Partitioning by column 1 into 1000 files.
    let out = ctx.work_dir.join("partition-out");
    let spool_run = |compression: Compression| -> anyhow::Result<f64> {
        let (time, summary) = best_of(runs, || {
            let _ = std::fs::remove_dir_all(&out);
            let mut options = Options::new(
                vec![input.clone()],
                out.clone(),
                vec![ColumnRef("1".into())],
            );
            options.compression = compression;
            partition::run(&options)
        });
        let summary = summary?;
        anyhow::ensure!(
            summary.groups.len() == KEYS as usize,
            "expected {KEYS} groups"
        );
        check_sample_group(&input, &summary.groups[0].path, compression)?;
        Ok(time.as_secs_f64())
    };
    let plain = spool_run(Compression::None)?;
    let naive_out = ctx.work_dir.join("partition-naive");
    let (naive, keys) = best_of(runs, || {
        let _ = std::fs::remove_dir_all(&naive_out);
        partition_peers::naive_partition(&input, 0, &naive_out)
    });
    anyhow::ensure!(keys? == KEYS as usize, "naive peer: wrong number of keys");
    let zstd = spool_run(Compression::Zstd(3))?;
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&naive_out);
    rows.push(Row {
        system: SYSTEM,
        case: format!("partition {} MB into {KEYS} files", size / 1_000_000),
        unit: "s",
        higher_is_better: false,
        spool: plain,
        peers: vec![("HashMap<key, BufWriter>".into(), naive.as_secs_f64())],
    });
    rows.push(Row {
        system: SYSTEM,
        case: "same, zstd-3 output".into(),
        unit: "s",
        higher_is_better: false,
        spool: zstd,
        peers: Vec::new(),
    });
    Ok(rows)
}

/// The first group's file holds exactly the input records with its key.
fn check_sample_group(
    input: &Path,
    group_file: &Path,
    compression: Compression,
) -> anyhow::Result<()> {
    let raw = std::fs::read(group_file)?;
    let got = match compression {
        Compression::Zstd(_) => zstd::decode_all(&raw[..])?,
        _ => raw,
    };
    let key = got
        .split(|&b| b == b'\t')
        .next()
        .unwrap_or_default()
        .to_vec();
    let want: Vec<u8> = std::fs::read(input)?
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| line.split(|&b| b == b'\t').next() == Some(&key[..]))
        .flatten()
        .copied()
        .collect();
    anyhow::ensure!(
        got == want,
        "{}: records differ from the input's",
        group_file.display()
    );
    Ok(())
}
