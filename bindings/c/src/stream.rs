//! `spool_stream_*`: the ByteStream half of the C ABI.

use spool::reassembler::Reassembler;
use spool::stream::{ByteStream, Reader, Writer};

use crate::ffi_guard::{bytes, guard, write_out};
use crate::{SPOOL_E_BORROWED, SPOOL_E_NULL, SPOOL_E_READONLY, SPOOL_OK};

/// Opaque stream handle: an owned stream, or a view of a reassembler's output.
pub struct SpoolStream(pub(crate) Handle);

pub(crate) enum Handle {
    Owned(ByteStream),
    /// Points at the reassembler that owns this view; valid as long as the
    /// view is (the view lives inside the same allocation).
    View(*mut Reassembler),
}

impl SpoolStream {
    fn reader_ref(&self) -> &Reader {
        match &self.0 {
            Handle::Owned(s) => s.reader_ref(),
            // SAFETY: a view lives inside its reassembler's allocation, so the
            // pointer is valid whenever the view is.
            Handle::View(r) => unsafe { (**r).reader_ref() },
        }
    }

    fn writer_ref(&self) -> &Writer {
        match &self.0 {
            Handle::Owned(s) => s.writer_ref(),
            // SAFETY: as in `reader_ref`.
            Handle::View(r) => unsafe { (**r).writer() },
        }
    }

    fn reader(&mut self) -> &mut Reader {
        match &mut self.0 {
            Handle::Owned(s) => s.reader(),
            // SAFETY: as in `reader_ref`; the C caller holds the only handle
            // in use during this call.
            Handle::View(r) => unsafe { (**r).reader() },
        }
    }

    fn writer(&mut self) -> Option<&mut Writer> {
        match &mut self.0 {
            Handle::Owned(s) => Some(s.writer()),
            Handle::View(_) => None,
        }
    }

    fn to_owned_stream(&self) -> ByteStream {
        match &self.0 {
            Handle::Owned(s) => s.clone(),
            // SAFETY: as in `reader_ref`.
            Handle::View(r) => unsafe { (**r).clone().into_output() },
        }
    }
}

/// Runs `f` on the stream behind `s`, or answers `SPOOL_E_NULL`.
///
/// # Safety
///
/// `s` must be null or a live handle from this library.
unsafe fn with<T>(s: *const SpoolStream, f: impl FnOnce(&SpoolStream) -> T) -> Result<T, i32> {
    // SAFETY: null or live, by the caller's contract.
    unsafe { s.as_ref() }.map(f).ok_or(SPOOL_E_NULL)
}

/// # Safety
///
/// As for [`with`], and no other reference to the stream is in use.
unsafe fn with_mut<T>(
    s: *mut SpoolStream,
    f: impl FnOnce(&mut SpoolStream) -> T,
) -> Result<T, i32> {
    // SAFETY: null or live and unaliased, by the caller's contract.
    unsafe { s.as_mut() }.map(f).ok_or(SPOOL_E_NULL)
}

fn status(r: Result<i32, i32>) -> i32 {
    r.unwrap_or_else(|e| e)
}

/// Makes a stream of `capacity` bytes; null if it cannot be allocated.
#[no_mangle]
pub extern "C" fn spool_stream_new(capacity: u64) -> *mut SpoolStream {
    let Ok(capacity) = usize::try_from(capacity) else {
        return std::ptr::null_mut();
    };
    match ByteStream::try_new(capacity) {
        Ok(s) => Box::into_raw(Box::new(SpoolStream(Handle::Owned(s)))),
        Err(_) => std::ptr::null_mut(),
    }
}

/// Deep copy of a stream (of a view too: the copy is an owned stream); null
/// on a null argument or allocation failure.
#[no_mangle]
pub unsafe extern "C" fn spool_stream_clone(s: *const SpoolStream) -> *mut SpoolStream {
    std::panic::catch_unwind(|| {
        // SAFETY: null or live, by the header's contract.
        match unsafe { with(s, SpoolStream::to_owned_stream) } {
            Ok(copy) => Box::into_raw(Box::new(SpoolStream(Handle::Owned(copy)))),
            Err(_) => std::ptr::null_mut(),
        }
    })
    .unwrap_or(std::ptr::null_mut())
}

/// Frees an owned stream. Null is a no-op; a reassembler's view answers
/// `SPOOL_E_BORROWED` and stays valid.
#[no_mangle]
pub unsafe extern "C" fn spool_stream_free(s: *mut SpoolStream) -> i32 {
    if s.is_null() {
        return SPOOL_OK;
    }
    // SAFETY: live, by the header's contract.
    if let Handle::View(_) = unsafe { &(*s).0 } {
        return SPOOL_E_BORROWED;
    }
    // SAFETY: an owned handle made by `Box::into_raw` in this library.
    drop(unsafe { Box::from_raw(s) });
    SPOOL_OK
}

/// Pushes what fits of `data[..len]`; the count taken goes to `*accepted`
/// (which may be null).
#[no_mangle]
pub unsafe extern "C" fn spool_stream_push(
    s: *mut SpoolStream,
    data: *const u8,
    len: usize,
    accepted: *mut usize,
) -> i32 {
    guard(|| {
        // SAFETY: `data` is null or valid for `len` bytes by the header's contract.
        let Some(data) = (unsafe { bytes(data, len) }) else {
            return SPOOL_E_NULL;
        };
        // SAFETY: null or live, by the header's contract.
        status(unsafe {
            with_mut(s, |s| match s.writer() {
                None => SPOOL_E_READONLY,
                Some(w) => {
                    let n = w.push(data);
                    if accepted.is_null() {
                        SPOOL_OK
                    } else {
                        // SAFETY: non-null, valid for a write by contract.
                        write_out(accepted, n)
                    }
                }
            })
        })
    })
}

/// Closes the stream for writing.
#[no_mangle]
pub unsafe extern "C" fn spool_stream_close(s: *mut SpoolStream) -> i32 {
    // SAFETY: null or live, by the header's contract.
    guard(|| {
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
#[no_mangle]
pub unsafe extern "C" fn spool_stream_set_error(s: *mut SpoolStream) -> i32 {
    // SAFETY: null or live, by the header's contract.
    guard(|| {
        status(unsafe {
            with_mut(s, |s| {
                s.reader().set_error();
                SPOOL_OK
            })
        })
    })
}

/// Pops up to `n` bytes from the front.
#[no_mangle]
pub unsafe extern "C" fn spool_stream_pop(s: *mut SpoolStream, n: u64) -> i32 {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    // SAFETY: null or live, by the header's contract.
    guard(|| {
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
        // SAFETY: null or live, by the header's contract.
        status(unsafe {
            with(s, |s| {
                let front = s.reader_ref().peek();
                // SAFETY: both checked non-null above; valid for writes by contract.
                write_out(data, front.as_ptr());
                write_out(len, front.len())
            })
        })
    })
}

macro_rules! query {
    ($(#[$doc:meta])* $name:ident, $ty:ty, |$s:ident| $body:expr) => {
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(s: *const SpoolStream, out: *mut $ty) -> i32 {
            guard(|| {
                // SAFETY: `s` null or live, `out` null or writable: the header's contract.
                status(unsafe { with(s, |$s: &SpoolStream| write_out(out, $body)) })
            })
        }
    };
}

query!(
    /// Whether the writer closed the stream.
    spool_stream_is_closed, bool, |s| s.writer_ref().is_closed()
);
query!(
    /// Whether the stream is closed and fully popped.
    spool_stream_is_finished, bool, |s| s.reader_ref().is_finished()
);
query!(
    /// Whether the stream was marked as failed.
    spool_stream_has_error, bool, |s| s.reader_ref().has_error()
);
query!(
    /// How many more bytes can be pushed now.
    spool_stream_available_capacity, u64, |s| s.writer_ref().available_capacity()
);
query!(
    /// Total bytes pushed.
    spool_stream_bytes_pushed, u64, |s| s.writer_ref().bytes_pushed()
);
query!(
    /// Bytes pushed and not yet popped.
    spool_stream_bytes_buffered, u64, |s| s.reader_ref().bytes_buffered()
);
query!(
    /// Total bytes popped.
    spool_stream_bytes_popped, u64, |s| s.reader_ref().bytes_popped()
);
