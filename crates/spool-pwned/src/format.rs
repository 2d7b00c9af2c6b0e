//! The on-disk index format (documented in `docs/pwned-format.md`).
//!
//! ```text
//! offset  size        field
//! 0       8           magic "SPOOLPWN"
//! 8       4           format version (2), u32 LE
//! 12      1           hash kind (1 = SHA-1, 2 = NTLM)
//! 13      1           prefix bits (16): the fanout table's key width
//! 14      1           record length in bytes (hash length - 2 + 4)
//! 15      1           layout (1 = sorted records behind a fanout table;
//!                     2 = t64, 3 = filter: see `t64.rs`, `filter.rs`)
//! 16      8           record count, u64 LE
//! 24      8           sum of all counts, u64 LE
//! 32      4           CRC-32 of the fanout table and the records (64..E)
//! 36      1           block shift S: checksum blocks are 2^S bytes
//! 37      3           reserved (0)
//! 40      8           layout's item count: t64 escapes, filter
//!                     fingerprints (0 for layout 1), u64 LE
//! 48      12          reserved (0)
//! 60      4           CRC-32 of bytes 0..60
//! 64      8 * 65537   fanout table: u64 LE; entry p is the index of the
//!                     first record whose hash starts with the 16 bits p;
//!                     entry 65536 is the record count
//! ...     n * len     records, sorted by hash: hash bytes 2.. then the
//!                     count, u32 LE
//! E       4 * blocks  block checksums: CRC-32C of each 2^S-byte block of
//!                     bytes 0..E (the last block may be short), u32 LE
//! ```
//!
//! # Why block checksums
//!
//! A lookup reads a few dozen bytes of a file of gigabytes; a whole-file
//! checksum cannot be checked per lookup, and without a check a flipped
//! bit answers a wrong count silently. Each lookup instead checks the
//! blocks holding the bytes its answer rests on (see `index.rs`): with
//! 256-byte blocks that is one CRC-32C of 256 bytes per block, tens of
//! nanoseconds with the CPU's CRC instruction, for a table of 1.6% of the
//! file. Blocks are aligned to file offsets so that a block never spans two
//! pages: checking one reads no page the lookup did not read anyway, but
//! for the page of the checksum table.
//!
//! # Versions and layouts
//!
//! Version 1 had no block checksums and is refused with a message saying
//! to rebuild (answering from it could be silently wrong). The layout byte
//! says how the bytes after the header are laid out: the full layout
//! above, or one of the smaller ones (`t64.rs`, `filter.rs`), which keep
//! this header, its checksums and the block checksums.

use crate::HashKind;

/// First bytes of every index file.
pub const MAGIC: &[u8; 8] = b"SPOOLPWN";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 2;
/// Log2 of the checksum block size this crate writes (256 bytes: see the
/// module docs).
pub const BLOCK_SHIFT: u8 = 8;
/// Block shifts a reader accepts: 64 bytes to one 4 KiB page.
pub const BLOCK_SHIFTS: std::ops::RangeInclusive<u8> = 6..=12;
/// Header size in bytes.
pub const HEADER_LEN: usize = 64;
/// Bits of the hash that index the fanout table.
pub const PREFIX_BITS: u8 = 16;
/// Entries in the fanout table (one per prefix, plus the end).
pub const FANOUT_ENTRIES: usize = (1 << PREFIX_BITS) + 1;
/// Offset of the first record.
pub const RECORDS_OFFSET: usize = HEADER_LEN + 8 * FANOUT_ENTRIES;
/// Bytes of the hash implied by the fanout table (not stored per record).
pub const PREFIX_BYTES: usize = (PREFIX_BITS / 8) as usize;

/// The fanout table's bytes from counts per prefix (`counts[p + 1]`
/// records have prefix `p`): turned into running sums in place, so entry
/// `p` is the index of the first record with prefix `p`, then written
/// little-endian.
pub(crate) fn fanout_table(counts: &mut [u64]) -> Vec<u8> {
    for p in 1..counts.len() {
        counts[p] += counts[p - 1];
    }
    counts.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Bytes per record for a hash kind.
pub fn record_len(kind: HashKind) -> usize {
    kind.byte_len() - PREFIX_BYTES + 4
}

/// Why a header was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The file ends before the header does.
    #[error("file is {len} bytes, shorter than the {HEADER_LEN}-byte header")]
    TooShort {
        /// The file's length.
        len: usize,
    },
    /// The first bytes are not [`MAGIC`].
    #[error("not a spool pwned index (bad magic number)")]
    BadMagic,
    /// The header's checksum does not match its bytes.
    #[error("header checksum mismatch: the index is corrupt")]
    Checksum,
    /// A format version this build cannot read.
    #[error("index format version {found}; this build reads version {VERSION} (rebuild the index with `spool pwned build`)")]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// A layout code this build does not know.
    #[error("unknown index layout {code} (written by a newer spool?)")]
    UnknownLayout {
        /// The code in the file.
        code: u8,
    },
    /// A hash kind code this build does not know.
    #[error("unknown hash kind {code}")]
    UnknownKind {
        /// The code in the file.
        code: u8,
    },
    /// A table width, record length or block size other than this
    /// format's.
    #[error("unsupported layout: prefix bits {prefix_bits}, record length {record_len}, block shift {block_shift}")]
    Layout {
        /// Prefix bits in the file.
        prefix_bits: u8,
        /// Record length in the file.
        record_len: u8,
        /// Block shift in the file.
        block_shift: u8,
    },
}

/// How the records of an index are laid out after the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layout {
    /// A 16-bit fanout table, then records sorted by hash, then block
    /// checksums (code 1): whole hashes and counts.
    Sorted,
    /// Hashes truncated to 64 bits, with counts (code 2; `t64.rs`).
    T64,
    /// A binary fuse filter of the hashes' first 64 bits: membership
    /// only, no counts (code 3; `filter.rs`).
    Filter,
}

impl Layout {
    /// The code stored in the header.
    pub fn code(self) -> u8 {
        match self {
            Layout::Sorted => 1,
            Layout::T64 => 2,
            Layout::Filter => 3,
        }
    }

    /// The layout with this code, if any.
    pub fn from_code(code: u8) -> Option<Layout> {
        match code {
            1 => Some(Layout::Sorted),
            2 => Some(Layout::T64),
            3 => Some(Layout::Filter),
            _ => None,
        }
    }

    /// The name `spool pwned build --format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Sorted => "full",
            Layout::T64 => "t64",
            Layout::Filter => "filter",
        }
    }

    /// The header's record-length byte for this layout: bytes per record
    /// (full, t64) or per fingerprint (filter).
    pub fn record_len(self, kind: HashKind) -> usize {
        match self {
            Layout::Sorted => record_len(kind),
            Layout::T64 => crate::t64::RECORD_LEN,
            Layout::Filter => 2,
        }
    }
}

/// Bytes covered by block checksums: the header, the table and `records`
/// records of `kind` (everything but the checksums themselves) of a full
/// index.
pub fn checked_len(kind: HashKind, records: u64) -> Option<u64> {
    (records.checked_mul(record_len(kind) as u64)?).checked_add(RECORDS_OFFSET as u64)
}

/// Number of checksum blocks over `checked` bytes with blocks of
/// `2^block_shift` bytes.
pub fn block_count(checked: u64, block_shift: u8) -> u64 {
    checked.div_ceil(1 << block_shift)
}

/// The fields of a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Which hashes the index holds.
    pub kind: HashKind,
    /// Number of distinct hashes.
    pub records: u64,
    /// Sum of all prevalence counts.
    pub total_count: u64,
    /// CRC-32 of the fanout table and the records.
    pub data_crc: u32,
    /// Log2 of the checksum block size.
    pub block_shift: u8,
    /// How the bytes after the header are laid out.
    pub layout: Layout,
    /// Bits of the hash that index the table after the header: 16 for the
    /// sorted layouts' fanout table, 0 to 16 for a filter's shard table.
    pub prefix_bits: u8,
    /// The layout's own item count: escaped counts (t64), fingerprints
    /// (filter), 0 (full).
    pub items: u64,
}

impl Header {
    /// Bytes of the table after the header: a fanout table for the sorted
    /// layouts, a shard table for a filter.
    pub fn table_len(&self) -> usize {
        match self.layout {
            Layout::Sorted | Layout::T64 => 8 * FANOUT_ENTRIES,
            Layout::Filter => crate::filter::SHARD_ENTRY_LEN << self.prefix_bits,
        }
    }

    /// Bytes covered by block checksums (everything but the checksums
    /// themselves), or `None` if the counts overflow.
    pub fn checked_len(&self) -> Option<u64> {
        let front = (HEADER_LEN + self.table_len()) as u64;
        let body = match self.layout {
            Layout::Sorted => self.records.checked_mul(record_len(self.kind) as u64)?,
            Layout::T64 => crate::t64::body_len(self.records, self.items)?,
            Layout::Filter => self.items.checked_mul(2)?,
        };
        front.checked_add(body)
    }

    /// The file length the header describes: the checked bytes and their
    /// block checksums.
    pub fn file_len(&self) -> Option<u64> {
        let checked = self.checked_len()?;
        checked.checked_add(block_count(checked, self.block_shift).checked_mul(4)?)
    }

    /// The 64 header bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.kind.code();
        h[13] = self.prefix_bits;
        h[14] = self.layout.record_len(self.kind) as u8;
        h[15] = self.layout.code();
        h[36] = self.block_shift;
        h[40..48].copy_from_slice(&self.items.to_le_bytes());
        h[16..24].copy_from_slice(&self.records.to_le_bytes());
        h[24..32].copy_from_slice(&self.total_count.to_le_bytes());
        h[32..36].copy_from_slice(&self.data_crc.to_le_bytes());
        let crc = crc32fast::hash(&h[..60]);
        h[60..64].copy_from_slice(&crc.to_le_bytes());
        h
    }

    /// Parses and checks a header (the first [`HEADER_LEN`] bytes of `h`).
    ///
    /// # Errors
    ///
    /// The first problem found, checked in this order: length, magic
    /// number, checksum, version, layout, hash kind, table and block sizes
    /// — so a file that is not an index at all is called that, not
    /// "corrupt".
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_pwned::format::{Header, HEADER_LEN};
    /// use spool_pwned::{HashKind, HeaderError};
    /// use spool_pwned::format::Layout;
    /// let header = Header {
    ///     kind: HashKind::Ntlm, records: 3, total_count: 9, data_crc: 7, block_shift: 8,
    ///     layout: Layout::Sorted, prefix_bits: 16, items: 0,
    /// };
    /// let bytes = header.encode();
    /// assert_eq!(Header::decode(&bytes), Ok(header));
    /// assert_eq!(Header::decode(&bytes[..10]), Err(HeaderError::TooShort { len: 10 }));
    /// let mut damaged = bytes;
    /// damaged[20] ^= 1;
    /// assert_eq!(Header::decode(&damaged), Err(HeaderError::Checksum));
    /// assert_eq!(HEADER_LEN, 64);
    /// ```
    pub fn decode(h: &[u8]) -> Result<Header, HeaderError> {
        if h.len() < HEADER_LEN {
            return Err(HeaderError::TooShort { len: h.len() });
        }
        if &h[..8] != MAGIC {
            return Err(HeaderError::BadMagic);
        }
        let crc = u32::from_le_bytes(h[60..64].try_into().expect("4 bytes"));
        if crc != crc32fast::hash(&h[..60]) {
            return Err(HeaderError::Checksum);
        }
        let version = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(HeaderError::Version { found: version });
        }
        let layout = Layout::from_code(h[15]).ok_or(HeaderError::UnknownLayout { code: h[15] })?;
        let kind = HashKind::from_code(h[12]).ok_or(HeaderError::UnknownKind { code: h[12] })?;
        let prefix_bits_ok = match layout {
            Layout::Filter => h[13] <= PREFIX_BITS,
            Layout::Sorted | Layout::T64 => h[13] == PREFIX_BITS,
        };
        if !prefix_bits_ok
            || usize::from(h[14]) != layout.record_len(kind)
            || !BLOCK_SHIFTS.contains(&h[36])
        {
            return Err(HeaderError::Layout {
                prefix_bits: h[13],
                record_len: h[14],
                block_shift: h[36],
            });
        }
        Ok(Header {
            kind,
            records: u64::from_le_bytes(h[16..24].try_into().expect("8 bytes")),
            total_count: u64::from_le_bytes(h[24..32].try_into().expect("8 bytes")),
            data_crc: u32::from_le_bytes(h[32..36].try_into().expect("4 bytes")),
            block_shift: h[36],
            layout,
            prefix_bits: h[13],
            items: u64::from_le_bytes(h[40..48].try_into().expect("8 bytes")),
        })
    }
}
