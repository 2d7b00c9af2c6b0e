//! One chunk in, one self-contained block out.
//!
//! Compressing each chunk as its own zstd frame or gzip member costs a
//! little ratio against one long stream, and buys three things: an
//! encoder is per *worker thread*, not per output file (a zstd context at
//! level 3 is over a megabyte; a thousand open files would each need one);
//! a file can be closed and later reopened in append mode at any block
//! boundary; and every file is valid after every block, for `zstd -d`,
//! `gzip -d` and every library that reads concatenated frames/members.
//!
//! gzip members are made by libdeflate (the `libdeflater` crate), which
//! compresses a whole buffer at once — exactly this block model. On blocks
//! of the partition benchmark's text it was faster than `flate2` with its
//! fastest (`zlib-rs`) backend at the same level, and so was
//! `spool partition --compress gzip` (`cargo bench -p spool-bench --bench
//! block_encode`; the figures are in docs/perf/partition-notes.md).
//! Decompression stays with `flate2`, which streams.

use std::io;

/// How output blocks are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Bytes as they are.
    None,
    /// One zstd frame per block, at the given level (1–22; 3 is zstd's
    /// default).
    Zstd(i32),
    /// One gzip member per block, at the given level (0–12; 6 is gzip's
    /// default, 10–12 compress harder than gzip can).
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
    Gzip(libdeflater::Compressor),
}

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
            Compression::Gzip(level) => Kind::Gzip(libdeflater::Compressor::new(
                libdeflater::CompressionLvl::new(level.min(12) as i32).map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("gzip level {level}: {e:?}"),
                    )
                })?,
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
                self.out.clear();
                self.out.resize(deflate.gzip_compress_bound(data.len()), 0);
                let n = deflate
                    .gzip_compress(data, &mut self.out)
                    .map_err(|e| io::Error::other(format!("gzip: {e}")))?;
                self.out.truncate(n);
                Ok(&self.out)
            }
        }
    }
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
