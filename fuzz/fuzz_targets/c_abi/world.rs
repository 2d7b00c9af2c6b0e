//! The handles alive in a run, each beside its mirror (the Rust type the
//! C functions wrap), and the check that a handle equals its mirror.

use std::ptr::{null, null_mut};

use spool::reassembler::Reassembler;
use spool::stream::ByteStream;
use spool_c::*;

use crate::ops::Target;

/// Live handles of each kind at most, so a long input stays cheap.
pub const MAX_HANDLES: usize = 4;

/// The byte at stream index `i`: every insert of an index carries the same
/// byte, as a real sender's retransmissions do.
pub fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(31) >> 3) as u8
}

pub struct Owned {
    pub handle: *mut SpoolStream,
    pub model: ByteStream,
}

pub struct Assembler {
    pub handle: *mut SpoolReassembler,
    pub model: Reassembler,
}

#[derive(Default)]
pub struct World {
    pub streams: Vec<Owned>,
    pub assemblers: Vec<Assembler>,
}

/// A stream handle and its mirror (`None` for null).
pub enum Picked<'a> {
    Owned(*mut SpoolStream, &'a mut ByteStream),
    View(*mut SpoolStream, &'a mut Reassembler),
    Null,
}

impl World {
    pub fn pick(&mut self, t: Target) -> Picked<'_> {
        match t {
            Target::Owned(i) if !self.streams.is_empty() => {
                let n = self.streams.len();
                let s = &mut self.streams[usize::from(i) % n];
                Picked::Owned(s.handle, &mut s.model)
            }
            Target::View(i) if !self.assemblers.is_empty() => {
                let n = self.assemblers.len();
                let r = &mut self.assemblers[usize::from(i) % n];
                // SAFETY: a live reassembler.
                let view = unsafe { spool_reassembler_stream(r.handle) };
                assert!(!view.is_null());
                Picked::View(view, &mut r.model)
            }
            _ => Picked::Null,
        }
    }

    /// The handle and a copy of its mirror's stream, for reads.
    pub fn peek_model(&mut self, t: Target) -> Option<(*mut SpoolStream, ByteStream)> {
        match self.pick(t) {
            Picked::Owned(h, m) => Some((h, m.clone())),
            Picked::View(h, r) => Some((h, r.output().clone())),
            Picked::Null => None,
        }
    }

    pub fn handle(&mut self, t: Target) -> *mut SpoolStream {
        match self.pick(t) {
            Picked::Owned(h, _) | Picked::View(h, _) => h,
            Picked::Null => null_mut(),
        }
    }
}

/// The bytes a stream holds, front to back.
pub fn contents(stream: &ByteStream) -> Vec<u8> {
    let (a, b) = stream.reader_ref().as_slices();
    [a, b].concat()
}

/// The bytes buffered in `s`, read through the C functions without
/// changing it: the published front, then the rest from a clone.
///
/// # Safety
///
/// `s` is a live handle.
unsafe fn c_contents(s: *mut SpoolStream) -> Vec<u8> {
    // SAFETY: `s` is live; the clone is freed before returning, and each
    // published front is read before the next call on its handle.
    unsafe {
        let copy = spool_stream_clone(s);
        assert!(!copy.is_null());
        let mut out = Vec::new();
        loop {
            let state = *spool_stream_state_of(copy);
            if state.front_len == 0 {
                break;
            }
            out.extend_from_slice(std::slice::from_raw_parts(state.front, state.front_len));
            assert_eq!(spool_stream_pop(copy, state.front_len as u64), SPOOL_OK);
        }
        assert_eq!(spool_stream_free(copy), SPOOL_OK);
        out
    }
}

/// The handle's published state, its query functions and its bytes all
/// equal the mirror's.
///
/// # Safety
///
/// `s` is a live handle.
pub unsafe fn check(s: *mut SpoolStream, model: &ByteStream, owned: bool) {
    let (reader, writer) = (model.reader_ref(), model.writer_ref());
    // SAFETY: `s` is live; out-pointers are locals.
    unsafe {
        let state = *spool_stream_state_of(s);
        assert_eq!(state.bytes_buffered, reader.bytes_buffered());
        assert_eq!(state.bytes_pushed, writer.bytes_pushed());
        assert_eq!(state.bytes_popped, reader.bytes_popped());
        assert_eq!(state.available_capacity, writer.available_capacity());
        assert_eq!(state.closed, writer.is_closed());
        assert_eq!(state.finished, reader.is_finished());
        assert_eq!(state.error, reader.has_error());
        assert_eq!(state.front_len > 0, reader.bytes_buffered() > 0);
        let open_room = owned && !writer.is_closed() && writer.available_capacity() > 0;
        assert_eq!(state.spare_len > 0, open_room, "spare region");
        assert!(state.spare_len as u64 <= writer.available_capacity());

        let mut v = u64::MAX;
        assert_eq!(spool_stream_bytes_buffered(s, &mut v), SPOOL_OK);
        assert_eq!(v, state.bytes_buffered);
        assert_eq!(spool_stream_available_capacity(s, &mut v), SPOOL_OK);
        assert_eq!(v, state.available_capacity);
        let mut f = !state.closed;
        assert_eq!(spool_stream_is_closed(s, &mut f), SPOOL_OK);
        assert_eq!(f, state.closed);
        let (mut front, mut len) = (null(), usize::MAX);
        assert_eq!(spool_stream_peek(s, &mut front, &mut len), SPOOL_OK);
        assert_eq!(len, state.front_len);
        let c = c_contents(s);
        assert_eq!(c, contents(model));
        assert_eq!(&c[..len], std::slice::from_raw_parts(front, len));
    }
}
