//! Keys made safe as file names, reversibly.
//!
//! A key is user data and may be anything: `../../etc`, an empty string, a
//! NUL byte, invalid UTF-8, a megabyte of text. The escaped form is what
//! Hive-style readers (Spark, DuckDB, Polars) expect — percent-encoding of
//! the bytes they treat as special — plus the rules that keep every name
//! inside the output directory:
//!
//! | key bytes | written as |
//! |---|---|
//! | control bytes `00`–`1F`, `7F`, `"` `#` `%` `'` `*` `/` `:` `<` `=` `>` `?` `\` `[` `]` `^` `{` `|` `}` `~` | `%XX` (upper-case hex) |
//! | a leading `.` (so no `.`, `..` or hidden names) | `%2E` |
//! | a leading `_` (names readers skip, and the manifest's `_partitions.tsv`, stay reserved) | `%5F` |
//! | bytes that are not valid UTF-8 | `%XX` each |
//! | the empty key | `__HIVE_DEFAULT_PARTITION__` (Hive's and Spark's name) |
//! | the literal key `__HIVE_DEFAULT_PARTITION__` | `%5F_HIVE_DEFAULT_PARTITION__` (by the rule above) |
//! | a key whose escaped form exceeds 200 bytes | its first 167 bytes, `~`, and 32 hex digits of the SHA-256 of the whole key |
//!
//! So the only name starting with `_` is the empty key's, and no key can
//! take the name of the manifest, in any layout. Hive-style readers skip
//! names starting with `_` or `.`: no key's file is hidden from them.
//!
//! Shortened names carry 128 bits of a cryptographic hash, so two keys
//! that share one cannot be crafted (a 64-bit hash falls to a birthday
//! search in CPU-seconds); the layout still checks every shortened name
//! for a collision and gives a colliding key another name
//! ([`escape_within_nth`]). The hash is not keyed, so a key's name is the
//! same in every run — which a dataset written by several runs needs.
//!
//! In the Hive layout the directory name is `COLUMN=KEY`; a long column
//! name leaves less room, and the key is shortened the same way to keep
//! the whole name within 255 bytes (see [`escape_within`]).
//!
//! Everything else (letters, digits, spaces, other UTF-8) is kept as is.
//! [`unescape`] inverts every rule but the last; a shortened name is marked
//! by its `~` (which is otherwise always escaped), and the output's
//! `_partitions.tsv` manifest maps it back to the full key.

/// Hive's name for the partition of the empty (null) key.
pub const EMPTY_KEY_NAME: &str = "__HIVE_DEFAULT_PARTITION__";
/// Longest escaped name kept whole.
pub const MAX_NAME_LEN: usize = 200;
/// Length of the `~` and hash that end a shortened name.
const HASH_SUFFIX: usize = 1 + 32;

/// The file-name form of `key`; see the [module docs](self).
///
/// # Examples
///
/// ```
/// use spool_partition::escape::{escape, unescape};
/// assert_eq!(escape(b"Berlin"), "Berlin");
/// assert_eq!(escape(b"../etc/passwd"), "%2E.%2Fetc%2Fpasswd");
/// assert_eq!(escape(b""), "__HIVE_DEFAULT_PARTITION__");
/// assert_eq!(escape(b"a\0b\xff"), "a%00b%FF");
/// assert_eq!(unescape("%2E.%2Fetc%2Fpasswd").unwrap(), b"../etc/passwd");
/// ```
pub fn escape(key: &[u8]) -> String {
    escape_within(key, MAX_NAME_LEN)
}

/// Like [`escape`], with room for only `max_len` bytes (at least 40): a
/// longer escaped form keeps its first `max_len - 33` bytes before the `~`
/// and the hash. For names that share a file name with something else,
/// such as Hive's `COLUMN=KEY`.
///
/// # Examples
///
/// ```
/// use spool_partition::escape::{escape, escape_within};
/// let key = "k".repeat(300);
/// assert_eq!(escape(key.as_bytes()).len(), 167 + 33);
/// assert_eq!(escape_within(key.as_bytes(), 60).len(), 27 + 33);
/// assert_eq!(escape_within(b"short", 60), "short");
/// ```
pub fn escape_within(key: &[u8], max_len: usize) -> String {
    escape_within_nth(key, max_len, 0)
}

/// Like [`escape_within`], but a shortened name's hash also covers `n`:
/// the `n`-th other name for a key whose shortened name collided (0 is the
/// ordinary name). Names kept whole do not depend on `n` — they never
/// collide, since escaping is reversible.
///
/// # Examples
///
/// ```
/// use spool_partition::escape::{escape_within, escape_within_nth};
/// let key = "k".repeat(300);
/// assert_eq!(escape_within_nth(key.as_bytes(), 200, 0), escape_within(key.as_bytes(), 200));
/// assert_ne!(escape_within_nth(key.as_bytes(), 200, 1), escape_within(key.as_bytes(), 200));
/// assert_eq!(escape_within_nth(b"short", 200, 1), "short");
/// ```
pub fn escape_within_nth(key: &[u8], max_len: usize, n: u32) -> String {
    if key.is_empty() {
        return EMPTY_KEY_NAME.to_owned();
    }
    let max_len = max_len.max(40);
    let full = escape_full(key);
    if full.len() <= max_len {
        return full;
    }
    let mut cut = max_len - HASH_SUFFIX;
    while !full.is_char_boundary(cut) {
        cut -= 1;
    }
    // Never cut a %XX escape in half.
    let tail = &full.as_bytes()[cut.saturating_sub(2)..cut];
    if let Some(pct) = tail.iter().position(|&b| b == b'%') {
        cut = cut - tail.len() + pct;
    }
    format!("{}~{}", &full[..cut], hash_hex(key, n))
}

/// The escaped form of `key` without the length limit (used in the
/// manifest, where it is always reversible).
pub fn escape_full(key: &[u8]) -> String {
    let mut out = String::with_capacity(key.len());
    for chunk in key.utf8_chunks() {
        for c in chunk.valid().chars() {
            if needs_escape(c) || (matches!(c, '.' | '_') && out.is_empty()) {
                let mut bytes = [0; 4];
                for &b in c.encode_utf8(&mut bytes).as_bytes() {
                    push_pct(&mut out, b);
                }
            } else {
                out.push(c);
            }
        }
        for &b in chunk.invalid() {
            push_pct(&mut out, b);
        }
    }
    out
}

/// The key a name stands for; `None` for a shortened name (look it up in
/// the manifest) or a malformed escape.
///
/// # Examples
///
/// ```
/// use spool_partition::escape::unescape;
/// assert_eq!(unescape("__HIVE_DEFAULT_PARTITION__").unwrap(), b"");
/// assert_eq!(unescape("a%20b").unwrap(), b"a b");
/// assert!(unescape("abc~0123456789abcdef").is_none());
/// ```
pub fn unescape(name: &str) -> Option<Vec<u8>> {
    if name == EMPTY_KEY_NAME {
        return Some(Vec::new());
    }
    if name.contains('~') {
        return None;
    }
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            // Two hex digits exactly (`from_str_radix` alone would also
            // take a sign: "%+1").
            let hex = name.get(i + 1..i + 3)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '"' | '#'
                | '%'
                | '\''
                | '*'
                | '/'
                | ':'
                | '<'
                | '='
                | '>'
                | '?'
                | '\\'
                | '['
                | ']'
                | '^'
                | '{'
                | '|'
                | '}'
                | '~'
        )
}

fn push_pct(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(HEX[usize::from(b >> 4)] as char);
    out.push(HEX[usize::from(b & 15)] as char);
}

/// The first 128 bits of SHA-256 over `key` (over `n` and `key` for the
/// `n`-th other name), in hex: the same on every run, version and
/// machine, and too long for a birthday search.
fn hash_hex(key: &[u8], n: u32) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    if n > 0 {
        hasher.update(n.to_le_bytes());
    }
    hasher.update(key);
    let digest = hasher.finalize();
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn safe(name: &str) -> bool {
        !name.is_empty()
            && !name.contains('/')
            && !name.contains('\0')
            && !name.starts_with('.')
            && name.len() <= MAX_NAME_LEN
            && !name.chars().any(char::is_control)
    }

    #[test]
    fn hostile_keys() {
        for key in [
            &b".."[..],
            b".",
            b"/",
            b"/etc/passwd",
            b"..\\..\\x",
            b"a/../../b",
            b"\0",
            b"\n\r\t",
            b"\xff\xfe",
            b".hidden",
            b"__HIVE_DEFAULT_PARTITION__",
            b"col=val",
            b"~",
            b"_partitions",
            b"_SUCCESS",
        ] {
            let name = escape(key);
            assert!(safe(&name), "{key:?} -> {name}");
            assert_eq!(unescape(&name).unwrap(), key, "{name}");
        }
        assert_eq!(escape(b".."), "%2E.");
        assert_eq!(escape(b"_partitions"), "%5Fpartitions");
        assert_eq!(escape(b"a_b"), "a_b");
    }

    #[test]
    fn a_pair_that_shared_a_64_bit_hash_gets_two_names() {
        // Both keys had the same FNV-1a 64 hash, found by a birthday search.
        let prefix = "a".repeat(190);
        let a = format!("{prefix}cYxhNSkmN~B");
        let b = format!("{prefix}POofLrbkJj@");
        assert_ne!(escape(a.as_bytes()), escape(b.as_bytes()));
    }

    #[test]
    fn malformed_escapes_are_refused() {
        for name in ["%", "%4", "%+1", "%-1", "%G0", "a%é", "%%41"] {
            assert_eq!(unescape(name), None, "{name}");
        }
        assert_eq!(unescape("%4a%4A").unwrap(), b"JJ");
    }

    #[test]
    fn long_keys_are_shortened_with_a_hash() {
        let a = vec![b'a'; 10_000];
        let mut b = a.clone();
        b[9_999] = b'b';
        let (na, nb) = (escape(&a), escape(&b));
        assert!(safe(&na) && safe(&nb));
        assert_ne!(na, nb);
        assert!(unescape(&na).is_none());
        let pct = vec![b'/'; 100]; // every byte escaped: cuts must not split %2F
        let name = escape(&pct);
        assert_eq!(name.split('~').next().unwrap().len() % 3, 0, "{name}");
    }

    proptest! {
        #[test]
        fn escape_is_safe_and_reversible(key in proptest::collection::vec(any::<u8>(), 0..80)) {
            let name = escape(&key);
            prop_assert!(safe(&name), "{:?} -> {}", key, name);
            if escape_full(&key).len() <= MAX_NAME_LEN {
                prop_assert_eq!(unescape(&name).unwrap(), key.clone());
            } else {
                // 67 or more of 80 random bytes escaped: shortened.
                prop_assert!(unescape(&name).is_none(), "{}", name);
            }
            prop_assert_eq!(unescape(&escape_full(&key)).unwrap_or_default(), if key.is_empty() { vec![] } else { key });
        }

        #[test]
        fn long_names_are_safe(key in proptest::collection::vec(any::<u8>(), 60..600)) {
            prop_assert!(safe(&escape(&key)));
        }
    }
}
