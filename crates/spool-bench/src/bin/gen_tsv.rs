//! `gen-tsv BYTES KEYS SEED [OUT]`: deterministic sample TSV for the
//! partition benchmarks (to stdout without OUT). BYTES accepts K/M/G.

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: gen-tsv BYTES KEYS SEED [OUT]");
        std::process::exit(2);
    }
    let bytes = spool_bench::parse_size(&args[1]);
    let keys: u32 = args[2].parse().expect("KEYS is a number");
    let seed: u64 = args[3].parse().expect("SEED is a number");
    let out: Box<dyn Write> = match args.get(4) {
        Some(path) => Box::new(BufWriter::new(std::fs::File::create(path)?)),
        None => Box::new(std::io::stdout().lock()),
    };
    let lines = spool_bench::tsv_sample::write_sample(out, bytes, keys, seed)?;
    eprintln!("gen-tsv: {lines} lines");
    Ok(())
}
