//! `spool_reassembler_*`: the Reassembler half of the C ABI.
//!
//! # Safety contract shared by every function here
//!
//! A `spool_reassembler *` argument must be null or a live handle from this
//! library (made by `spool_reassembler_new`/`spool_reassembler_clone` and
//! not freed), used by one thread at a time together with its output view.
//! Out-pointers and `data`/`len` pairs follow the stream functions' rules.

use spool::reassembler::Reassembler;

use crate::ffi_guard::{bytes, guard, write_out};
use crate::handle::{Handle, SpoolStream};
use crate::state::SpoolStreamState;
use crate::{SPOOL_E_NULL, SPOOL_E_RANGE, SPOOL_OK};

/// Opaque reassembler handle. The output view lives in the same allocation
/// and points back at `inner`, so the handle must not move: it is only ever
/// used through the pointer `Box::into_raw` returned.
pub struct SpoolReassembler {
    inner: Reassembler,
    view: SpoolStream,
}

impl SpoolReassembler {
    /// Publishes the output's state to C through the view. Reads `inner`
    /// directly rather than through the view's pointer, so no access goes
    /// around the `&mut self` the caller holds.
    #[inline]
    fn refresh_view(&mut self) {
        self.view.state = SpoolStreamState::of(self.inner.output());
    }
}

/// Boxes `inner` with its view pointed at it.
fn boxed(inner: Reassembler) -> *mut SpoolReassembler {
    let raw = Box::into_raw(Box::new(SpoolReassembler {
        inner,
        view: SpoolStream::unattached_view(),
    }));
    // SAFETY: `raw` was just made from a Box and is not aliased; the view
    // gets a pointer derived from it, valid until `spool_reassembler_free`.
    unsafe {
        (*raw).view.handle = Handle::View(&raw mut (*raw).inner);
        (*raw).refresh_view();
    }
    raw
}

/// Makes a reassembler writing into `output`, which it takes over: `output`
/// is freed by this call (also on failure) and must not be used again.
/// Returns null if `output` is null or is itself a reassembler's view (which
/// is then left alone).
///
/// # Safety
///
/// `output` must be null or a live stream handle from this library.
#[no_mangle]
pub unsafe extern "C" fn spool_reassembler_new(output: *mut SpoolStream) -> *mut SpoolReassembler {
    if output.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: live, by the contract above.
    if let Handle::View(_) = unsafe { &(*output).handle } {
        return std::ptr::null_mut();
    }
    // SAFETY: an owned stream made by `Box::into_raw` in this library; the
    // caller gives it up.
    let Handle::Owned(stream) = (unsafe { Box::from_raw(output) }).handle else {
        unreachable!("checked above")
    };
    boxed(Reassembler::new(stream))
}

/// Deep copy (stream contents, pending bytes, end); null on null.
///
/// # Safety
///
/// `r` follows the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_reassembler_clone(
    r: *const SpoolReassembler,
) -> *mut SpoolReassembler {
    // SAFETY: null or live, by the module contract.
    let Some(r) = (unsafe { r.as_ref() }) else {
        return std::ptr::null_mut();
    };
    boxed(r.inner.clone())
}

/// Frees the reassembler and its output stream. Null is a no-op.
///
/// # Safety
///
/// `r` follows the [module contract](self); neither it nor its view is
/// used again.
#[no_mangle]
pub unsafe extern "C" fn spool_reassembler_free(r: *mut SpoolReassembler) -> i32 {
    if !r.is_null() {
        // SAFETY: made by `Box::into_raw` in this library, by contract.
        drop(unsafe { Box::from_raw(r) });
    }
    SPOOL_OK
}

/// Inserts the substring `data[..len]` that starts at stream index
/// `first_index`; `is_last` marks the end of the stream.
///
/// # Safety
///
/// Arguments follow the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_reassembler_insert(
    r: *mut SpoolReassembler,
    first_index: u64,
    data: *const u8,
    len: usize,
    is_last: bool,
) -> i32 {
    // SAFETY: the same contract.
    unsafe { spool_reassembler_pop_insert(r, 0, first_index, data, len, is_last) }
}

/// Pops up to `pop` bytes from the output, then inserts as
/// [`spool_reassembler_insert`] does: a reader that deferred its last pop
/// and the next insert share one call.
///
/// # Safety
///
/// Arguments follow the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_reassembler_pop_insert(
    r: *mut SpoolReassembler,
    pop: u64,
    first_index: u64,
    data: *const u8,
    len: usize,
    is_last: bool,
) -> i32 {
    let pop = usize::try_from(pop).unwrap_or(usize::MAX);
    guard(|| {
        // SAFETY: null or live, by the module contract.
        let Some(r) = (unsafe { r.as_mut() }) else {
            return SPOOL_E_NULL;
        };
        // SAFETY: null or valid for `len` bytes, by the module contract.
        let Some(data) = (unsafe { bytes(data, len) }) else {
            return SPOOL_E_NULL;
        };
        r.inner.reader().pop(pop);
        let before = r.view.state.bytes_pushed;
        r.inner.insert(first_index, data, is_last);
        // An insert changes the output only by pushing or closing it, and it
        // closes it only when its last byte is pushed (or when the end it
        // learns is where the output already is). An insert that did
        // neither, after no pop, leaves the published state as it was.
        let writer = r.inner.writer_ref();
        if pop > 0 || writer.bytes_pushed() != before || writer.is_closed() != r.view.state.closed {
            r.refresh_view();
        }
        SPOOL_OK
    })
}

/// Bytes stored but not yet written to the output.
///
/// # Safety
///
/// Arguments follow the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_reassembler_bytes_pending(
    r: *const SpoolReassembler,
    out: *mut u64,
) -> i32 {
    // SAFETY: null or live, by the module contract.
    let Some(r) = (unsafe { r.as_ref() }) else {
        return SPOOL_E_NULL;
    };
    // SAFETY: null or writable, by the module contract.
    unsafe { write_out(out, r.inner.bytes_pending()) }
}

/// The reassembler's output stream, lent for as long as the reassembler
/// lives (see the header for what the view allows). Null on null.
///
/// # Safety
///
/// `r` follows the [module contract](self).
#[no_mangle]
pub unsafe extern "C" fn spool_reassembler_stream(r: *mut SpoolReassembler) -> *mut SpoolStream {
    if r.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: live, by the module contract; a raw pointer to the field.
    unsafe { &raw mut (*r).view }
}

/// Whether a capacity fits this platform's address space (for callers that
/// want to check before `spool_stream_new`).
#[no_mangle]
pub extern "C" fn spool_capacity_ok(capacity: u64) -> i32 {
    if usize::try_from(capacity).is_ok_and(|c| c <= isize::MAX as usize) {
        SPOOL_OK
    } else {
        SPOOL_E_RANGE
    }
}
