//! `gen-tsv BYTES KEYS SEED [OUT]`: deterministic sample TSV for the
//! partition benchmarks (to stdout without OUT). BYTES accepts K/M/G.

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: gen-tsv BYTES KEYS SEED [OUT]");
        std::process::exit(2);
    }
    let bytes = parse_size(&args[1]);
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

fn parse_size(s: &str) -> u64 {
    let (num, mult) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().expect("BYTES is a size like 1G") * mult
}
