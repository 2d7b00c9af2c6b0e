//! Untrusted field values through `--format parquet`'s value parsers: none
//! may panic; int64 and float64 agree with Rust's own `str::parse`; a
//! date that parses prints back as exactly its input (a real calendar day,
//! counted from 1970-01-01); a timestamp that parses lies on the day its
//! first ten bytes name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spool_partition::parquet::values::{
    parse_bool, parse_date, parse_f64, parse_i64, parse_timestamp,
};

/// Days since 1970-01-01 as `YYYY-MM-DD` (Hinnant's `civil_from_days`).
fn civil(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fuzz_target!(|v: &[u8]| {
    let text = std::str::from_utf8(v).ok();
    assert_eq!(parse_i64(v), text.and_then(|t| t.parse::<i64>().ok()));
    let float = text.and_then(|t| t.parse::<f64>().ok());
    assert_eq!(parse_f64(v).map(f64::to_bits), float.map(f64::to_bits));
    if let Some(b) = parse_bool(v) {
        assert!(
            v.len() <= 5 && v.iter().all(u8::is_ascii_alphanumeric),
            "{b}"
        );
    }
    if let Some(days) = parse_date(v) {
        assert_eq!(civil(i64::from(days)).as_bytes(), v);
    }
    if let Some(micros) = parse_timestamp(v) {
        let days = parse_date(&v[..10]).expect("a timestamp starts with a date");
        assert_eq!(micros.div_euclid(86_400_000_000), i64::from(days));
    }
});
