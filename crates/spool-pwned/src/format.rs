//! The on-disk index format (documented in `docs/pwned-format.md`).
//!
//! ```text
//! offset  size        field
//! 0       8           magic "SPOOLPWN"
//! 8       4           format version (1), u32 LE
//! 12      1           hash kind (1 = SHA-1, 2 = NTLM)
//! 13      1           prefix bits (16): the fanout table's key width
//! 14      1           record length in bytes (hash length - 2 + 4)
//! 15      1           reserved (0)
//! 16      8           record count, u64 LE
//! 24      8           sum of all counts, u64 LE
//! 32      4           CRC-32 of the fanout table and the records
//! 36      24          reserved (0)
//! 60      4           CRC-32 of bytes 0..60
//! 64      8 * 65537   fanout table: u64 LE; entry p is the index of the
//!                     first record whose hash starts with the 16 bits p;
//!                     entry 65536 is the record count
//! ...     n * len     records, sorted by hash: hash bytes 2.. then the
//!                     count, u32 LE
//! ```

use crate::HashKind;

/// First bytes of every index file.
pub const MAGIC: &[u8; 8] = b"SPOOLPWN";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 1;
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
    #[error("index format version {found}; this build reads version {VERSION}")]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// A hash kind code this build does not know.
    #[error("unknown hash kind {code}")]
    UnknownKind {
        /// The code in the file.
        code: u8,
    },
    /// A table width or record length other than this format's.
    #[error("unsupported layout: prefix bits {prefix_bits}, record length {record_len}")]
    Layout {
        /// Prefix bits in the file.
        prefix_bits: u8,
        /// Record length in the file.
        record_len: u8,
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
}

impl Header {
    /// The 64 header bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.kind.code();
        h[13] = PREFIX_BITS;
        h[14] = record_len(self.kind) as u8;
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
    /// number, checksum, version, hash kind, layout — so a file that is not
    /// an index at all is called that, not "corrupt".
    ///
    /// # Examples
    ///
    /// ```
    /// use spool_pwned::format::{Header, HEADER_LEN};
    /// use spool_pwned::{HashKind, HeaderError};
    /// let header = Header { kind: HashKind::Ntlm, records: 3, total_count: 9, data_crc: 7 };
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
        let kind = HashKind::from_code(h[12]).ok_or(HeaderError::UnknownKind { code: h[12] })?;
        if h[13] != PREFIX_BITS || usize::from(h[14]) != record_len(kind) {
            return Err(HeaderError::Layout {
                prefix_bits: h[13],
                record_len: h[14],
            });
        }
        Ok(Header {
            kind,
            records: u64::from_le_bytes(h[16..24].try_into().expect("8 bytes")),
            total_count: u64::from_le_bytes(h[24..32].try_into().expect("8 bytes")),
            data_crc: u32::from_le_bytes(h[32..36].try_into().expect("4 bytes")),
        })
    }
}
