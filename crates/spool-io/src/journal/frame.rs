//! The bytes of a journal: its header and its records' frames, written
//! and checked without I/O, for the file journal and for journals kept as
//! whole objects (an S3 commit's).

use std::io;

/// What a journal is for: eight bytes, ASCII padded with zero bytes.
pub type Kind = [u8; 8];

const MAGIC: &[u8; 8] = b"SPOOLJNL";
const VERSION: u8 = 1;
/// Bytes of the header: magic, version, kind, checksum.
pub const HEADER_LEN: usize = 8 + 1 + 8 + 4;
/// The largest payload a record may have. A replay stops at a length
/// over it as at any damage, so a corrupt length never makes it allocate
/// more than this.
pub const MAX_RECORD_LEN: usize = 64 << 20;
/// Bytes a record's frame adds to its payload: length and checksum.
pub(super) const FRAME_OVERHEAD: usize = 8;

/// The header of a journal of `kind`.
pub(super) fn header(kind: Kind) -> [u8; HEADER_LEN] {
    let mut out = [0u8; HEADER_LEN];
    out[..8].copy_from_slice(MAGIC);
    out[8] = VERSION;
    out[9..17].copy_from_slice(&kind);
    let sum = crc32c::crc32c(&out[..17]);
    out[17..].copy_from_slice(&sum.to_le_bytes());
    out
}

/// Checks a header read back: a journal, of this version, of `kind`.
///
/// # Errors
///
/// `InvalidData`, saying which of the three it is not.
pub(super) fn check_header(bytes: &[u8], kind: Kind) -> io::Result<()> {
    let bad = |what: String| Err(io::Error::new(io::ErrorKind::InvalidData, what));
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return bad("not a spool journal".into());
    }
    let sum = u32::from_le_bytes(bytes[17..HEADER_LEN].try_into().expect("4 bytes"));
    if crc32c::crc32c(&bytes[..17]) != sum {
        return bad("a journal whose header is damaged".into());
    }
    if bytes[8] != VERSION {
        return bad(format!("a journal of version {}, not {VERSION}", bytes[8]));
    }
    if bytes[9..17] != kind {
        return bad(format!(
            "a journal of another kind ({}, not {})",
            kind_name(&bytes[9..17]),
            kind_name(&kind)
        ));
    }
    Ok(())
}

fn kind_name(kind: &[u8]) -> String {
    String::from_utf8_lossy(kind)
        .trim_end_matches('\0')
        .to_owned()
}

/// The first four bytes of the frame of a `len`-byte payload.
///
/// # Panics
///
/// If `len` is over [`MAX_RECORD_LEN`]: a writer's bug, not input.
pub(super) fn frame_len(len: usize) -> [u8; 4] {
    assert!(
        len <= MAX_RECORD_LEN,
        "a journal record of {len} bytes, more than {MAX_RECORD_LEN}"
    );
    (len as u32).to_le_bytes()
}

/// Appends `payload`'s frame to `out`.
///
/// # Panics
///
/// If `payload` is longer than [`MAX_RECORD_LEN`].
pub(super) fn push_frame(out: &mut Vec<u8>, payload: &[u8]) {
    let start = out.len();
    out.extend_from_slice(&frame_len(payload.len()));
    out.extend_from_slice(payload);
    let sum = crc32c::crc32c(&out[start..]);
    out.extend_from_slice(&sum.to_le_bytes());
}

/// The payload length a frame's first four bytes give, if it is one a
/// journal can hold.
pub(super) fn payload_len(len_bytes: [u8; 4]) -> Option<usize> {
    let len = u32::from_le_bytes(len_bytes) as usize;
    (len <= MAX_RECORD_LEN).then_some(len)
}

/// Whether a whole frame (`len_bytes`, `payload`, `sum_bytes`) checks out.
pub(super) fn frame_checks(len_bytes: [u8; 4], payload: &[u8], sum_bytes: [u8; 4]) -> bool {
    let sum = crc32c::crc32c_append(crc32c::crc32c(&len_bytes), payload);
    sum == u32::from_le_bytes(sum_bytes)
}

/// A whole journal as bytes: the header, then each record's frame.
///
/// # Examples
///
/// ```
/// use spool_io::journal::{decode, encode};
/// let bytes = encode(*b"example\0", [&b"one"[..], b"two"]);
/// let decoded = decode(&bytes, *b"example\0").unwrap();
/// assert_eq!(decoded.records, [&b"one"[..], b"two"]);
/// assert_eq!(decoded.valid_len, bytes.len());
/// // A cut anywhere in the last record leaves the first.
/// let cut = decode(&bytes[..bytes.len() - 1], *b"example\0").unwrap();
/// assert_eq!(cut.records, [&b"one"[..]]);
/// ```
pub fn encode<'a>(kind: Kind, records: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = header(kind).to_vec();
    for record in records {
        push_frame(&mut out, record);
    }
    out
}

/// What [`decode`] found.
#[derive(Debug, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// The whole records, in order.
    pub records: Vec<&'a [u8]>,
    /// Where the last whole record ends: the length of the bytes that
    /// hold exactly `records`.
    pub valid_len: usize,
}

/// Reads a journal held in memory back: every whole record up to the
/// first that is not (see the module docs).
///
/// # Errors
///
/// `InvalidData` if the header is not a whole header of `kind`.
pub fn decode(bytes: &[u8], kind: Kind) -> io::Result<Decoded<'_>> {
    check_header(bytes, kind)?;
    let mut records = Vec::new();
    let mut at = HEADER_LEN;
    while let Some(len_bytes) = bytes.get(at..at + 4) {
        let len_bytes: [u8; 4] = len_bytes.try_into().expect("4 bytes");
        let Some(len) = payload_len(len_bytes) else {
            break;
        };
        let (start, end) = (at + 4, at + 4 + len);
        let (Some(payload), Some(sum)) = (bytes.get(start..end), bytes.get(end..end + 4)) else {
            break;
        };
        if !frame_checks(len_bytes, payload, sum.try_into().expect("4 bytes")) {
            break;
        }
        records.push(payload);
        at = end + 4;
    }
    Ok(Decoded {
        records,
        valid_len: at,
    })
}
