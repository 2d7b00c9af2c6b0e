//! Arbitrary sequences of C ABI calls (`bindings/c`), made in process the
//! way a C caller would and always within the header's contract — handles
//! live or null, data pointers valid for their length or null with length
//! 0, out-pointers valid or null — against the Rust types as the oracle:
//! every owned `spool_stream` is mirrored by a [`ByteStream`], every
//! `spool_reassembler` by a [`Reassembler`] given the same calls.
//!
//! After every call the status must be the one the header promises, and
//! every live handle's published state (`spool_stream_state_of`), its query
//! functions and its bytes must equal its mirror's. Null handles, null
//! out-pointers, a null `data` with a non-zero length, writes to a
//! reassembler's view, freeing a view, taking over a view, committing past
//! the published spare region and impossible capacities are all in the
//! mix: each must be an error code, never undefined behaviour (run under
//! AddressSanitizer, as cargo-fuzz does).
#![no_main]

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool::reassembler::Reassembler;
use spool::stream::ByteStream;
use spool_c::*;

/// Live handles of each kind at most, so a long input stays cheap.
const MAX_HANDLES: usize = 4;

/// A stream handle: an owned stream, a reassembler's view, or null.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Target {
    Owned(u8),
    View(u8),
    Null,
}

#[derive(Arbitrary, Debug)]
enum Op {
    New(u16),
    NewHuge(u64),
    Clone(Target),
    Free(Target),
    Assign {
        dst: Target,
        src: Target,
    },
    Push {
        s: Target,
        len: u8,
        null_data: bool,
        null_accepted: bool,
    },
    /// Copies bytes into the published spare region, then reports them and
    /// a pop with `spool_stream_sync_push`; `over` reports more than fits.
    SyncPush {
        s: Target,
        written: u8,
        over: bool,
        consumed: u16,
        len: u8,
    },
    Close(Target),
    SetError(Target),
    Pop(Target, u16),
    Peek {
        s: Target,
        null_out: bool,
    },
    Query {
        s: Target,
        null_out: bool,
    },
    NewReassembler(Target),
    CloneReassembler(u8),
    FreeReassembler(u8),
    Insert {
        r: u8,
        pop: u16,
        near: u16,
        far: Option<u64>,
        len: u8,
        last: bool,
        null_data: bool,
    },
    Pending {
        r: u8,
        null_out: bool,
    },
    NullReassembler,
    CapacityOk(u64),
    Message(i32),
}

/// The byte at stream index `i`: every insert of an index carries the same
/// byte, as a real sender's retransmissions do.
fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(31) >> 3) as u8
}

struct Owned {
    handle: *mut SpoolStream,
    model: ByteStream,
}

struct Assembler {
    handle: *mut SpoolReassembler,
    model: Reassembler,
}

#[derive(Default)]
struct World {
    streams: Vec<Owned>,
    assemblers: Vec<Assembler>,
}

/// A stream handle and its mirror (`None` for null).
enum Picked<'a> {
    Owned(*mut SpoolStream, &'a mut ByteStream),
    View(*mut SpoolStream, &'a mut Reassembler),
    Null,
}

impl World {
    fn pick(&mut self, t: Target) -> Picked<'_> {
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
    fn peek_model(&mut self, t: Target) -> Option<(*mut SpoolStream, ByteStream)> {
        match self.pick(t) {
            Picked::Owned(h, m) => Some((h, m.clone())),
            Picked::View(h, r) => Some((h, r.output().clone())),
            Picked::Null => None,
        }
    }

    fn handle(&mut self, t: Target) -> *mut SpoolStream {
        match self.pick(t) {
            Picked::Owned(h, _) | Picked::View(h, _) => h,
            Picked::Null => null_mut(),
        }
    }
}

/// The bytes a stream holds, front to back.
fn contents(stream: &ByteStream) -> Vec<u8> {
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
unsafe fn check(s: *mut SpoolStream, model: &ByteStream, owned: bool) {
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

/// Runs one op.
///
/// # Safety
///
/// Every handle in `w` is live.
unsafe fn apply(w: &mut World, op: Op, tag: u8) {
    // SAFETY: handles in `w` are live and removed from `w` when freed; data
    // pointers point at live vectors of the length passed; out-pointers
    // are locals or null.
    unsafe {
        match op {
            Op::New(cap) if w.streams.len() < MAX_HANDLES => {
                let cap = usize::from(cap % 600);
                let handle = spool_stream_new(cap as u64);
                assert!(!handle.is_null());
                w.streams.push(Owned {
                    handle,
                    model: ByteStream::new(cap),
                });
            }
            Op::New(_) => {}
            Op::NewHuge(cap) => {
                // Only capacities that cannot be allocated: beyond isize::MAX.
                let cap = cap | 1 << 63;
                assert!(spool_stream_new(cap).is_null());
                assert_eq!(spool_capacity_ok(cap), SPOOL_E_RANGE);
            }
            Op::Clone(t) => match w.peek_model(t) {
                Some((h, model)) if w.streams.len() < MAX_HANDLES => {
                    let handle = spool_stream_clone(h);
                    assert!(!handle.is_null());
                    w.streams.push(Owned { handle, model });
                }
                Some(_) => {}
                None => assert!(spool_stream_clone(null()).is_null()),
            },
            Op::Free(t) => match t {
                Target::Owned(i) if !w.streams.is_empty() => {
                    let n = w.streams.len();
                    let s = w.streams.swap_remove(usize::from(i) % n);
                    assert_eq!(spool_stream_free(s.handle), SPOOL_OK);
                }
                _ => {
                    let h = w.handle(t);
                    let expected = if h.is_null() {
                        SPOOL_OK
                    } else {
                        SPOOL_E_BORROWED
                    };
                    assert_eq!(spool_stream_free(h), expected);
                }
            },
            Op::Assign { dst, src } => {
                let source = w.peek_model(src);
                let src_handle = source.as_ref().map_or(null_mut(), |s| s.0);
                let dst_handle = w.handle(dst);
                let status = spool_stream_assign(dst_handle, src_handle);
                match (source, w.pick(dst)) {
                    (Some((_, copy)), Picked::Owned(_, m)) => {
                        assert_eq!(status, SPOOL_OK);
                        *m = copy;
                    }
                    (Some((_, copy)), Picked::View(_, r)) => {
                        assert_eq!(status, SPOOL_OK);
                        drop(r.replace_output(copy));
                    }
                    _ => assert_eq!(status, SPOOL_E_NULL),
                }
            }
            Op::Push {
                s,
                len,
                null_data,
                null_accepted,
            } => {
                let data = vec![tag; usize::from(len)];
                let ptr = if null_data { null() } else { data.as_ptr() };
                let mut accepted = usize::MAX;
                let out = if null_accepted {
                    null_mut()
                } else {
                    &raw mut accepted
                };
                let h = w.handle(s);
                let status = spool_stream_push(h, ptr, data.len(), out);
                match w.pick(s) {
                    Picked::Null => assert_eq!(status, SPOOL_E_NULL),
                    _ if null_data && len > 0 => assert_eq!(status, SPOOL_E_NULL),
                    Picked::View(..) if len > 0 => assert_eq!(status, SPOOL_E_READONLY),
                    Picked::View(..) => assert_eq!(status, SPOOL_OK),
                    Picked::Owned(_, m) => {
                        assert_eq!(status, SPOOL_OK);
                        let n = m.writer().push(&data);
                        if !null_accepted {
                            assert_eq!(accepted, n);
                        }
                    }
                }
            }
            Op::SyncPush {
                s,
                written,
                over,
                consumed,
                len,
            } => {
                let h = w.handle(s);
                if h.is_null() {
                    let status = spool_stream_sync_push(h, 0, 0, null(), 0, null_mut());
                    assert_eq!(status, SPOOL_E_NULL);
                    return;
                }
                let state = *spool_stream_state_of(h);
                let mut written = usize::from(written).min(state.spare_len);
                if over {
                    written = state.spare_len + 1 + written;
                } else if written > 0 {
                    std::ptr::write_bytes(state.spare, tag, written);
                }
                let data = vec![tag ^ 0x80; usize::from(len)];
                let mut accepted = usize::MAX;
                let status = spool_stream_sync_push(
                    h,
                    written,
                    u64::from(consumed),
                    data.as_ptr(),
                    data.len(),
                    &mut accepted,
                );
                let consumed = usize::from(consumed);
                match w.pick(s) {
                    Picked::View(_, r) => {
                        if written > 0 {
                            assert_eq!(status, SPOOL_E_READONLY, "commit into a view");
                        } else {
                            r.reader().pop(consumed);
                            let expected = if len > 0 { SPOOL_E_READONLY } else { SPOOL_OK };
                            assert_eq!(status, expected);
                        }
                    }
                    Picked::Owned(_, m) if over => {
                        assert_eq!(status, SPOOL_E_RANGE);
                        let _ = m;
                    }
                    Picked::Owned(_, m) => {
                        assert_eq!(status, SPOOL_OK);
                        assert_eq!(m.writer().push(&vec![tag; written]), written);
                        m.reader().pop(consumed);
                        assert_eq!(accepted, m.writer().push(&data));
                    }
                    Picked::Null => unreachable!(),
                }
            }
            Op::Close(s) => {
                let status = spool_stream_close(w.handle(s));
                match w.pick(s) {
                    Picked::Owned(_, m) => {
                        assert_eq!(status, SPOOL_OK);
                        m.writer().close();
                    }
                    Picked::View(..) => assert_eq!(status, SPOOL_E_READONLY),
                    Picked::Null => assert_eq!(status, SPOOL_E_NULL),
                }
            }
            Op::SetError(s) => {
                let status = spool_stream_set_error(w.handle(s));
                match w.pick(s) {
                    Picked::Owned(_, m) => {
                        assert_eq!(status, SPOOL_OK);
                        m.reader().set_error();
                    }
                    Picked::View(_, r) => {
                        assert_eq!(status, SPOOL_OK);
                        r.set_error();
                    }
                    Picked::Null => assert_eq!(status, SPOOL_E_NULL),
                }
            }
            Op::Pop(s, n) => {
                let status = spool_stream_pop(w.handle(s), u64::from(n));
                let n = usize::from(n);
                match w.pick(s) {
                    Picked::Owned(_, m) => {
                        assert_eq!(status, SPOOL_OK);
                        m.reader().pop(n);
                    }
                    Picked::View(_, r) => {
                        assert_eq!(status, SPOOL_OK);
                        r.reader().pop(n);
                    }
                    Picked::Null => assert_eq!(status, SPOOL_E_NULL),
                }
            }
            Op::Peek { s, null_out } => {
                let h = w.handle(s);
                let (mut front, mut len) = (null(), 0usize);
                let status = if null_out {
                    spool_stream_peek(h, null_mut(), &mut len)
                } else {
                    spool_stream_peek(h, &mut front, &mut len)
                };
                if null_out || h.is_null() {
                    assert_eq!(status, SPOOL_E_NULL);
                } else {
                    assert_eq!(status, SPOOL_OK);
                }
            }
            Op::Query { s, null_out } => {
                let h = w.handle(s);
                let expected = if null_out || h.is_null() {
                    SPOOL_E_NULL
                } else {
                    SPOOL_OK
                };
                let (mut v, mut f) = (0u64, false);
                let (v, f) = if null_out {
                    (null_mut(), null_mut())
                } else {
                    (&raw mut v, &raw mut f)
                };
                for status in [
                    spool_stream_bytes_pushed(h, v),
                    spool_stream_bytes_popped(h, v),
                    spool_stream_bytes_buffered(h, v),
                    spool_stream_available_capacity(h, v),
                    spool_stream_is_closed(h, f),
                    spool_stream_is_finished(h, f),
                    spool_stream_has_error(h, f),
                ] {
                    assert_eq!(status, expected);
                }
                assert_eq!(spool_stream_state_of(h).is_null(), h.is_null());
            }
            Op::NewReassembler(t) => match t {
                Target::Owned(i) if !w.streams.is_empty() => {
                    if w.assemblers.len() >= MAX_HANDLES {
                        return;
                    }
                    let n = w.streams.len();
                    let s = w.streams.swap_remove(usize::from(i) % n);
                    let handle = spool_reassembler_new(s.handle);
                    assert!(!handle.is_null());
                    let model = Reassembler::new(s.model);
                    w.assemblers.push(Assembler { handle, model });
                }
                _ => assert!(spool_reassembler_new(w.handle(t)).is_null()),
            },
            Op::CloneReassembler(i) if !w.assemblers.is_empty() => {
                if w.assemblers.len() >= MAX_HANDLES {
                    return;
                }
                let r = &w.assemblers[usize::from(i) % w.assemblers.len()];
                let handle = spool_reassembler_clone(r.handle);
                assert!(!handle.is_null());
                let model = r.model.clone();
                w.assemblers.push(Assembler { handle, model });
            }
            Op::CloneReassembler(_) => assert!(spool_reassembler_clone(null()).is_null()),
            Op::FreeReassembler(i) if !w.assemblers.is_empty() => {
                let n = w.assemblers.len();
                let r = w.assemblers.swap_remove(usize::from(i) % n);
                assert_eq!(spool_reassembler_free(r.handle), SPOOL_OK);
            }
            Op::FreeReassembler(_) => assert_eq!(spool_reassembler_free(null_mut()), SPOOL_OK),
            Op::Insert {
                r,
                pop,
                near,
                far,
                len,
                last,
                null_data,
            } => {
                let Some(n) = std::num::NonZeroUsize::new(w.assemblers.len()) else {
                    let status = spool_reassembler_insert(null_mut(), 0, null(), 0, last);
                    assert_eq!(status, SPOOL_E_NULL);
                    return;
                };
                let a = &mut w.assemblers[usize::from(r) % n.get()];
                let pushed = a.model.writer_ref().bytes_pushed();
                let first = far.unwrap_or(pushed.saturating_sub(64) + u64::from(near % 1024));
                let data: Vec<u8> = (0..u64::from(len))
                    .map(|k| byte_at(first.wrapping_add(k)))
                    .collect();
                let ptr = if null_data { null() } else { data.as_ptr() };
                let status = spool_reassembler_pop_insert(
                    a.handle,
                    u64::from(pop),
                    first,
                    ptr,
                    data.len(),
                    last,
                );
                if null_data && len > 0 {
                    assert_eq!(status, SPOOL_E_NULL);
                } else {
                    assert_eq!(status, SPOOL_OK);
                    a.model.reader().pop(usize::from(pop));
                    a.model.insert(first, &data, last);
                }
            }
            Op::Pending { r, null_out } => {
                let a = w.assemblers.get(usize::from(r) % w.assemblers.len().max(1));
                let h = a.map_or(null(), |a| a.handle.cast_const());
                let mut v = u64::MAX;
                let out = if null_out { null_mut() } else { &raw mut v };
                let status = spool_reassembler_bytes_pending(h, out);
                match a {
                    Some(a) if !null_out => {
                        assert_eq!(status, SPOOL_OK);
                        assert_eq!(v, a.model.bytes_pending());
                    }
                    _ => assert_eq!(status, SPOOL_E_NULL),
                }
            }
            Op::NullReassembler => {
                assert!(spool_reassembler_stream(null_mut()).is_null());
                assert!(spool_reassembler_new(null_mut()).is_null());
            }
            Op::CapacityOk(c) => {
                let ok = usize::try_from(c).is_ok_and(|c| c <= isize::MAX as usize);
                assert_eq!(spool_capacity_ok(c) == SPOOL_OK, ok);
            }
            Op::Message(code) => {
                let msg = CStr::from_ptr(spool_status_message(code));
                assert!(!msg.is_empty());
            }
        }
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut world = World::default();
    for (step, op) in ops.into_iter().enumerate() {
        // SAFETY: `world` holds only live handles (see `apply`).
        unsafe {
            apply(&mut world, op, step as u8);
            for s in &world.streams {
                check(s.handle, &s.model, true);
            }
            for r in &world.assemblers {
                check(spool_reassembler_stream(r.handle), r.model.output(), false);
            }
        }
    }
    for s in world.streams {
        // SAFETY: live, and never used again.
        assert_eq!(unsafe { spool_stream_free(s.handle) }, SPOOL_OK);
    }
    for r in world.assemblers {
        // SAFETY: live, and never used again.
        assert_eq!(unsafe { spool_reassembler_free(r.handle) }, SPOOL_OK);
    }
});
