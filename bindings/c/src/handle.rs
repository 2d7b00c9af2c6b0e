//! The stream handle behind `spool_stream *`: an owned stream or a view of
//! a reassembler's output, with the state it publishes to C, and the two
//! helpers every `spool_stream_*` function goes through (`with` for
//! queries, `with_mut` for changes, which republishes the state).

use spool::reassembler::Reassembler;
use spool::stream::{ByteStream, Reader, Writer};

use crate::state::SpoolStreamState;
use crate::{SPOOL_E_NULL, SPOOL_E_RANGE, SPOOL_E_READONLY, SPOOL_OK};

/// Opaque stream handle: an owned stream or a view of a reassembler's
/// output, and the state published to C (see [`crate::state`]).
pub struct SpoolStream {
    pub(crate) handle: Handle,
    pub(crate) state: SpoolStreamState,
}

pub(crate) enum Handle {
    Owned(ByteStream),
    /// Points at the reassembler that owns this view; valid as long as the
    /// view is (the view lives inside the same allocation).
    View(*mut Reassembler),
}

impl SpoolStream {
    /// A handle over an owned stream, its state filled in (the pointers in
    /// it are into the stream's heap buffer, which moving the handle into
    /// its `Box` does not move).
    pub(crate) fn owned(stream: ByteStream) -> Self {
        let mut s = Self {
            state: SpoolStreamState::EMPTY,
            handle: Handle::Owned(stream),
        };
        s.refresh();
        s
    }

    /// A view not yet pointed at its reassembler: the caller sets the
    /// pointer once the reassembler has its final address, then refreshes.
    pub(crate) fn unattached_view() -> Self {
        Self {
            handle: Handle::View(std::ptr::null_mut()),
            state: SpoolStreamState::EMPTY,
        }
    }

    #[inline]
    pub(crate) fn stream(&self) -> &ByteStream {
        match &self.handle {
            Handle::Owned(s) => s,
            // SAFETY: a view lives inside its reassembler's allocation, so the
            // pointer is valid whenever the view is; the reassembler is a
            // different field of that allocation than this view, so the
            // shared borrow aliases no `&mut` held during the call.
            Handle::View(r) => unsafe { (**r).output() },
        }
    }

    #[inline]
    pub(crate) fn reader(&mut self) -> &mut Reader {
        match &mut self.handle {
            Handle::Owned(s) => s.reader(),
            // SAFETY: as in `stream`; the C caller uses one handle from one
            // thread at a time, so nothing else borrows the reassembler.
            Handle::View(r) => unsafe { (**r).reader() },
        }
    }

    #[inline]
    pub(crate) fn writer(&mut self) -> Option<&mut Writer> {
        match &mut self.handle {
            Handle::Owned(s) => Some(s.writer()),
            Handle::View(_) => None,
        }
    }

    /// Replaces the stream's contents with a copy of `source`; for a view,
    /// the reassembler goes on writing into the copy.
    pub(crate) fn assign(&mut self, source: ByteStream) {
        match &mut self.handle {
            Handle::Owned(s) => *s = source,
            // SAFETY: as in `reader`.
            Handle::View(r) => drop(unsafe { (**r).replace_output(source) }),
        }
    }

    /// Publishes the stream's state to C (with the spare region, for an
    /// owned stream).
    #[inline]
    pub(crate) fn refresh(&mut self) {
        self.state = match &mut self.handle {
            Handle::Owned(s) => SpoolStreamState::of_owned(s),
            Handle::View(_) => SpoolStreamState::of(self.stream()),
        };
    }

    /// Applies what the caller did in the published regions since the last
    /// call: `written` bytes copied into the spare region, then `consumed`
    /// bytes read from the front (which may include the written ones).
    pub(crate) fn sync(&mut self, written: usize, consumed: usize) -> i32 {
        if written > 0 {
            // A view publishes no spare region, so its check comes first:
            // the header promises READONLY for a commit into a view, not
            // RANGE.
            let spare_len = self.state.spare_len;
            let Some(w) = self.writer() else {
                return SPOOL_E_READONLY;
            };
            if written > spare_len {
                return SPOOL_E_RANGE;
            }
            w.commit(written);
        }
        self.reader().pop(consumed);
        SPOOL_OK
    }
}

/// Runs `f` on the stream behind `s`, or answers `SPOOL_E_NULL`.
///
/// # Safety
///
/// `s` must be null or a live handle from this library.
#[inline]
pub(crate) unsafe fn with<T>(
    s: *const SpoolStream,
    f: impl FnOnce(&SpoolStream) -> T,
) -> Result<T, i32> {
    // SAFETY: null or live, by the caller's contract.
    unsafe { s.as_ref() }.map(f).ok_or(SPOOL_E_NULL)
}

/// Runs `f` on the stream behind `s`, then publishes its state.
///
/// # Safety
///
/// As for [`with`], and no other reference to the stream is in use.
#[inline]
pub(crate) unsafe fn with_mut<T>(
    s: *mut SpoolStream,
    f: impl FnOnce(&mut SpoolStream) -> T,
) -> Result<T, i32> {
    // SAFETY: null or live and unaliased, by the caller's contract.
    let s = unsafe { s.as_mut() }.ok_or(SPOOL_E_NULL)?;
    let out = f(s);
    s.refresh();
    Ok(out)
}
