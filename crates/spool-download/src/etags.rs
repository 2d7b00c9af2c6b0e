//! The ETags of an index's ranges, kept beside it in `NAME.etags`, so that
//! `update` can ask the server for each range "only if changed".
//!
//! ```text
//!  "SPOOLETG" | version u8 (1) | kind code u8 | 2 zero bytes
//!  | records u64 | total count u64            (the index's header's)
//!  | 2^20 × (length u8 | ETag)                 (prefix order)
//!  | CRC-32C u32 of everything before
//! ```
//!
//! Integers little-endian. An empty ETag means the server gave none: that
//! range is asked for unconditionally. A sidecar rather than a new index
//! version: the index format and every reader of it stay as they are, and
//! an index without one (built from text) still updates, by fetching every
//! range. The index's record count and total are kept to tell a sidecar
//! from another index's: `update` refuses a pair that do not match.
//!
//! The file is written under a temporary name and renamed into place just
//! before the index it belongs to (see `publish.rs`).

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use spool_io::write::PartialFile;
use spool_pwned::format::Header;
use spool_pwned::range_body::RANGES;
use spool_pwned::HashKind;

const MAGIC: &[u8; 8] = b"SPOOLETG";
const VERSION: u8 = 1;

/// The ETag of every range of one index.
///
/// # Memory
///
/// The tags lie end to end in one buffer, with one `u32` end offset per
/// range: about 4 MiB plus the tags themselves (13 to 20 bytes each from
/// common servers). A boxed slice per range would cost an allocation of
/// 32 bytes or more and a 16-byte pointer each, over 48 MiB in all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Etags {
    kind: HashKind,
    records: u64,
    total: u64,
    /// The tags of ranges `0..ends.len()`, end to end.
    bytes: Vec<u8>,
    /// Where each range's tag ends in `bytes`.
    ends: Vec<u32>,
}

impl Etags {
    /// No ETags yet, for an index of `kind` being written.
    pub fn new(kind: HashKind) -> Etags {
        Etags {
            kind,
            records: 0,
            total: 0,
            bytes: Vec::new(),
            ends: Vec::with_capacity(RANGES as usize),
        }
    }

    /// Sets `prefix`'s ETag (at most 255 bytes; longer ones are dropped).
    /// Prefixes come in increasing order; those skipped have none.
    ///
    /// # Panics
    ///
    /// If `prefix` is not greater than the last one set.
    pub fn push(&mut self, prefix: u32, etag: &[u8]) {
        assert!(
            prefix as usize >= self.ends.len(),
            "ETags set in prefix order"
        );
        let end = self.bytes.len() as u32;
        self.ends.resize(prefix as usize, end);
        if etag.len() <= 255 {
            self.bytes.extend_from_slice(etag);
        }
        self.ends.push(self.bytes.len() as u32);
    }

    /// `prefix`'s ETag, if the server gave one.
    pub fn get(&self, prefix: u32) -> Option<&[u8]> {
        let p = prefix as usize;
        let end = *self.ends.get(p)? as usize;
        let start = if p == 0 { 0 } else { self.ends[p - 1] as usize };
        Some(&self.bytes[start..end]).filter(|t| !t.is_empty())
    }

    /// The hash kind.
    pub fn kind(&self) -> HashKind {
        self.kind
    }

    /// Whether these are the ETags of the index with `header`.
    pub fn belongs_to(&self, header: &Header) -> bool {
        (self.kind, self.records, self.total) == (header.kind, header.records, header.total_count)
    }

    /// Encodes the sidecar of the index with `header`.
    pub fn encode(&self, header: &Header) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + RANGES as usize + self.bytes.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[VERSION, header.kind.code(), 0, 0]);
        out.extend_from_slice(&header.records.to_le_bytes());
        out.extend_from_slice(&header.total_count.to_le_bytes());
        for prefix in 0..RANGES {
            let tag = self.get(prefix).unwrap_or_default();
            out.push(tag.len() as u8);
            out.extend_from_slice(tag);
        }
        let crc = crc32c::crc32c(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Decodes a sidecar.
    ///
    /// # Errors
    ///
    /// A message saying what is wrong (the caller names the file).
    pub fn decode(bytes: &[u8]) -> Result<Etags, String> {
        let body_len = bytes.len().checked_sub(4).ok_or("too short")?;
        let (body, crc) = bytes.split_at(body_len);
        if body.len() < 32 || &body[..8] != MAGIC {
            return Err("not an ETag file".into());
        }
        if body[8] != VERSION {
            return Err(format!(
                "ETag file version {}, this spool reads {VERSION}",
                body[8]
            ));
        }
        if crc32c::crc32c(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err("damaged (checksum mismatch)".into());
        }
        let kind = HashKind::from_code(body[9]).ok_or("unknown hash kind")?;
        let records = u64::from_le_bytes(body[12..20].try_into().expect("8 bytes"));
        let total = u64::from_le_bytes(body[20..28].try_into().expect("8 bytes"));
        let mut etags = Etags::new(kind);
        (etags.records, etags.total) = (records, total);
        let mut rest = &body[28..];
        let mut prefix = 0;
        while let Some((&len, after)) = rest.split_first() {
            let tag = after.get(..usize::from(len)).ok_or("truncated")?;
            if prefix == RANGES {
                return Err(format!("more than {RANGES} ranges"));
            }
            etags.push(prefix, tag);
            prefix += 1;
            rest = &after[usize::from(len)..];
        }
        if prefix != RANGES {
            return Err(format!("{prefix} ranges, expected {RANGES}"));
        }
        Ok(etags)
    }

    /// Reads the sidecar of `index`, `None` if it has none.
    ///
    /// # Errors
    ///
    /// I/O errors and a damaged sidecar, naming the file.
    pub fn read_beside(index: &Path) -> io::Result<Option<Etags>> {
        let path = sidecar_path(index);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
        };
        Etags::decode(&bytes).map(Some).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })
    }

    /// Writes the sidecar of the index at `index` with `header` under a
    /// temporary name; the caller commits it.
    ///
    /// # Errors
    ///
    /// I/O errors naming the file.
    pub fn write_beside(&self, index: &Path, header: &Header) -> io::Result<PartialFile> {
        let mut file = PartialFile::create(&sidecar_path(index))?;
        let bytes = self.encode(header);
        file.file().write_all(&bytes)?;
        Ok(file)
    }
}

/// `NAME.etags` beside the index `NAME`.
pub fn sidecar_path(index: &Path) -> PathBuf {
    let mut name = OsString::from(index.as_os_str());
    name.push(".etags");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spool_pwned::format::IndexLayout;

    #[test]
    fn round_trip_and_damage() {
        let mut etags = Etags::new(HashKind::Ntlm);
        etags.push(0, b"\"0123456789abcdef\"");
        etags.push(RANGES - 1, b"W/\"0x8DC\"");
        let header = Header {
            kind: HashKind::Ntlm,
            records: 3,
            total_count: 7,
            data_crc: 0,
            block_shift: 16,
            layout: IndexLayout::Sorted,
            prefix_bits: 16,
            items: 0,
        };
        etags.records = 3;
        etags.total = 7;
        let bytes = etags.encode(&header);
        let back = Etags::decode(&bytes).unwrap();
        assert_eq!(back, etags);
        assert!(back.belongs_to(&header));
        assert_eq!(back.get(1), None);
        assert_eq!(back.get(0), Some(&b"\"0123456789abcdef\""[..]));
        let mut damaged = bytes.clone();
        damaged[40] ^= 1;
        assert!(Etags::decode(&damaged).is_err());
        assert!(Etags::decode(&bytes[..bytes.len() - 1]).is_err());
    }
}
