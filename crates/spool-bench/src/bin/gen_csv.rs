//! `gen-csv BYTES SEED [OUT]`: deterministic sample CSV for the partition
//! benchmark (to stdout without OUT): [`csv_sample`] in 64 MiB pieces
//! (seeds SEED, SEED+1, ...) until BYTES are written; 1000 keys in column
//! 1, a third of all fields quoted. BYTES accepts K/M/G.
//!
//! [`csv_sample`]: spool_bench::csv_sample

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: gen-csv BYTES SEED [OUT]");
        std::process::exit(2);
    }
    let bytes = spool_bench::parse_size(&args[1]);
    let seed: u64 = args[2].parse().expect("SEED is a number");
    let mut out: Box<dyn Write> = match args.get(3) {
        Some(path) => Box::new(BufWriter::new(std::fs::File::create(path)?)),
        None => Box::new(std::io::stdout().lock()),
    };
    let (mut written, mut records) = (0u64, 0u64);
    for piece in 0.. {
        if written >= bytes {
            break;
        }
        let want = (bytes - written).min(64 << 20) as usize;
        let sample = spool_bench::csv_sample::sample(want, seed + piece);
        out.write_all(&sample.csv)?;
        written += sample.csv.len() as u64;
        records += sample.records;
    }
    out.flush()?;
    eprintln!("gen-csv: {records} records, {written} bytes");
    Ok(())
}
