//! [`Buffer`]: buffer_sv2 3.x's trait, with the same methods and the same
//! `Slice` bound, so code generic over `buffer_sv2::Buffer` (codec_sv2's
//! decoders and encoders) takes the types here unchanged.

use crate::Slice;

/// Where a codec writes a message before handing it over.
///
/// Contract, as buffer_sv2 3.x documents it and as both implementations
/// here keep it: [`get_writable`](Buffer::get_writable) appends `len` bytes
/// to the pending message and returns them to be written;
/// [`len`](Buffer::len) counts the pending bytes;
/// [`get_data_by_ref`](Buffer::get_data_by_ref) and
/// [`get_data_by_ref_`](Buffer::get_data_by_ref_) see the first
/// `min(len, self.len())` of them; [`get_data_owned`](Buffer::get_data_owned)
/// hands them all over, in order, and leaves the pending message empty.
/// [`danger_set_start`](Buffer::danger_set_start) moves where the
/// `AsRef`/`AsMut` view and `AeadBuffer::truncate` of the two types here
/// start (so an in-place AEAD works on the last chunk only); it is not
/// reset by `get_data_owned`, as in buffer_sv2.
///
/// # Examples
///
/// ```
/// use buffer_sv2::{Buffer, BufferFromSystemMemory, BufferPool};
///
/// fn frame<B: Buffer>(buffer: &mut B) -> B::Slice {
///     buffer.get_writable(6).copy_from_slice(b"header");
///     buffer.get_writable(4).copy_from_slice(b"body");
///     assert_eq!(buffer.get_data_by_ref_(6), b"header");
///     buffer.get_data_owned()
/// }
/// assert_eq!(frame(&mut BufferPool::new(1024)).as_ref(), b"headerbody");
/// assert_eq!(frame(&mut BufferFromSystemMemory::new(0)), b"headerbody");
/// ```
pub trait Buffer {
    /// What [`get_data_owned`](Buffer::get_data_owned) hands over.
    type Slice: AsMut<[u8]> + AsRef<[u8]> + Into<Slice>;

    /// Appends `len` bytes to the pending message and returns them to be
    /// written (whatever they hold: write them all).
    fn get_writable(&mut self, len: usize) -> &mut [u8];

    /// Hands the pending message over and starts a new one.
    fn get_data_owned(&mut self) -> Self::Slice;

    /// The first `min(len, self.len())` pending bytes, to read or patch.
    fn get_data_by_ref(&mut self, len: usize) -> &mut [u8];

    /// The first `min(len, self.len())` pending bytes, to read through
    /// `&self`.
    fn get_data_by_ref_(&self, len: usize) -> &[u8];

    /// Number of pending bytes.
    fn len(&self) -> usize;

    /// Sets where the `AsRef`/`AsMut` view of the pending message and its
    /// `AeadBuffer::truncate` start.
    fn danger_set_start(&mut self, index: usize);

    /// Whether no byte is pending.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the buffer may be dropped now. Always true for both types
    /// here: dropping a pool while its slices live is safe and never waits.
    fn is_droppable(&self) -> bool;
}
