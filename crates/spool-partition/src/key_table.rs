//! The router's table from a key's bytes to its group id.
//!
//! Every record goes through one lookup, so the table is on the router's
//! hot path, and keys are mostly short (a country, a date, an id). A
//! `HashMap<Box<[u8]>, u32>` keeps each key in an allocation of its own:
//! a found entry's key is a pointer away, in a line the router's copying
//! has long pushed out of the caches, and is compared by calling `memcmp`.
//! Here an entry holds a key's first 16 bytes itself (the rest, if any,
//! behind a pointer), so the table's array is all a short key's lookup
//! touches, and the bytes are compared in registers, as two loads of each
//! side that overlap to cover them. Profiled on the CSV benchmark, the
//! lookup's share of the router's CPU fell though it runs a few more
//! instructions a record: the wait for the key's line was the cost
//! (docs/perf/partition-parquet.md, "the router's key table").
//!
//! The table is hashbrown's [`HashTable`], which takes the hash and the
//! equality per call, so the entries need not be keys of a map.

use hashbrown::HashTable;
use std::hash::BuildHasher;

/// Bytes of a key held in its entry.
const HEAD: usize = 16;

/// One key and its group.
struct Entry {
    /// The key's first bytes, zero after its end.
    head: [u8; HEAD],
    len: u32,
    gid: u32,
    /// The key's hash, for the table to grow without the key's bytes.
    hash: u64,
    /// The key's bytes after [`HEAD`], for a longer key.
    tail: Option<Box<[u8]>>,
}

impl Entry {
    fn new(key: &[u8], gid: u32, hash: u64) -> Self {
        let n = key.len().min(HEAD);
        let mut head = [0; HEAD];
        head[..n].copy_from_slice(&key[..n]);
        Entry {
            head,
            len: u32::try_from(key.len()).expect("a key shorter than 4 GiB"),
            gid,
            hash,
            tail: (key.len() > HEAD).then(|| key[HEAD..].into()),
        }
    }

    /// Whether this is `key`'s entry.
    #[inline(always)]
    fn is(&self, key: &[u8]) -> bool {
        if self.len as usize != key.len() {
            return false;
        }
        let n = key.len().min(HEAD);
        same(&self.head[..n], &key[..n]) && (self.tail.is_none() || self.tail_is(key))
    }

    /// Whether a longer key's bytes after [`HEAD`] are this entry's tail;
    /// out of line, so that the lookup of a short key calls nothing.
    #[cold]
    #[inline(never)]
    fn tail_is(&self, key: &[u8]) -> bool {
        self.tail.as_deref() == key.get(HEAD..)
    }
}

/// Keys (their bytes) to group ids.
#[derive(Default)]
pub struct KeyTable {
    table: HashTable<Entry>,
    hasher: foldhash::fast::RandomState,
}

impl KeyTable {
    /// The group id of `key`, if it has one.
    #[inline]
    pub fn get(&self, key: &[u8]) -> Option<u32> {
        let hash = self.hasher.hash_one(key);
        (self.table.find(hash, |entry| entry.is(key))).map(|entry| entry.gid)
    }

    /// Gives `key`, which has no id yet, the id `gid`.
    ///
    /// # Panics
    ///
    /// In debug builds, if `key` has an id already.
    pub fn insert(&mut self, key: &[u8], gid: u32) {
        debug_assert!(self.get(key).is_none(), "inserted twice");
        let hash = self.hasher.hash_one(key);
        (self.table).insert_unique(hash, Entry::new(key, gid, hash), |entry| entry.hash);
    }

    /// Keys in the table.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether the table has no key.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// Whether `a` and `b` are the same bytes; up to 16 bytes without a call.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        // The first and the last 8 bytes (overlapping below 16).
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        // The first and the last 4.
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        // The first, the middle and the last byte.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        0 => true,
        _ => a == b,
    }
}

/// The 8 bytes of `s` from `at`.
#[inline(always)]
fn word8(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"))
}

/// The 4 bytes of `s` from `at`.
#[inline(always)]
fn word4(s: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_and_long_keys() {
        let mut keys = KeyTable::default();
        assert_eq!(keys.get(b"de"), None);
        assert!(keys.is_empty());
        keys.insert(b"de", 7);
        keys.insert(b"a longer key than sixteen bytes", 8);
        keys.insert(b"", 9);
        assert_eq!(keys.get(b"de"), Some(7));
        assert_eq!(keys.get(b"a longer key than sixteen bytes"), Some(8));
        assert_eq!(keys.get(b"a longer key than sixteen byteZ"), None);
        assert_eq!(keys.get(b""), Some(9));
        assert_eq!(keys.get(b"df"), None);
        assert_eq!(keys.len(), 3);
    }

    proptest! {
        /// `same` agrees with slice equality, for keys of every length up
        /// to 40 that differ in one byte, or in length, or not at all.
        #[test]
        fn same_is_equality(
            a in proptest::collection::vec(any::<u8>(), 0..40),
            at in any::<prop::sample::Index>(),
            flip in 1u8..=255,
            shorter in any::<bool>(),
        ) {
            prop_assert!(same(&a, &a));
            if !a.is_empty() {
                let mut b = a.clone();
                b[at.index(a.len())] ^= flip;
                prop_assert!(!same(&a, &b));
                prop_assert!(!same(&b, &a));
                if shorter {
                    prop_assert!(!same(&a, &a[..a.len() - 1]));
                }
            }
        }

        /// The table finds every key inserted, and no other, as a
        /// `HashMap` would.
        #[test]
        fn table_is_a_map(
            keys in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..20), 1..200),
        ) {
            let mut table = KeyTable::default();
            let mut oracle = std::collections::HashMap::new();
            for key in &keys {
                match oracle.get(key) {
                    Some(&gid) => prop_assert_eq!(table.get(key), Some(gid)),
                    None => {
                        prop_assert_eq!(table.get(key), None);
                        let gid = oracle.len() as u32;
                        table.insert(key, gid);
                        oracle.insert(key.clone(), gid);
                    }
                }
            }
            prop_assert_eq!(table.len(), oracle.len());
            for (key, &gid) in &oracle {
                prop_assert_eq!(table.get(key), Some(gid));
            }
        }
    }
}
