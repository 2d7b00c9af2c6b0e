//! Turning panics and null pointers into status codes at the boundary.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::{SPOOL_E_NULL, SPOOL_E_PANIC, SPOOL_OK};

/// Runs `f`, mapping a panic to `SPOOL_E_PANIC`.
#[inline]
pub(crate) fn guard(f: impl FnOnce() -> i32) -> i32 {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(SPOOL_E_PANIC)
}

/// Writes `value` through `out`, or answers `SPOOL_E_NULL`.
///
/// # Safety
///
/// `out` must be null or valid for a write of `T`.
#[inline]
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T) -> i32 {
    if out.is_null() {
        return SPOOL_E_NULL;
    }
    // SAFETY: non-null, and valid for writes by the caller's contract.
    unsafe { out.write(value) };
    SPOOL_OK
}

/// Borrows the C byte range `data[..len]`; a null `data` is allowed only with
/// `len == 0`.
///
/// # Safety
///
/// `data` must be null or valid for reads of `len` bytes for `'a`.
#[inline]
pub(crate) unsafe fn bytes<'a>(data: *const u8, len: usize) -> Option<&'a [u8]> {
    if data.is_null() {
        return (len == 0).then_some(&[]);
    }
    // SAFETY: non-null and valid for `len` bytes by the caller's contract.
    Some(unsafe { std::slice::from_raw_parts(data, len) })
}
