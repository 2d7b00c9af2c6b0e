//! The readable state of a stream, published where C can read it without a
//! call.
//!
//! The lab's read loop asks `bytes_buffered()`, then `peek()`, then pops,
//! once per chunk read; behind an opaque handle the two queries would be two
//! calls into the library for every few bytes. Instead each handle carries a
//! `#[repr(C)]` [`SpoolStreamState`] that the library rewrites at the end of
//! every call that changes the stream, and [`spool_stream_state_of`](crate::spool_stream_state_of) hands
//! out a pointer to it once. The C++ wrapper's queries are then plain loads;
//! only the calls that do work (`push`, `pop`, `insert`) cross into Rust.
//! The Rust core stays the one implementation: the state is a copy of what
//! its accessors answer, never a second set of rules.
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
//!   `spool_stream_peek`'s answer: valid until the next call that changes
//!   the stream.

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
    };

    /// The state of `stream` now.
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
        }
    }
}
