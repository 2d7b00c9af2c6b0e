//! The core's record and field splitters on arbitrary bytes, against the
//! standard library: records (raw bytes, line numbers, offsets) equal
//! `split_inclusive` on the delimiter, `bytes()` drops exactly the
//! delimiter (and the `\r` of a CRLF line), and every field view equals
//! `split` on the field delimiter.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spool::text::{fields, PlainRecords};

fuzz_target!(|input: (bool, u8, u8, &[u8])| {
    let (nul_records, field_delimiter, index, data) = input;
    let delimiter = if nul_records { 0 } else { b'\n' };
    let model: Vec<&[u8]> = data.split_inclusive(|&b| b == delimiter).collect();
    let mut offset = 0u64;
    let mut count = 0;
    for (i, record) in PlainRecords::new(data, delimiter).enumerate() {
        let raw = model[i];
        assert_eq!(record.raw(), raw);
        assert_eq!((record.line(), record.offset()), (i as u64 + 1, offset));
        let mut body = raw.strip_suffix(&[delimiter]).unwrap_or(raw);
        if delimiter == b'\n' && raw.ends_with(b"\n") {
            body = body.strip_suffix(b"\r").unwrap_or(body);
        }
        assert_eq!(record.bytes(), body);
        let split: Vec<&[u8]> = body.split(|&b| b == field_delimiter).collect();
        let n = usize::from(index % 8);
        assert_eq!(
            fields::field(body, field_delimiter, n),
            split.get(n).copied()
        );
        assert_eq!(fields::count(body, field_delimiter), split.len());
        assert_eq!(
            fields::PlainFields::new(body, field_delimiter).collect::<Vec<_>>(),
            split
        );
        offset += raw.len() as u64;
        count += 1;
    }
    assert_eq!(count, model.len());
});
