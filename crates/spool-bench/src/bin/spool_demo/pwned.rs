//! The demo's pwned rows: build an index from a generated HIBP-format
//! sample (prevalence order, CRLF), check known-present and known-absent
//! passwords, and time builds and lookups next to an in-memory sorted `Vec`
//! and a `HashMap` built from the same text (taking turns, every answer
//! checked against the sample's known counts).

use std::collections::HashMap;
use std::hint::black_box;
use std::io::BufRead;

use spool_pwned::build::sources;
use spool_pwned::build::{build, BuildOptions};
use spool_pwned::sample::{sample_count, sample_password, write_sample, Order};
use spool_pwned::{HashKind, Index};

use super::legend::Unit;
use super::timing::{interleave, ns_per, secs, Figure};
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
        spool_pwned::text::hex::decode(hex.as_bytes(), &mut key)?;
        out.push((key, count.parse()?));
    }
    Ok(out)
}

/// Measures this system and its peers on generated data.
pub fn rows(ctx: &Context) -> anyhow::Result<Vec<Row>> {
    let lines: u64 = if ctx.quick { 200_000 } else { 1_000_000 };
    let sample = ctx.work_dir.join("pwned-sample.txt");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&sample)?);
    write_sample(&mut f, HashKind::Sha1, lines, SEED, Order::Prevalence, true)?;
    std::io::Write::flush(&mut f)?;
    drop(f);
    let index_path = ctx.work_dir.join("pwned.idx");

    let mut report = None;
    let mut sorted = Vec::new();
    let mut map = HashMap::new();
    let [spool_build, vec_build, map_build] = interleave(
        ctx.runs,
        [
            &mut || {
                let sources = sources(std::slice::from_ref(&sample))?;
                report = Some(build(sources, &index_path, &BuildOptions::default())?);
                Ok(())
            },
            &mut || {
                sorted = parse_all(&sample)?;
                sorted.sort_unstable();
                Ok(())
            },
            &mut || {
                map = parse_all(&sample)?.into_iter().collect();
                Ok(())
            },
        ],
    )?;
    let records = report.expect("spool built").records;
    anyhow::ensure!(
        records == lines && sorted.len() as u64 == lines && map.len() as u64 == lines,
        "hashes held: index {records}, sorted Vec {}, HashMap {}; expected {lines}",
        sorted.len(),
        map.len()
    );

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
    let by_search = |h: &[u8]| {
        sorted
            .binary_search_by(|(k, _)| k[..].cmp(h))
            .ok()
            .map(|i| sorted[i].1)
    };
    let by_map = |h: &[u8]| map.get(<&[u8; 20]>::try_from(h).ok()?).copied();
    for (hash, want) in &probes {
        let answers = [index.lookup(hash)?, by_search(hash), by_map(hash)];
        anyhow::ensure!(
            answers.iter().all(|a| a == want),
            "wrong answer for a sample password: {answers:?}, expected {want:?}"
        );
    }
    let [spool_lookup, vec_lookup, map_lookup] = interleave(
        ctx.runs,
        [
            // verified above: every block is intact
            &mut looking_up(&probes, &|h| index.lookup(h).expect("an intact index")),
            &mut looking_up(&probes, &by_search),
            &mut looking_up(&probes, &by_map),
        ],
    )?;
    let per_lookup = |t| ns_per(probes.len(), t);
    let size = std::fs::metadata(&index_path)?.len() as f64 / lines as f64;
    Ok(vec![
        Row {
            system: SYSTEM,
            case: format!("build {}k lines (prevalence order, CRLF)", lines / 1000),
            unit: Unit::Seconds,
            spool: spool_build.figure(secs),
            peers: vec![
                ("sorted Vec", vec_build.figure(secs)),
                ("HashMap", map_build.figure(secs)),
            ],
        },
        Row {
            system: SYSTEM,
            case: "lookup, warm (half present)".into(),
            unit: Unit::NsPerLookup,
            spool: spool_lookup.figure(per_lookup),
            peers: vec![
                ("sorted Vec", vec_lookup.figure(per_lookup)),
                ("HashMap", map_lookup.figure(per_lookup)),
            ],
        },
        Row {
            system: SYSTEM,
            case: "index size (the peers hold theirs in RAM)".into(),
            unit: Unit::BytesPerHash,
            spool: Figure::exact(size),
            peers: vec![
                ("sorted Vec", Figure::exact(24.0)),
                // A hashbrown table of 24-byte entries: one control byte
                // each, and between 1/8 and 1/2 of the slots left free.
                ("HashMap", Figure::exact(map_bytes_per_entry(&map))),
            ],
        },
    ])
}

/// A contestant that looks every probe up with `f`.
fn looking_up<'a>(
    probes: &'a [(Vec<u8>, Option<u32>)],
    f: &'a dyn Fn(&[u8]) -> Option<u32>,
) -> impl FnMut() -> anyhow::Result<()> + 'a {
    move || {
        for (hash, _) in probes {
            black_box(f(black_box(hash)));
        }
        Ok(())
    }
}

/// Bytes a `HashMap` of `([u8; 20], u32)` spends per entry: its slots
/// (24 bytes and a control byte each) over its entries.
fn map_bytes_per_entry(map: &HashMap<[u8; 20], u32>) -> f64 {
    let slots = (map.capacity() * 8 / 7).next_power_of_two();
    (slots * (24 + 1)) as f64 / map.len().max(1) as f64
}
