//! The full layout's reader: [`Index`], whole hashes and their counts,
//! exact answers, and the five-hex-digit range queries of the Pwned
//! Passwords API, answered as views into the map.

use std::path::Path;

use crate::format::{
    self, Damaged, HashKind, Header, IndexError, IndexLayout, PREFIX_BYTES, RECORDS_OFFSET,
};

use super::mapped::Mapped;
use super::range::RangeEntries;
use super::search::partition_near;

/// An open index.
///
/// # Examples
///
/// ```no_run
/// let index = spool_pwned::Index::open("pwned.idx").unwrap();
/// let hash = spool_pwned::HashKind::Sha1.hash_password("password");
/// println!("{:?}", index.lookup(&hash)); // Ok(Some(count)), Ok(None) or Err(damage)
/// ```
pub struct Index {
    m: Mapped,
}

impl Index {
    /// Opens and maps `path` read-only and checks its header and its size —
    /// reading one page, so a CLI call stays fast on a cold cache. The rest
    /// is checked block by block as lookups read it (see the module docs),
    /// and all at once by [`verify`](Self::verify).
    ///
    /// # Errors
    ///
    /// An [`IndexError`] naming the file and the problem; a path that is
    /// not a regular file (a FIFO, a directory, a device) is refused before
    /// it is opened, since opening a FIFO would wait for a writer. A file of
    /// a smaller layout (t64, filter) is refused with its name: those are
    /// read through [`AnyIndex`](super::AnyIndex).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, IndexError> {
        Self::from_mapped(Mapped::open(path.as_ref())?)
    }

    /// A full index over `m`, which must have the sorted layout.
    pub(crate) fn from_mapped(m: Mapped) -> Result<Self, IndexError> {
        match m.header.layout {
            IndexLayout::Sorted => Ok(Index { m }),
            other => Err(m.invalid(&format!(
                "a {} index, which holds no whole hashes (open it with AnyIndex)",
                other.name()
            ))),
        }
    }

    /// The header fields.
    pub fn header(&self) -> &Header {
        &self.m.header
    }

    /// The file's path as given to [`open`](Self::open).
    pub fn path(&self) -> &str {
        &self.m.path
    }

    /// Checks the blocks holding records `from..to`.
    fn check_records(&self, from: usize, to: usize) -> Result<(), Damaged> {
        let len = format::record_len(self.m.header.kind);
        self.m
            .check(RECORDS_OFFSET + from * len..RECORDS_OFFSET + to * len)
    }

    /// The prevalence count of `hash` (20 bytes for SHA-1, 16 for NTLM),
    /// or `None` if it is not in the index (or has the wrong length).
    ///
    /// # Errors
    ///
    /// [`Damaged`] if a block the answer rests on fails its checksum
    /// (see the module docs): a damaged index gives an error, never a
    /// wrong count.
    ///
    /// Touches two fanout entries (one page) and the records near the
    /// interpolated position of `hash` within its prefix: hashes are
    /// uniform, so that guess is off by about √n/2 records for a prefix of
    /// n records (20 at 100 million hashes, 60 at a billion) and the search
    /// widens from it step by step, usually staying within one page.
    pub fn lookup(&self, hash: &[u8]) -> Result<Option<u32>, Damaged> {
        if hash.len() != self.m.header.kind.byte_len() {
            return Ok(None);
        }
        let p = usize::from(u16::from_be_bytes([hash[0], hash[1]]));
        let len = format::record_len(self.m.header.kind);
        let want = &hash[PREFIX_BYTES..];
        let found = match self.m.header.kind {
            HashKind::Sha1 => self.m.seek::<{ 20 - PREFIX_BYTES }>(
                p,
                len,
                want.try_into().expect("checked length"),
            ),
            HashKind::Ntlm => self.m.seek::<{ 16 - PREFIX_BYTES }>(
                p,
                len,
                want.try_into().expect("checked length"),
            ),
        };
        let Some(at) = found? else {
            return Ok(None);
        };
        let count =
            &self.m.map[RECORDS_OFFSET + (at + 1) * len - 4..RECORDS_OFFSET + (at + 1) * len];
        Ok(Some(u32::from_le_bytes(count.try_into().expect("4 bytes"))))
    }

    /// The records whose hashes start with the 20 bits `prefix` — the five
    /// hex digits of a Pwned Passwords range query — in hash order, as a
    /// view into the map: nothing is copied.
    ///
    /// Reads two fanout entries, then finds the 16-bit prefix's records
    /// whose next four bits match: hashes are uniform, so records of digit
    /// `d` start near `d/16` of the way through, and the search widens from
    /// there (pages touched stay near the answer, as in
    /// [`lookup`](Self::lookup)).
    ///
    /// # Errors
    ///
    /// [`Damaged`] if a block holding a record handed out, or one of the
    /// records just outside them or the prefix's fanout entries, fails its
    /// checksum (as for `lookup`, the records around the answer prove that
    /// nothing is left out).
    ///
    /// # Panics
    ///
    /// If `prefix` does not fit in 20 bits.
    pub fn range(&self, prefix: u32) -> Result<RangeEntries<'_>, Damaged> {
        assert!(
            prefix < 1 << 20,
            "a range prefix has 20 bits, got {prefix:#x}"
        );
        let kind = self.m.header.kind;
        let p = (prefix >> 4) as usize;
        let (lo, hi) = self.m.prefix_records(p)?;
        let len = format::record_len(kind);
        let bucket = &self.m.map[RECORDS_OFFSET + lo * len..RECORDS_OFFSET + hi * len];
        let n = bucket.len() / len;
        let digit = (prefix & 0xF) as u8;
        // The bucket is sorted: records whose hash digit 5 is below `digit`
        // come first, then those of `digit` (about n/16 of them).
        let start = partition_near(0, n, n * usize::from(digit) / 16, |i| {
            bucket[i * len] >> 4 < digit
        });
        let end = partition_near(start, n, start + n / 16, |i| bucket[i * len] >> 4 <= digit);
        self.check_records(lo + start.saturating_sub(1), lo + (end + 1).min(n))?;
        Ok(RangeEntries::new(&bucket[start * len..end * len], kind))
    }

    /// Every record of 16-bit prefix `p`, all their blocks checked: for
    /// reading a whole index in order, as a conversion does.
    pub(crate) fn prefix_checked(&self, p: usize) -> Result<RangeEntries<'_>, Damaged> {
        let (lo, hi) = self.m.prefix_records(p)?;
        self.check_records(lo, hi)?;
        let len = format::record_len(self.m.header.kind);
        let bytes = &self.m.map[RECORDS_OFFSET + lo * len..RECORDS_OFFSET + hi * len];
        Ok(RangeEntries::new(bytes, self.m.header.kind))
    }

    /// Checks every block checksum and the checksum of the fanout table
    /// and the records (reads the whole file), and that the table is
    /// monotonic.
    ///
    /// # Errors
    ///
    /// [`IndexError::Damaged`] naming the first damaged block, or
    /// [`IndexError::Invalid`] naming what is wrong.
    pub fn verify(&self) -> Result<(), IndexError> {
        self.m.verify_blocks()?;
        self.m.verify_fanout()
    }

    /// Forgets which blocks lookups have checked, so that the next
    /// lookups check them again: for a long-lived process that wants to
    /// notice a disk gone bad under pages the kernel read again, and for
    /// timing the checks.
    pub fn forget_checked_blocks(&self) {
        self.m.blocks.forget();
    }

    /// Hash kind of the index.
    pub fn kind(&self) -> HashKind {
        self.m.header.kind
    }
}
