//! Key escaping: every escaped name is one safe path component (no `/`,
//! NUL or control bytes, not `.`/`..`/hidden, at most 200 bytes), and a
//! name that was not shortened unescapes to the exact key (also with less
//! room, `escape_within`); `unescape` of any string does not panic and
//! decodes only well-formed `%XX`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spool_partition::escape::{
    escape, escape_full, escape_within, unescape, EMPTY_KEY_NAME, MAX_NAME_LEN,
};

fuzz_target!(|key: &[u8]| {
    let name = escape(key);
    assert!(!name.is_empty() && name.len() <= MAX_NAME_LEN, "{name}");
    assert!(!name.starts_with('.') && !name.contains('/') && !name.chars().any(char::is_control));
    if !name.contains('~') {
        assert_eq!(unescape(&name).as_deref(), Some(key));
    }
    if !key.is_empty() {
        assert_eq!(unescape(&escape_full(key)).as_deref(), Some(key));
    }
    // Less room (a long Hive column name): still safe, still within it.
    let room = 40 + usize::from(key.first().copied().unwrap_or(0));
    let short = escape_within(key, room);
    assert!(short.len() <= room && !short.starts_with('.') && !short.contains('/'));
    if !short.contains('~') {
        assert_eq!(unescape(&short).as_deref(), Some(key));
    }
    // Any name (a directory listing is untrusted too): no panic, and a
    // decoded `%XX` is always two hex digits.
    if let Ok(name) = std::str::from_utf8(key) {
        if unescape(name).is_some() && name != EMPTY_KEY_NAME {
            let well_formed = name.split('%').skip(1).all(|after| {
                after.len() >= 2 && after.as_bytes()[..2].iter().all(u8::is_ascii_hexdigit)
            });
            assert!(well_formed, "{name:?}");
        }
    }
});
