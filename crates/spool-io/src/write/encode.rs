//! One chunk in, one self-contained block out.
//!
//! Compressing each chunk as its own zstd frame or gzip member costs a
//! little ratio against one long stream, and buys three things: an
//! encoder is per *worker thread*, not per output file (a zstd context at
//! level 3 is over a megabyte; a thousand open files would each need one);
//! a file can be closed and later reopened in append mode at any block
//! boundary; and every file is valid after every block, for `zstd -d`,
//! `gzip -d` and every library that reads concatenated frames/members.

use std::io;

/// How output blocks are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Bytes as they are.
    None,
    /// One zstd frame per block, at the given level (1–22; 3 is zstd's
    /// default).
    Zstd(i32),
    /// One gzip member per block, at the given level (0–9; 6 is gzip's
    /// default).
    Gzip(u32),
}

impl Compression {
    /// The file name suffix: `""`, `".zst"` or `".gz"`.
    pub fn suffix(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Zstd(_) => ".zst",
            Compression::Gzip(_) => ".gz",
        }
    }
}

/// Encodes blocks; one per thread, reused for every block it encodes.
///
/// # Examples
///
/// ```
/// use spool_io::write::{BlockEncoder, Compression};
/// let mut enc = BlockEncoder::new(Compression::Zstd(3))?;
/// let mut file = enc.encode(b"first block\n")?.to_vec();
/// file.extend_from_slice(enc.encode(b"second block\n")?);
/// // Concatenated frames decode as one stream.
/// assert_eq!(zstd::decode_all(&file[..])?, b"first block\nsecond block\n");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct BlockEncoder {
    kind: Kind,
    out: Vec<u8>,
}

enum Kind {
    Plain,
    Zstd(zstd::bulk::Compressor<'static>),
    Gzip(flate2::Compress),
}

/// A gzip member header: magic, deflate, no flags, no time, no extra
/// flags, OS unknown.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

impl BlockEncoder {
    /// An encoder for `compression`.
    ///
    /// # Errors
    ///
    /// If zstd rejects the level.
    pub fn new(compression: Compression) -> io::Result<Self> {
        let kind = match compression {
            Compression::None => Kind::Plain,
            Compression::Zstd(level) => Kind::Zstd(zstd::bulk::Compressor::new(level)?),
            Compression::Gzip(level) => Kind::Gzip(flate2::Compress::new(
                flate2::Compression::new(level.min(9)),
                false,
            )),
        };
        Ok(BlockEncoder {
            kind,
            out: Vec::new(),
        })
    }

    /// Encodes `data` as one block; the result is valid until the next call.
    /// Plain blocks are `data` itself (no copy).
    ///
    /// # Errors
    ///
    /// If the compressor fails (it does not on valid levels).
    pub fn encode<'a>(&'a mut self, data: &'a [u8]) -> io::Result<&'a [u8]> {
        match &mut self.kind {
            Kind::Plain => Ok(data),
            Kind::Zstd(zstd) => {
                self.out.clear();
                self.out
                    .reserve(zstd::zstd_safe::compress_bound(data.len()));
                zstd.compress_to_buffer(data, &mut self.out)?;
                Ok(&self.out)
            }
            Kind::Gzip(deflate) => {
                gzip_member(deflate, data, &mut self.out)?;
                Ok(&self.out)
            }
        }
    }
}

/// Writes `data` as one complete gzip member into `out`.
fn gzip_member(deflate: &mut flate2::Compress, data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    out.clear();
    // Deflate never expands by more than ~5 bytes per 16 KiB block.
    out.reserve(GZIP_HEADER.len() + data.len() + data.len() / 1000 + 64 + 8);
    out.extend_from_slice(&GZIP_HEADER);
    deflate.reset();
    loop {
        let consumed = deflate.total_in() as usize;
        let status = deflate
            .compress_vec(&data[consumed..], out, flate2::FlushCompress::Finish)
            .map_err(io::Error::other)?;
        match status {
            flate2::Status::StreamEnd => break,
            _ => out.reserve(out.capacity().max(64)),
        }
    }
    let mut crc = flate2::Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn blocks(compression: Compression, parts: &[&[u8]]) -> Vec<u8> {
        let mut enc = BlockEncoder::new(compression).unwrap();
        let mut file = Vec::new();
        for part in parts {
            file.extend_from_slice(enc.encode(part).unwrap());
        }
        file
    }

    #[test]
    fn gzip_members_concatenate() {
        let big: Vec<u8> = (0..200_000u32)
            .flat_map(|i| (i.wrapping_mul(2654435761) % 1000).to_le_bytes())
            .collect();
        let parts: [&[u8]; 4] = [b"hello ", b"", &big, b"world\n"];
        let file = blocks(Compression::Gzip(6), &parts);
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&file[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, parts.concat());
    }

    #[test]
    fn zstd_and_plain_round_trip() {
        let parts: [&[u8]; 3] = [b"a\tb\n", b"", b"c\td\n"];
        let file = blocks(Compression::Zstd(3), &parts);
        assert_eq!(zstd::decode_all(&file[..]).unwrap(), parts.concat());
        assert_eq!(blocks(Compression::None, &parts), parts.concat());
    }
}
