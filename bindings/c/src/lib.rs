//! C ABI for spool's [`ByteStream`](spool::stream::ByteStream) and [`Reassembler`](spool::reassembler::Reassembler).
//!
//! The header `include/spool.h` declares every function here; it is checked
//! in and kept in sync by hand (a test in `tests/header.rs` compares the two
//! lists of names).
//!
//! # Error model
//!
//! Every function returns an `int` status (`SPOOL_OK` = 0, negative on
//! error) and hands values back through out-pointers, so a null or bad
//! argument is always an error code, never undefined behaviour inside the
//! library. No panic crosses the boundary: each call runs under
//! `catch_unwind` and a panic becomes `SPOOL_E_PANIC`.
//!
//! # Ownership
//!
//! `spool_stream_new` and `spool_reassembler_new` allocate; the matching
//! `_free` releases. `spool_reassembler_new` takes over its stream (the
//! stream handle must not be used or freed afterwards).
//! `spool_reassembler_stream` lends a view of the reassembler's output that
//! lives as long as the reassembler: reading, popping and `set_error` work on
//! it, while `push` and `close` answer `SPOOL_E_READONLY` (bytes pushed
//! around the reassembler would overwrite its pending bytes), and freeing it
//! answers `SPOOL_E_BORROWED`. `spool_stream_assign` on the view replaces the
//! reassembler's output, which it goes on writing into (C++ assignment to
//! `reader()`, as the lab's tests do).
//!
//! # Work without calls
//!
//! Each stream handle publishes a `#[repr(C)]` state (front slice,
//! counters, flags, and an owned stream's free space) that every call on it
//! refreshes; `spool_stream_state_of` hands out a pointer to it. The C++
//! wrapper's queries are loads, its reads and pushes that stay inside the
//! published regions are pointer moves and `memcpy`s, and the next call
//! (`spool_stream_sync_push`, `spool_reassembler_pop_insert`) reports what
//! they did. See [`state`] for why that is sound.
//!
//! # Safety
//!
//! Every exported `unsafe` function documents its preconditions in a
//! `# Safety` section; the shared rules for handles are in the [`stream`]
//! and [`reassembler`] module docs and in the header.
#![deny(missing_docs)]

mod ffi_guard;
mod handle;
pub mod reassembler;
pub mod state;
pub mod stream;

pub use reassembler::*;
pub use state::SpoolStreamState;
pub use stream::*;

/// The call succeeded.
pub const SPOOL_OK: i32 = 0;
/// A required pointer argument was null.
pub const SPOOL_E_NULL: i32 = -1;
/// The stream is a reassembler's output: only the reassembler writes to it.
pub const SPOOL_E_READONLY: i32 = -2;
/// The handle is borrowed from a reassembler and is not freed on its own.
pub const SPOOL_E_BORROWED: i32 = -3;
/// A panic inside the library was caught (a bug; please report it).
pub const SPOOL_E_PANIC: i32 = -4;
/// An argument was out of range (e.g. a capacity that cannot be allocated).
pub const SPOOL_E_RANGE: i32 = -5;

/// A static, NUL-terminated description of a status code.
#[no_mangle]
pub extern "C" fn spool_status_message(status: i32) -> *const std::ffi::c_char {
    let msg: &'static [u8] = match status {
        SPOOL_OK => b"ok\0",
        SPOOL_E_NULL => b"a required pointer argument was null\0",
        SPOOL_E_READONLY => b"the stream is written by its reassembler only\0",
        SPOOL_E_BORROWED => b"the stream belongs to a reassembler and is freed with it\0",
        SPOOL_E_PANIC => b"internal error (caught panic)\0",
        SPOOL_E_RANGE => b"argument out of range\0",
        _ => b"unknown status\0",
    };
    msg.as_ptr().cast()
}
