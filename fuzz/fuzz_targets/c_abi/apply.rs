//! One op applied to the C handles and to their mirrors alike, with the
//! status the header promises for it.

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use spool::reassembler::Reassembler;
use spool::stream::ByteStream;
use spool_c::*;

use crate::ops::{Op, Target};
use crate::world::{byte_at, Assembler, Owned, Picked, World, MAX_HANDLES};

/// Runs one op.
///
/// # Safety
///
/// Every handle in `w` is live.
pub unsafe fn apply(w: &mut World, op: Op, tag: u8) {
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
