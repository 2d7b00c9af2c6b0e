//! [`Write`]: buffer_sv2's "copy bytes into a buffer" trait, with its two
//! implementations (a growing `Vec<u8>` and a fixed `&mut [u8]` that moves
//! past what it wrote), as buffer_sv2 3.x has them.

use alloc::vec::Vec;

/// Why a [`Write::write_all`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteError {
    /// The destination had no room for the rest of the bytes.
    WriteZero,
}

/// Writing bytes into a buffer.
///
/// # Examples
///
/// ```
/// use buffer_sv2::Write;
///
/// let mut room = [0u8; 4];
/// let mut dst = &mut room[..];
/// assert_eq!(dst.write(b"abcdef").ok(), Some(4)); // as much as fits
/// assert!(dst.write_all(b"x").is_err());
/// let mut v = Vec::new();
/// v.write_all(b"grows").ok().unwrap();
/// assert_eq!((&room, &v[..]), (b"abcd", &b"grows"[..]));
/// ```
pub trait Write {
    /// Writes as much of `buf` as fits and returns how much that was.
    ///
    /// # Errors
    ///
    /// Never, for the two implementations here.
    fn write(&mut self, buf: &[u8]) -> Result<usize, WriteError>;

    /// Writes all of `buf`.
    ///
    /// # Errors
    ///
    /// [`WriteError::WriteZero`] when it does not all fit (what fitted has
    /// been written).
    fn write_all(&mut self, buf: &[u8]) -> Result<(), WriteError>;
}

impl Write for Vec<u8> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> Result<usize, WriteError> {
        self.extend_from_slice(buf);
        Ok(buf.len())
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> Result<(), WriteError> {
        self.extend_from_slice(buf);
        Ok(())
    }
}

impl Write for &mut [u8] {
    /// Copies what fits and moves `self` past it.
    #[inline]
    fn write(&mut self, data: &[u8]) -> Result<usize, WriteError> {
        let n = data.len().min(self.len());
        let (written, rest) = core::mem::take(self).split_at_mut(n);
        written.copy_from_slice(&data[..n]);
        *self = rest;
        Ok(n)
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> Result<(), WriteError> {
        if self.write(data)? == data.len() {
            Ok(())
        } else {
            Err(WriteError::WriteZero)
        }
    }
}
