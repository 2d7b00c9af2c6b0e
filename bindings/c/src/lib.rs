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
//! answers `SPOOL_E_BORROWED`.
#![deny(missing_docs)]
// Every exported function takes raw pointers from C; each dereference is
// checked for null and documented in the header's contract.
#![allow(clippy::missing_safety_doc)]

mod ffi_guard;
mod reassembler;
mod stream;

pub use reassembler::*;
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
