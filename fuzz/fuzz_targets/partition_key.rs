//! Key escaping: every escaped name is one safe path component (no `/`,
//! NUL or control bytes, not `.`/`..`/hidden, at most 200 bytes), and a
//! name that was not shortened unescapes to the exact key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spool_io::partition::escape::{escape, escape_full, unescape, MAX_NAME_LEN};

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
});
