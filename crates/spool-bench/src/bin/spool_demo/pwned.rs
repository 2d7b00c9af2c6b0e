//! The demo's pwned rows: build an index from a generated HIBP-format
//! sample (prevalence order, CRLF), check known-present and known-absent
//! passwords, and time builds and lookups next to an in-memory sorted `Vec`
//! and a `HashMap` built from the same text.

use std::collections::HashMap;
use std::hint::black_box;
use std::io::BufRead;

use spool_pwned::build::{build, BuildOptions};
use spool_pwned::input::sources;
use spool_pwned::sample::{sample_count, sample_password, write_sample, Order};
use spool_pwned::{HashKind, Index};

use super::timing::best_of;
use super::{table::Row, Context};

const SYSTEM: &str = "pwned";
const SEED: u64 = 11;

/// Parses the sample text into (hash, count) pairs the simple way.
fn parse_all(path: &std::path::Path) -> anyhow::Result<Vec<([u8; 20], u32)>> {
    let mut out = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(path)?).lines() {
        let line = line?;
        let (hex, count) = line
            .trim_end()
            .split_once(':')
            .ok_or_else(|| anyhow::anyhow!("bad line"))?;
        let mut key = [0u8; 20];
        anyhow::ensure!(
            spool::text::hex::decode(hex.as_bytes(), &mut key),
            "bad hex"
        );
        out.push((key, count.parse()?));
    }
    Ok(out)
}

/// Measures this system and its peers on generated data.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let lines: u64 = if ctx.quick { 200_000 } else { 2_000_000 };
    let runs = if ctx.quick { 2 } else { 3 };
    let sample = ctx.work_dir.join("pwned-sample.txt");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&sample)?);
    write_sample(&mut f, HashKind::Sha1, lines, SEED, Order::Prevalence, true)?;
    std::io::Write::flush(&mut f)?;
    drop(f);
    let index_path = ctx.work_dir.join("pwned.idx");

    let (spool_build, report) = best_of(runs, || {
        build(
            sources(std::slice::from_ref(&sample)).expect("sample exists"),
            &index_path,
            &BuildOptions::default(),
        )
    });
    let report = report?;
    anyhow::ensure!(
        report.records == lines,
        "index holds {} hashes, expected {lines}",
        report.records
    );
    let (vec_build, sorted) = best_of(runs, || {
        parse_all(&sample).map(|mut v| {
            v.sort_unstable();
            v
        })
    });
    let sorted = sorted?;
    let (map_build, map) = best_of(runs, || {
        parse_all(&sample).map(|v| v.into_iter().collect::<HashMap<_, _>>())
    });
    let map = map?;

    let index = Index::open(&index_path)?;
    index.verify()?;
    // Known answers: the first passwords are present with their counts, the
    // ones past the end are absent.
    let probes: Vec<(Vec<u8>, Option<u32>)> = (0..20_000u64)
        .map(|i| {
            let present = i % 2 == 0;
            let n = if present { i % lines } else { lines + i };
            (
                HashKind::Sha1.hash_password(&sample_password(SEED, n)),
                present.then(|| sample_count(SEED, n)),
            )
        })
        .collect();
    for (hash, want) in &probes {
        anyhow::ensure!(
            index.lookup(hash) == Ok(*want),
            "wrong answer for a sample password"
        );
    }
    let time_lookups = |f: &dyn Fn(&[u8]) -> Option<u32>| {
        let (t, _) = best_of(runs, || {
            for (hash, _) in &probes {
                black_box(f(hash));
            }
        });
        t.as_nanos() as f64 / probes.len() as f64
    };
    let spool_lookup = time_lookups(&|h| index.lookup(h).expect("an intact index"));
    let vec_lookup = time_lookups(&|h| {
        sorted
            .binary_search_by(|(k, _)| k[..].cmp(h))
            .ok()
            .map(|i| sorted[i].1)
    });
    let map_lookup = time_lookups(&|h| map.get(<&[u8; 20]>::try_from(h).ok()?).copied());
    let size = std::fs::metadata(&index_path)?.len() as f64 / lines as f64;
    let secs = |t: std::time::Duration| t.as_secs_f64();
    Ok(vec![
        Row {
            system: SYSTEM,
            case: format!("build {}k lines (prevalence order, CRLF)", lines / 1000),
            unit: "s",
            higher_is_better: false,
            spool: secs(spool_build),
            peers: vec![
                ("sorted Vec (in RAM)".into(), secs(vec_build)),
                ("HashMap (in RAM)".into(), secs(map_build)),
            ],
        },
        Row {
            system: SYSTEM,
            case: "lookup, warm (half present)".into(),
            unit: "ns",
            higher_is_better: false,
            spool: spool_lookup,
            peers: vec![
                ("sorted Vec".into(), vec_lookup),
                ("HashMap".into(), map_lookup),
            ],
        },
        Row {
            system: SYSTEM,
            case: "index size per hash (with counts)".into(),
            unit: "bytes",
            higher_is_better: false,
            spool: size,
            peers: vec![("sorted Vec in RAM".into(), 24.0)],
        },
    ])
}
