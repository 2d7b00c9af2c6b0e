//! `spool_stream_*`: the ByteStream half of the C ABI.
//!
//! # Safety contract shared by every function here
//!
//! A `spool_stream *` argument must be null or a live handle from this
//! library (made by `spool_stream_new`/`spool_stream_clone` and not freed,
//! or lent by `spool_reassembler_stream` from a live reassembler), used by
//! one thread at a time. Out-pointers must be null or valid for a write of
//! their type; `data`/`len` pairs must be null with `len == 0` or valid for
//! reads of `len` bytes. Null arguments are answered with `SPOOL_E_NULL`.

use spool::stream::ByteStream;

use crate::ffi_guard::{bytes, guard, write_out};
pub use crate::handle::SpoolStream;
use crate::handle::{with, with_mut, Handle};
use crate::state::SpoolStreamState;
use crate::{SPOOL_E_BORROWED, SPOOL_E_NULL, SPOOL_E_READONLY, SPOOL_OK};

fn status(r: Result<i32, i32>) -> i32 {
    r.unwrap_or_else(|e| e)
}

fn boxed(stream: ByteStream) -> *mut SpoolStream {
    Box::into_raw(Box::new(SpoolStream::owned(stream)))
}

/// Makes a stream of `capacity` bytes; null if it cannot be allocated.
#[no_mangle]
pub extern "C" fn spool_stream_new(capacity: u64) -> *mut SpoolStream {
    let Ok(capacity) = usize::try_from(capacity) else {
        return std::ptr::null_mut();
    };
    match ByteStream::try_new(capacity) {
        Ok(s) => boxed(s),
        Err(_) => std::ptr::null_mut(),
    }
}

/// Deep copy of a stream (of a view too: the copy is an owned stream); null
/// on a null argument or allocation failure.
///
/// # Safety
///
/// `s` follows the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_stream_clone(s: *const SpoolStream) -> *mut SpoolStream {
    std::panic::catch_unwind(|| {
        // SAFETY: null or live, by the module contract.
        match unsafe { with(s, |s| s.stream().clone()) } {
            Ok(copy) => boxed(copy),
            Err(_) => std::ptr::null_mut(),
        }
    })
    .unwrap_or(std::ptr::null_mut())
}

/// Replaces `dst`'s contents with a copy of `src` (C++ assignment). When
/// `dst` is a reassembler's view, the reassembler goes on writing into the
/// copy: its pending bytes move into the copy's window.
///
/// # Safety
///
/// `dst` and `src` follow the [module contract](self); they may be the same
/// handle.
#[no_mangle]
pub unsafe extern "C" fn spool_stream_assign(
    dst: *mut SpoolStream,
    src: *const SpoolStream,
) -> i32 {
    guard(|| {
        // SAFETY: null or live, by the module contract; the copy is made
        // before `dst` is borrowed mutably, so `src == dst` is fine.
        let copy = match unsafe { with(src, |s| s.stream().clone()) } {
            Ok(copy) => copy,
            Err(e) => return e,
        };
        // SAFETY: null or live and used by this thread only.
        status(unsafe { with_mut(dst, |d| d.assign(copy)).map(|()| SPOOL_OK) })
    })
}

/// Frees an owned stream. Null is a no-op; a reassembler's view answers
/// `SPOOL_E_BORROWED` and stays valid.
///
/// # Safety
///
/// `s` follows the [module contract](self) and is not used again once
/// freed.
#[no_mangle]
pub unsafe extern "C" fn spool_stream_free(s: *mut SpoolStream) -> i32 {
    if s.is_null() {
        return SPOOL_OK;
    }
    // SAFETY: live, by the module contract.
    if let Handle::View(_) = unsafe { &(*s).handle } {
        return SPOOL_E_BORROWED;
    }
    // SAFETY: an owned handle made by `Box::into_raw` in this library.
    drop(unsafe { Box::from_raw(s) });
    SPOOL_OK
}

/// The state of `s` (see `spool_stream_state` in the header), kept current
/// by every call that changes the stream; null on null. Valid as long as
/// the handle (for a view: its reassembler).
///
/// # Safety
///
/// `s` follows the [module contract](self); the state must only be read,
/// and only between calls on the handle.
#[no_mangle]
pub unsafe extern "C" fn spool_stream_state_of(s: *const SpoolStream) -> *const SpoolStreamState {
    if s.is_null() {
        return std::ptr::null();
    }
    // SAFETY: live, by the module contract; a raw pointer to the field.
    unsafe { &raw const (*s).state }
}

/// Pushes what fits of `data[..len]`; the count taken goes to `*accepted`
/// (which may be null).
///
/// # Safety
///
/// Arguments follow the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_stream_push(
    s: *mut SpoolStream,
    data: *const u8,
    len: usize,
    accepted: *mut usize,
) -> i32 {
    // SAFETY: the caller upholds the module contract, which is
    // `spool_stream_sync_push`'s too.
    unsafe { spool_stream_sync_push(s, 0, 0, data, len, accepted) }
}

/// Reports what the caller did in the published state's regions since its
/// last call — `written` bytes copied into the spare region (committed), then
/// `consumed` bytes read from the front (popped; they may include the
/// written ones) — and then pushes what fits of `data[..len]` (the count
/// taken goes to `*accepted`, which may be null; `len` 0 pushes nothing).
/// One call carries a reader's and a writer's deferred work.
///
/// Errors: `written` beyond the published `spare_len` answers
/// `SPOOL_E_RANGE` and changes nothing; on a reassembler's view `written`
/// or `len` above 0 answers `SPOOL_E_READONLY` (the pop still happens when
/// `written` is 0).
///
/// # Safety
///
/// Arguments follow the [module contract](self); the caller wrote only
/// inside the spare region published by the last call on this handle.
#[no_mangle]
pub unsafe extern "C" fn spool_stream_sync_push(
    s: *mut SpoolStream,
    written: usize,
    consumed: u64,
    data: *const u8,
    len: usize,
    accepted: *mut usize,
) -> i32 {
    let consumed = usize::try_from(consumed).unwrap_or(usize::MAX);
    guard(|| {
        // SAFETY: `data` is null or valid for `len` bytes by the module contract.
        let Some(data) = (unsafe { bytes(data, len) }) else {
            return SPOOL_E_NULL;
        };
        // SAFETY: null or live, by the module contract.
        status(unsafe {
            with_mut(s, |s| {
                let synced = s.sync(written, consumed);
                if synced != SPOOL_OK {
                    return synced;
                }
                let n = match s.writer() {
                    _ if data.is_empty() => 0,
                    Some(w) => w.push(data),
                    None => return SPOOL_E_READONLY,
                };
                if accepted.is_null() {
                    SPOOL_OK
                } else {
                    // SAFETY: non-null, valid for a write by contract.
                    write_out(accepted, n)
                }
            })
        })
    })
}

/// Closes the stream for writing.
///
/// # Safety
///
/// `s` follows the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_stream_close(s: *mut SpoolStream) -> i32 {
    guard(|| {
        // SAFETY: null or live, by the module contract.
        status(unsafe {
            with_mut(s, |s| {
                s.writer().map_or(SPOOL_E_READONLY, |w| {
                    w.close();
                    SPOOL_OK
                })
            })
        })
    })
}

/// Marks the stream as failed.
///
/// # Safety
///
/// `s` follows the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_stream_set_error(s: *mut SpoolStream) -> i32 {
    guard(|| {
        // SAFETY: null or live, by the module contract.
        status(unsafe {
            with_mut(s, |s| {
                s.reader().set_error();
                SPOOL_OK
            })
        })
    })
}

/// Pops up to `n` bytes from the front.
///
/// # Safety
///
/// `s` follows the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_stream_pop(s: *mut SpoolStream, n: u64) -> i32 {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    guard(|| {
        // SAFETY: null or live, by the module contract.
        status(unsafe {
            with_mut(s, |s| {
                s.reader().pop(n);
                SPOOL_OK
            })
        })
    })
}

/// Points `*data`/`*len` at the contiguous front of the buffered bytes (valid
/// until the next call that changes the stream). Non-empty whenever anything
/// is buffered.
///
/// # Safety
///
/// Arguments follow the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_stream_peek(
    s: *const SpoolStream,
    data: *mut *const u8,
    len: *mut usize,
) -> i32 {
    if data.is_null() || len.is_null() {
        return SPOOL_E_NULL;
    }
    guard(|| {
        // SAFETY: null or live, by the module contract.
        status(unsafe {
            with(s, |s| {
                let front = s.stream().reader_ref().peek();
                // SAFETY: both checked non-null above; valid for writes by contract.
                write_out(data, front.as_ptr());
                // SAFETY: as above.
                write_out(len, front.len())
            })
        })
    })
}

macro_rules! query {
    ($(#[$doc:meta])* $name:ident, $ty:ty, |$s:ident| $body:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// Arguments follow the [module contract](self).
        #[no_mangle]
        pub unsafe extern "C" fn $name(s: *const SpoolStream, out: *mut $ty) -> i32 {
            guard(|| {
                // SAFETY: `s` null or live, `out` null or writable: the module contract.
                status(unsafe { with(s, |$s: &SpoolStream| write_out(out, $body)) })
            })
        }
    };
}

query!(
    /// Whether the writer closed the stream.
    spool_stream_is_closed, bool, |s| s.stream().writer_ref().is_closed()
);
query!(
    /// Whether the stream is closed and fully popped.
    spool_stream_is_finished, bool, |s| s.stream().reader_ref().is_finished()
);
query!(
    /// Whether the stream was marked as failed.
    spool_stream_has_error, bool, |s| s.stream().reader_ref().has_error()
);
query!(
    /// How many more bytes can be pushed now.
    spool_stream_available_capacity, u64, |s| s.stream().writer_ref().available_capacity()
);
query!(
    /// Total bytes pushed.
    spool_stream_bytes_pushed, u64, |s| s.stream().writer_ref().bytes_pushed()
);
query!(
    /// Bytes pushed and not yet popped.
    spool_stream_bytes_buffered, u64, |s| s.stream().reader_ref().bytes_buffered()
);
query!(
    /// Total bytes popped.
    spool_stream_bytes_popped, u64, |s| s.stream().reader_ref().bytes_popped()
);
