//! Opening inputs: a path or `-` (standard input), decompressed on the fly
//! when its first bytes are a gzip or zstd magic number.
//!
//! Detection by content rather than by file name means `data.txt` that is
//! really gzip still reads, and a plain file named `.gz` is not mangled.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Buffer size for the raw (possibly compressed) bytes.
const RAW_BUFFER: usize = 1 << 20;

/// The compression an input was found to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detected {
    /// Plain bytes.
    Plain,
    /// gzip (any number of concatenated members).
    Gzip,
    /// zstd (any number of concatenated frames).
    Zstd,
}

/// Opens `path` for reading (`-` is standard input), decompressing gzip or
/// zstd by magic number. Errors name the path.
///
/// # Errors
///
/// If the file cannot be opened or its first bytes cannot be read.
///
/// # Examples
///
/// ```
/// use std::io::Read;
/// let dir = std::env::temp_dir().join(format!("spool-io-doc-open-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("hello.txt");
/// std::fs::write(&path, b"hello\n")?;
/// let mut text = String::new();
/// spool_io::input::open(&path)?.read_to_string(&mut text)?;
/// assert_eq!(text, "hello\n");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn open(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    open_counted(path, None).map(|(reader, _)| reader)
}

/// Like [`open`], and adds every raw (still compressed) byte read to
/// `counter`, for progress reports. Also returns what was detected.
///
/// # Errors
///
/// As [`open`].
pub fn open_counted(
    path: &Path,
    counter: Option<Arc<AtomicU64>>,
) -> io::Result<(Box<dyn Read + Send>, Detected)> {
    let raw = open_raw(path)?;
    let raw = match counter {
        Some(counter) => counting(raw, counter),
        None => raw,
    };
    decompress(raw).map_err(|e| with_path(e, path))
}

/// Opens `path` (`-` is standard input) without reading from it or
/// decompressing it: for a caller that checks its inputs open before
/// starting and reads them later, through [`counting`] and [`decompress`].
/// Each input is opened once, so a named pipe works as well as a file.
///
/// # Errors
///
/// If the file cannot be opened; the message names the path.
pub fn open_raw(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    Ok(if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| with_path(e, path))?)
    })
}

/// Wraps `inner` so that it adds every byte it reads to `counter` (for
/// progress reports).
pub fn counting(inner: Box<dyn Read + Send>, counter: Arc<AtomicU64>) -> Box<dyn Read + Send> {
    Box::new(Counting { inner, counter })
}

/// Wraps `raw` in a gzip or zstd decoder when its first bytes say so.
///
/// # Errors
///
/// If the first bytes cannot be read.
pub fn decompress(mut raw: Box<dyn Read + Send>) -> io::Result<(Box<dyn Read + Send>, Detected)> {
    // Peek at the magic number without a buffer in between, so plain input
    // is read straight into the caller's buffers (no extra copy).
    let mut magic = [0u8; 4];
    let have = read_up_to(&mut raw, &mut magic)?;
    let detected = detect(&magic[..have]);
    Ok((
        decompress_detected(&magic[..have], detected, raw)?,
        detected,
    ))
}

/// The input whose first bytes, `head` (its first four, or all it has),
/// were read already and found to be `detected` ([`detect`]), decompressed
/// if they say so; `rest` is the input after `head`. For a caller that
/// looks at an input before it chooses how to read it (a plain file may
/// be read another way): the magic number is read and looked at once.
///
/// # Errors
///
/// If a decoder cannot be set up.
///
/// # Examples
///
/// ```
/// use std::io::Read;
/// use spool_io::input::{decompress_detected, detect, Detected};
/// let head = b"5BAA";
/// let detected = detect(head);
/// assert_eq!(detected, Detected::Plain);
/// let mut text = String::new();
/// decompress_detected(head, detected, Box::new(&b"61E4:3\n"[..]))?.read_to_string(&mut text)?;
/// assert_eq!(text, "5BAA61E4:3\n");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn decompress_detected(
    head: &[u8],
    detected: Detected,
    rest: Box<dyn Read + Send>,
) -> io::Result<Box<dyn Read + Send>> {
    let raw: Box<dyn Read + Send> = Box::new(io::Cursor::new(head.to_vec()).chain(rest));
    if detected == Detected::Plain {
        return Ok(raw);
    }
    let consumed = Arc::new(AtomicU64::new(0));
    let buffered = Consumed {
        inner: BufReader::with_capacity(RAW_BUFFER, raw),
        consumed: consumed.clone(),
    };
    Ok(if detected == Detected::Gzip {
        let decoder = flate2::bufread::MultiGzDecoder::new(buffered);
        Box::new(Decoding::new(decoder, consumed, "gzip"))
    } else {
        let decoder = zstd::stream::read::Decoder::with_buffer(buffered)?;
        Box::new(Decoding::new(decoder, consumed, "zstd"))
    })
}

/// What an input's first bytes (four are enough) say about its
/// compression: a gzip or zstd magic number, or plain bytes.
///
/// # Examples
///
/// ```
/// use spool_io::input::{detect, Detected};
/// assert_eq!(detect(&[0x1f, 0x8b, 8, 0]), Detected::Gzip);
/// assert_eq!(detect(&[0x28, 0xb5, 0x2f, 0xfd]), Detected::Zstd);
/// assert_eq!(detect(b"5BAA"), Detected::Plain);
/// assert_eq!(detect(b""), Detected::Plain);
/// ```
pub fn detect(head: &[u8]) -> Detected {
    if head.starts_with(&[0x1f, 0x8b]) {
        Detected::Gzip
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Detected::Zstd
    } else {
        Detected::Plain
    }
}

/// Adds a position to a read error: `(at byte offset N, line L)` for plain
/// input; for compressed input, whose error already says where in the
/// compressed bytes it lies (see [`decompress`]), how many decompressed
/// bytes and lines came before it.
pub fn locate(err: io::Error, offset: u64, line: u64) -> io::Error {
    let decoding = err.get_ref().is_some_and(|inner| inner.is::<DecodeError>());
    let message = if decoding {
        format!(
            "{err}; found after {offset} decompressed bytes ({} lines)",
            line - 1
        )
    } else {
        format!("{err} (at byte offset {offset}, line {line})")
    };
    io::Error::new(err.kind(), message)
}

/// A decoder whose errors say how far into the compressed input they were
/// found: corrupt data somewhere in a gzip file is otherwise reported where
/// the decompressed text stopped, an offset into bytes the user never saw.
struct Decoding<D> {
    decoder: D,
    /// Compressed bytes the decoder has taken from its input.
    consumed: Arc<AtomicU64>,
    format: &'static str,
}

impl<D> Decoding<D> {
    fn new(decoder: D, consumed: Arc<AtomicU64>, format: &'static str) -> Self {
        Decoding {
            decoder,
            consumed,
            format,
        }
    }
}

impl<D: Read> Read for Decoding<D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.decoder.read(buf).map_err(|e| {
            if e.kind() == io::ErrorKind::Interrupted {
                return e;
            }
            // Near, not at: a decoder reports the input it used when a step
            // succeeds, so a fault inside a block lies somewhat past this
            // offset, and one in a gzip header up to the header's 10 bytes
            // before it.
            let at = self.consumed.load(Ordering::Relaxed);
            let message = format!(
                "{e} near compressed byte offset {at} ({} data)",
                self.format
            );
            io::Error::new(e.kind(), DecodeError(message))
        })
    }
}

/// A decoder's error, told apart by [`locate`].
#[derive(Debug)]
struct DecodeError(String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

/// A buffered reader that counts the bytes its reader consumes.
struct Consumed<R> {
    inner: R,
    consumed: Arc<AtomicU64>,
}

impl<R: Read> Read for Consumed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Consumed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.consumed.fetch_add(amt as u64, Ordering::Relaxed);
        self.inner.consume(amt);
    }
}

/// Prefixes an I/O error's message with the path it concerns, keeping its
/// kind.
pub fn with_path(err: io::Error, path: &Path) -> io::Error {
    io::Error::new(err.kind(), format!("{}: {err}", path.display()))
}

/// A reader that counts the bytes it passes on.
struct Counting {
    inner: Box<dyn Read + Send>,
    counter: Arc<AtomicU64>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Reads until `buf` is full or the input ends; how many bytes were read
/// (fewer than `buf.len()` only at the end of the input).
pub(crate) fn read_up_to(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn roundtrip(data: Vec<u8>, want: Detected) {
        let (mut r, got) = decompress(Box::new(io::Cursor::new(data))).unwrap();
        assert_eq!(got, want);
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"abc\ndef\n");
    }

    #[test]
    fn detects_by_magic() {
        roundtrip(b"abc\ndef\n".to_vec(), Detected::Plain);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"abc\n").unwrap();
        let mut two = gz.finish().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"def\n").unwrap();
        two.extend(gz.finish().unwrap());
        roundtrip(two, Detected::Gzip);
        let mut zs = zstd::encode_all(&b"abc\n"[..], 1).unwrap();
        zs.extend(zstd::encode_all(&b"def\n"[..], 1).unwrap());
        roundtrip(zs, Detected::Zstd);
    }

    #[test]
    fn missing_file_names_the_path() {
        let err = open(Path::new("/nonexistent/spool-input")).err().unwrap();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(err.to_string().contains("/nonexistent/spool-input"));
    }
}
