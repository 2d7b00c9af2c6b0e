//! The 64 bytes every index starts with: what the file holds (hash kind,
//! layout, counts), its data checksum, and a checksum of the header
//! itself; [`Header::decode`] checks them in an order that names a file
//! that is no index at all as such, not as "corrupt".
//!
//! Parse-then-trust: once [`Header::decode`] has passed and the file's
//! length equals [`Header::file_len`], every offset a layout computes
//! from the header lies within the file.

use super::blocks::block_count;
use super::frame::{BLOCK_SHIFTS, HEADER_LEN, MAGIC, VERSION};
use super::full::PREFIX_BITS;
use super::hash_kind::HashKind;
use super::layout::IndexLayout;

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
    pub layout: IndexLayout,
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
        self.layout.table_len(self.prefix_bits)
    }

    /// Bytes covered by block checksums (everything but the checksums
    /// themselves), or `None` if the counts overflow.
    pub fn checked_len(&self) -> Option<u64> {
        let front = (HEADER_LEN + self.table_len()) as u64;
        let body = self.layout.body_len(self.kind, self.records, self.items)?;
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
    /// use spool_pwned::format::{Header, IndexLayout, HEADER_LEN};
    /// use spool_pwned::{HashKind, HeaderError};
    /// let header = Header {
    ///     kind: HashKind::Ntlm, records: 3, total_count: 9, data_crc: 7, block_shift: 8,
    ///     layout: IndexLayout::Sorted, prefix_bits: 16, items: 0,
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
        let layout =
            IndexLayout::from_code(h[15]).ok_or(HeaderError::UnknownLayout { code: h[15] })?;
        let kind = HashKind::from_code(h[12]).ok_or(HeaderError::UnknownKind { code: h[12] })?;
        let prefix_bits_ok = match layout {
            IndexLayout::Filter => h[13] <= PREFIX_BITS,
            IndexLayout::Sorted | IndexLayout::T64 => h[13] == PREFIX_BITS,
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
