//! Arbitrary lines through the core's HIBP line parser (SHA-1 and NTLM,
//! with and without a range-file prefix): never a panic, and an accepted
//! line's hash re-encodes to the line's own hex digits. The one-pass parser
//! of whole lines (`parse_whole_line`) must agree with splitting the input's
//! first line at `\n` and parsing it with `parse_line`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spool_pwned::text::hibp::{parse_line, parse_whole_line};

fuzz_target!(|input: (bool, bool, &[u8])| {
    let (ntlm, ranged, line) = input;
    let len = if ntlm { 16 } else { 20 };
    let prefix: &[u8] = if ranged { b"0A1B2" } else { b"" };
    if !ranged {
        let first = line
            .iter()
            .position(|&b| b == b'\n')
            .map_or(line.len(), |i| i + 1);
        let mut want = [0u8; 20];
        let body = line[..first].strip_suffix(b"\n").unwrap_or(&line[..first]);
        let want = parse_line(body, b"", &mut want[..len])
            .ok()
            .map(|count| (want, count, first));
        let mut got = [0u8; 20];
        let got = parse_whole_line(line, &mut got[..len]).map(|(count, used)| (got, count, used));
        assert_eq!(got, want);
    }
    let mut key = [0u8; 20];
    if let Ok(count) = parse_line(line, prefix, &mut key[..len]) {
        let hex: String = key[..len].iter().map(|b| format!("{b:02X}")).collect();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let colon = line.iter().position(|&b| b == b':').unwrap();
        let mut full = prefix.to_vec();
        full.extend_from_slice(&line[..colon]);
        assert_eq!(hex.as_bytes(), full.to_ascii_uppercase().as_slice());
        assert_eq!(
            std::str::from_utf8(&line[colon + 1..])
                .unwrap()
                .parse::<u32>()
                .unwrap(),
            count
        );
    }
});
