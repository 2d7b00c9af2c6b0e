//! `gen-csv BYTES SEED [OUT [KEYS]]`: deterministic sample CSV for the
//! partition benchmark (to stdout without OUT, or with OUT `-`):
//! [`csv_sample`] in 64 MiB pieces (seeds SEED, SEED+1, ...) until BYTES
//! are written; KEYS (default 1000) keys in column 1, a third of all
//! fields quoted. BYTES accepts K/M/G.
//!
//! [`csv_sample`]: spool_bench::csv_sample

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: gen-csv BYTES SEED [OUT [KEYS]]");
        std::process::exit(2);
    }
    let bytes = spool_bench::parse_size(&args[1]);
    let seed: u64 = args[2].parse().expect("SEED is a number");
    let keys: u64 = args
        .get(4)
        .map_or(1000, |k| k.parse().expect("KEYS is a number"));
    let mut out: Box<dyn Write> = match args.get(3).filter(|p| *p != "-") {
        Some(path) => Box::new(BufWriter::new(std::fs::File::create(path)?)),
        None => Box::new(std::io::stdout().lock()),
    };
    let (mut written, mut records) = (0u64, 0u64);
    for piece in 0.. {
        if written >= bytes {
            break;
        }
        let want = (bytes - written).min(64 << 20) as usize;
        let sample = spool_bench::csv_sample::sample_keys(want, seed + piece, keys);
        out.write_all(&sample.csv)?;
        written += sample.csv.len() as u64;
        records += sample.records;
    }
    out.flush()?;
    eprintln!("gen-csv: {records} records, {written} bytes");
    Ok(())
}
