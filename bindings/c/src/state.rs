//! The state of a stream, published where C can read it without a call.
//!
//! The lab's read loop asks `bytes_buffered()`, then `peek()`, then pops,
//! once per chunk read; behind an opaque handle each would be a call into
//! the library for every few bytes. Instead each handle carries a
//! `#[repr(C)]` [`SpoolStreamState`] that the library rewrites at the end of
//! every call that changes the stream, and
//! [`spool_stream_state_of`](crate::spool_stream_state_of) hands out a
//! pointer to it once. The C++ wrapper's queries are then plain loads.
//!
//! The state also names two regions a caller may work in between calls:
//! the front slice (`front`), whose bytes it may consume, and for an owned
//! stream the contiguous free space after the buffered bytes (`spare`),
//! into which it may copy bytes. It reports both with its next call
//! (`spool_stream_sync_push`: commit so many written bytes, pop so many
//! read ones), so a push and a read that stay inside the regions cost no
//! call at all. The Rust core stays the one implementation: the state is a
//! copy of what its accessors answer (`spare` is `Writer::spare_mut`'s first
//! slice), and what the caller did is applied through `Writer::commit` and
//! `Reader::pop`.
//!
//! # Why reading it from C is sound
//!
//! - **Address.** The state lives inside the handle's heap allocation — the
//!   `Box` of an owned stream, or the reassembler's `Box` for its view — and
//!   a handle never moves, so the pointer is valid until the handle (for a
//!   view: its reassembler) is freed.
//! - **No data race.** Handles are used from one thread at a time (the
//!   header's rule). The library writes a state only inside a call on that
//!   handle or its reassembler, and C reads it between calls, so a read and
//!   a write never overlap.
//! - **No aliasing.** Rust holds no reference to a state across a return to
//!   C: during a call it borrows the handle mutably while C is not running.
//! - **Fresh.** Every path that changes a stream refreshes its state before
//!   returning: stream push, pop, close, set_error and assign go through
//!   `with_mut`, which refreshes after the change; a reassembler's insert and
//!   assign refresh its view; constructors fill it in. `tests/state.rs`
//!   checks the state against the query functions after every step of
//!   random operation sequences, views included.
//! - **`front` is a borrow of the ring** with the same lifetime as
//!   `spool_stream_peek`'s answer: valid until the next call on the handle.
//! - **`spare` is a mutable borrow of the ring's free space**, taken from
//!   `Writer::spare_mut` through `&mut` (so writes through it are allowed)
//!   and valid until the next call on the handle. Nothing in the library
//!   reads those bytes until a call commits them, and the library keeps no
//!   reference into the ring across a return to C. A reassembler's view
//!   publishes no spare region (`spare_len` 0): its free space holds the
//!   reassembler's pending bytes. A closed stream publishes none either.
//! - **A bad report is an error, not undefined behaviour**: committing more
//!   than `spare_len` bytes answers `SPOOL_E_RANGE`.

use spool::stream::ByteStream;

/// What a stream's accessors answer, laid out for C (`spool_stream_state`
/// in `spool.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpoolStreamState {
    /// The contiguous front of the buffered bytes (what peek returns);
    /// meaningless while `front_len` is 0 (an empty output the reassembler
    /// rewinds keeps its old `front`).
    pub front: *const u8,
    /// Its length: non-zero whenever bytes are buffered.
    pub front_len: usize,
    /// Bytes pushed and not yet popped.
    pub bytes_buffered: u64,
    /// Total bytes pushed.
    pub bytes_pushed: u64,
    /// Total bytes popped.
    pub bytes_popped: u64,
    /// How many more bytes can be pushed now.
    pub available_capacity: u64,
    /// Whether the writer closed the stream.
    pub closed: bool,
    /// Whether the stream is closed and every byte was popped.
    pub finished: bool,
    /// Whether the stream was marked as failed.
    pub error: bool,
    /// The contiguous free space after the buffered bytes, which the caller
    /// may fill and then commit (owned, open streams only; null otherwise).
    pub spare: *mut u8,
    /// Its length (0 for a view or a closed stream).
    pub spare_len: usize,
}

impl SpoolStreamState {
    /// The state of an empty, open stream of capacity 0 (what a handle
    /// holds until it is first refreshed).
    pub(crate) const EMPTY: Self = Self {
        front: std::ptr::NonNull::dangling().as_ptr(),
        front_len: 0,
        bytes_buffered: 0,
        bytes_pushed: 0,
        bytes_popped: 0,
        available_capacity: 0,
        closed: false,
        finished: false,
        error: false,
        spare: std::ptr::null_mut(),
        spare_len: 0,
    };

    /// The state of an owned stream now, with its spare region. Rewinds an
    /// empty stream first (as its next push would), so the caller fills the
    /// front of the ring.
    #[inline]
    pub(crate) fn of_owned(stream: &mut ByteStream) -> Self {
        if stream.writer_ref().is_closed() {
            return Self::of(stream);
        }
        stream.writer().spare_mut(); // rewinds an empty stream
        let state = Self::of(stream);
        // Taken last, through `&mut`: nothing reads or writes the ring after
        // this until the call returns.
        let first = stream.writer().spare_mut().0;
        Self {
            spare: first.as_mut_ptr(),
            spare_len: first.len(),
            ..state
        }
    }

    /// The state of `stream` now, without a spare region (for views).
    #[inline]
    pub(crate) fn of(stream: &ByteStream) -> Self {
        let (reader, writer) = (stream.reader_ref(), stream.writer_ref());
        let front = reader.peek();
        Self {
            front: front.as_ptr(),
            front_len: front.len(),
            bytes_buffered: reader.bytes_buffered(),
            bytes_pushed: writer.bytes_pushed(),
            bytes_popped: reader.bytes_popped(),
            available_capacity: writer.available_capacity(),
            closed: writer.is_closed(),
            finished: reader.is_finished(),
            error: reader.has_error(),
            spare: std::ptr::null_mut(),
            spare_len: 0,
        }
    }
}
