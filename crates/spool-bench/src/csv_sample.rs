//! Deterministic CSV sample for the CSV splitting benchmark, and the same
//! records as unquoted TSV: the five fields of [`tsv_sample`] (key, id,
//! timestamp, colour, 40–70 letters of text), about 100 bytes a record.
//!
//! In the CSV a third of the fields are quoted; a quoted text field holds a
//! comma half of the time, a line break (LF or CRLF) a quarter of the time
//! and a doubled quote an eighth of the time. The TSV has the same values
//! with no quoting: line breaks become spaces, everything else stays.
//!
//! ```text
//! key0042,"83920117",2026-03-14T09:26:53,purple,"qwhxj, ztk
//! abc"
//! ```
//!
//! [`tsv_sample`]: crate::tsv_sample

use crate::tsv_sample::{push_letters, SplitMix, WORDS};

/// The same records as CSV and as TSV.
pub struct Sample {
    /// RFC 4180 CSV, LF line endings.
    pub csv: Vec<u8>,
    /// The same values tab-separated, unquoted.
    pub tsv: Vec<u8>,
    /// Number of records in each.
    pub records: u64,
}

/// Records until the CSV holds at least `bytes` bytes, with 1000 keys; the
/// same `(bytes, seed)` always gives the same sample.
pub fn sample(bytes: usize, seed: u64) -> Sample {
    sample_keys(bytes, seed, 1000)
}

/// [`sample`] with `keys` distinct keys (`key0000`, `key0001`, ...) in
/// column 1 instead of 1000.
pub fn sample_keys(bytes: usize, seed: u64, keys: u64) -> Sample {
    let mut rng = SplitMix(seed);
    let mut out = Sample {
        csv: Vec::with_capacity(bytes + 256),
        tsv: Vec::with_capacity(bytes + 256),
        records: 0,
    };
    let mut value = Vec::new();
    while out.csv.len() < bytes {
        let r = rng.next();
        let t = rng.next();
        let quoting = rng.next();
        for field in 0..5 {
            let quoted = (quoting >> (4 * field)).is_multiple_of(3);
            value.clear();
            match field {
                0 => value.extend_from_slice(format!("key{:04}", r % keys).as_bytes()),
                1 => value.extend_from_slice(format!("{:08}", (r >> 32) % 100_000_000).as_bytes()),
                2 => value.extend_from_slice(
                    format!(
                        "2026-{:02}-{:02}T{:02}:{:02}:{:02}",
                        1 + (t >> 8) % 12,
                        1 + (t >> 12) % 28,
                        (t >> 17) % 24,
                        (t >> 22) % 60,
                        (t >> 28) % 60
                    )
                    .as_bytes(),
                ),
                3 => value.extend_from_slice(WORDS[((t >> 34) % 8) as usize].as_bytes()),
                _ => text(&mut rng, &mut value, quoted.then_some(quoting >> 20)),
            }
            if field > 0 {
                out.csv.push(b',');
                out.tsv.push(b'\t');
            }
            write_field(&mut out, &value, quoted);
        }
        out.csv.push(b'\n');
        out.tsv.push(b'\n');
        out.records += 1;
    }
    out
}

/// 40–70 letters; when quoted (`extra`: random bits), sometimes a comma,
/// a line break or a quote inside.
fn text(rng: &mut SplitMix, value: &mut Vec<u8>, extra: Option<u64>) {
    let len = 40 + (rng.next() % 31) as usize;
    push_letters(rng, len, value);
    let Some(extra) = extra else { return };
    if extra.is_multiple_of(2) {
        value[len / 3] = b',';
    }
    match (extra >> 1) % 8 {
        0 => value[len / 2] = b'\n',
        1 => value[len / 2..len / 2 + 2].copy_from_slice(b"\r\n"),
        _ => {}
    }
    if (extra >> 4).is_multiple_of(8) {
        value[2 * len / 3] = b'"';
    }
}

/// Appends one field to both files; the CSV one quoted if `quoted`.
fn write_field(out: &mut Sample, value: &[u8], quoted: bool) {
    if quoted {
        out.csv.push(b'"');
        for &b in value {
            if b == b'"' {
                out.csv.push(b'"');
            }
            out.csv.push(b);
        }
        out.csv.push(b'"');
    } else {
        out.csv.extend_from_slice(value);
    }
    out.tsv.extend(
        value
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_third_quoted_same_records_as_tsv() {
        let s = sample(1 << 20, 3);
        assert_eq!(s.csv, sample(1 << 20, 3).csv, "deterministic");
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(&s.csv[..]);
        let mut n = 0;
        let mut with_break = 0;
        for (record, line) in reader.byte_records().zip(s.tsv.split(|&b| b == b'\n')) {
            let record = record.unwrap();
            let tsv: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
            assert_eq!(record.len(), 5);
            for (value, plain) in record.iter().zip(tsv) {
                let flat: Vec<u8> = value
                    .iter()
                    .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
                    .collect();
                assert_eq!(flat, plain);
            }
            with_break += usize::from(record[4].contains(&b'\n'));
            n += 1;
        }
        assert_eq!(n, s.records);
        let quoted = s
            .csv
            .split(|&b| b == b',' || b == b'\n')
            .filter(|f| f.first() == Some(&b'"'))
            .count();
        let share = quoted as f64 / (5 * n) as f64;
        assert!((0.25..0.42).contains(&share), "{share}");
        assert!(with_break > 0);
    }
}
