//! An index of any layout, as the commands and the server open it: the
//! header says which, and each answers only what it holds.
//!
//! | layout | answers                         | `/range` | false "pwned"   |
//! |--------|---------------------------------|----------|-----------------|
//! | full   | [`Answer::Count`] or absent     | yes      | never           |
//! | t64    | [`Answer::Count`] or absent     | no       | n / 2^64        |
//! | filter | [`Answer::Present`] or absent   | no       | 1/65536         |
//!
//! A filter has no counts: it answers [`Answer::Present`] ("probably
//! pwned"), never a number. Neither smaller layout can answer a range
//! query: the API's suffixes are the whole hash's last 35 hex digits,
//! which they do not hold, and truncated suffixes would match nothing in a
//! client that compares whole ones — a silent "not pwned" for every
//! password. [`AnyIndex::range`] says so instead ([`RangeError::Unsupported`]).

use std::fmt;
use std::path::Path;

use crate::format::{Damaged, HashKind, Header, IndexError, IndexLayout};

use super::filter::FilterIndex;
use super::full::Index;
use super::mapped::Mapped;
use super::range::RangeEntries;
use super::t64::T64Index;

/// What an index says about a hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Not in the index.
    Absent,
    /// In the index, seen this many times (full and t64 layouts).
    Count(u32),
    /// Probably in the index, count unknown (filter layout).
    Present,
}

impl Answer {
    /// Whether the hash was found (a count, or probably present).
    pub fn found(self) -> bool {
        !matches!(self, Answer::Absent)
    }

    /// The count, if the index holds one: 0 for absent, `None` for a
    /// filter's "probably present".
    pub fn count(self) -> Option<u32> {
        match self {
            Answer::Absent => Some(0),
            Answer::Count(n) => Some(n),
            Answer::Present => None,
        }
    }
}

impl fmt::Display for Answer {
    /// `0`, the count, or `probably` (for a filter's present).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Absent => f.write_str("0"),
            Answer::Count(n) => write!(f, "{n}"),
            Answer::Present => f.write_str("probably"),
        }
    }
}

/// Why a range query got no records.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// A block the answer rests on fails its checksum.
    #[error(transparent)]
    Damaged(#[from] Damaged),
    /// The index's layout holds no whole hashes to answer with.
    #[error("a {} index holds no whole hashes, so it cannot answer range queries (build a full index for /range)", .0.name())]
    Unsupported(IndexLayout),
}

/// An open index of any layout.
///
/// # Examples
///
/// ```
/// use spool_pwned::build::{build, convert, BuildOptions, Source};
/// use spool_pwned::{format::IndexLayout, Answer, AnyIndex, HashKind, Index};
/// let dir = std::env::temp_dir().join(format!("spool-any-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let text = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:10\n";
/// build(vec![Source::from_reader("doc", text.as_bytes())], &dir.join("full"), &BuildOptions::default()).unwrap();
/// let full = Index::open(dir.join("full")).unwrap();
/// convert(&full, &dir.join("filter"), IndexLayout::Filter, 64 << 20).unwrap();
/// let filter = AnyIndex::open(dir.join("filter")).unwrap();
/// let hash = HashKind::Sha1.hash_password("password");
/// assert_eq!(filter.check(&hash), Ok(Answer::Present));
/// assert_eq!(filter.check(&HashKind::Sha1.hash_password("correct horse")), Ok(Answer::Absent));
/// assert!(filter.range(0x5BAA6).is_err());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct AnyIndex {
    inner: Inner,
}

enum Inner {
    /// Whole hashes and counts.
    Full(Index),
    /// 64-bit truncated hashes and counts.
    T64(T64Index),
    /// A binary fuse filter.
    Filter(FilterIndex),
}

impl AnyIndex {
    /// Opens and maps `path`, whatever its layout (see [`Index::open`]).
    ///
    /// # Errors
    ///
    /// An [`IndexError`] naming the file and the problem.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, IndexError> {
        let m = Mapped::open(path.as_ref())?;
        let inner = match m.header.layout {
            IndexLayout::T64 => Inner::T64(T64Index { m }),
            IndexLayout::Filter => Inner::Filter(FilterIndex::open(m)),
            IndexLayout::Sorted => Inner::Full(Index::from_mapped(m)?),
        };
        Ok(AnyIndex { inner })
    }

    /// The full index, if this is one.
    pub fn as_full(&self) -> Option<&Index> {
        match &self.inner {
            Inner::Full(index) => Some(index),
            _ => None,
        }
    }

    fn mapped(&self) -> Option<&Mapped> {
        match &self.inner {
            Inner::Full(_) => None,
            Inner::T64(t) => Some(&t.m),
            Inner::Filter(f) => Some(&f.m),
        }
    }

    /// The header fields.
    pub fn header(&self) -> &Header {
        match (&self.inner, self.mapped()) {
            (Inner::Full(index), _) => index.header(),
            (_, Some(m)) => &m.header,
            _ => unreachable!("every other layout is mapped"),
        }
    }

    /// The file's path as given to [`open`](Self::open).
    pub fn path(&self) -> &str {
        match (&self.inner, self.mapped()) {
            (Inner::Full(index), _) => index.path(),
            (_, Some(m)) => &m.path,
            _ => unreachable!("every other layout is mapped"),
        }
    }

    /// The hash kind.
    pub fn kind(&self) -> HashKind {
        self.header().kind
    }

    /// The layout.
    pub fn layout(&self) -> IndexLayout {
        self.header().layout
    }

    /// What the index says about `hash` (20 bytes for SHA-1, 16 for NTLM;
    /// any other length is absent).
    ///
    /// # Errors
    ///
    /// [`Damaged`] if a block the answer rests on fails its checksum: a
    /// damaged index gives an error, never a wrong answer.
    #[inline]
    pub fn check(&self, hash: &[u8]) -> Result<Answer, Damaged> {
        if hash.len() != self.kind().byte_len() {
            return Ok(Answer::Absent);
        }
        Ok(match &self.inner {
            Inner::Full(index) => index.lookup(hash)?.map_or(Answer::Absent, Answer::Count),
            Inner::T64(t) => t.lookup(hash)?.map_or(Answer::Absent, Answer::Count),
            Inner::Filter(f) if f.contains(hash)? => Answer::Present,
            Inner::Filter(_) => Answer::Absent,
        })
    }

    /// What the index says about each of `hashes`, in order: the same
    /// answers as [`check`](Self::check), but a filter index fetches the
    /// fingerprints of a few hashes ahead of the one it answers, so that
    /// their cache misses overlap (in a filter larger than the CPU caches,
    /// that is what a lookup waits for; BENCHMARKS.md has the lookups per
    /// second of both).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_pwned::build::{build, BuildOptions, Source};
    /// use spool_pwned::{Answer, AnyIndex, HashKind};
    /// let dir = std::env::temp_dir().join(format!("spool-many-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let text = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:10\n";
    /// build(vec![Source::from_reader("doc", text.as_bytes())], &dir.join("full"), &BuildOptions::default()).unwrap();
    /// let index = AnyIndex::open(dir.join("full")).unwrap();
    /// let hashes = ["password", "correct horse"].map(|p| HashKind::Sha1.hash_password(p));
    /// let answers: Result<Vec<Answer>, _> = index.check_many(&hashes).collect();
    /// assert_eq!(answers, Ok(vec![Answer::Count(10), Answer::Absent]));
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn check_many<'a, H: AsRef<[u8]>>(&'a self, hashes: &'a [H]) -> CheckMany<'a, H> {
        CheckMany {
            index: self,
            hashes,
            next: 0,
        }
    }

    /// Starts fetching what a [`check`](Self::check) of `hash` will read
    /// (a filter's three fingerprints; nothing for the other layouts,
    /// whose reads depend on each other).
    #[inline]
    fn prefetch(&self, hash: &[u8]) {
        match &self.inner {
            Inner::Filter(f) if hash.len() == self.kind().byte_len() => f.prefetch(hash),
            _ => {}
        }
    }

    /// The records of a five-hex-digit range (see [`Index::range`]).
    ///
    /// # Errors
    ///
    /// [`RangeError::Unsupported`] for the smaller layouts (see the module
    /// docs), [`RangeError::Damaged`] as for [`Index::range`].
    ///
    /// # Panics
    ///
    /// If `prefix` does not fit in 20 bits.
    pub fn range(&self, prefix: u32) -> Result<RangeEntries<'_>, RangeError> {
        match &self.inner {
            Inner::Full(index) => Ok(index.range(prefix)?),
            _ => Err(RangeError::Unsupported(self.layout())),
        }
    }

    /// Checks the whole file (see [`Index::verify`]).
    ///
    /// # Errors
    ///
    /// What is wrong, naming the file.
    pub fn verify(&self) -> Result<(), IndexError> {
        match &self.inner {
            Inner::Full(index) => index.verify(),
            Inner::T64(t) => t.verify(),
            Inner::Filter(f) => f.verify(),
        }
    }

    /// Forgets which blocks lookups have checked (see
    /// [`Index::forget_checked_blocks`]).
    pub fn forget_checked_blocks(&self) {
        match (&self.inner, self.mapped()) {
            (Inner::Full(index), _) => index.forget_checked_blocks(),
            (_, Some(m)) => m.blocks.forget(),
            _ => unreachable!("every other layout is mapped"),
        }
    }
}

/// Hashes a batch lookup runs ahead of the one it answers. A lookup in a
/// filter is three cache misses; a few lookups' worth in flight keeps the
/// CPU's miss buffers busy without evicting lines before their turn.
const AHEAD: usize = 8;

/// The answers of [`AnyIndex::check_many`], in the order of its hashes.
pub struct CheckMany<'a, H> {
    index: &'a AnyIndex,
    hashes: &'a [H],
    next: usize,
}

impl<H: AsRef<[u8]>> Iterator for CheckMany<'_, H> {
    type Item = Result<Answer, Damaged>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let hash = self.hashes.get(self.next)?.as_ref();
        if self.next == 0 {
            for h in self.hashes.iter().take(AHEAD) {
                self.index.prefetch(h.as_ref());
            }
        }
        if let Some(ahead) = self.hashes.get(self.next + AHEAD) {
            self.index.prefetch(ahead.as_ref());
        }
        self.next += 1;
        Some(self.index.check(hash))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.hashes.len() - self.next;
        (left, Some(left))
    }
}

impl<H: AsRef<[u8]>> ExactSizeIterator for CheckMany<'_, H> {}
