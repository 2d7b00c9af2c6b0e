//! The `c_abi` ops on reassembler handles (`spool_reassembler_*`),
//! each checked against its mirror.

use std::ptr::{null, null_mut};

use spool::reassembler::Reassembler;
use spool_c::*;

use super::world::{Assembler, World};
use super::{Op, Target, MAX_HANDLES};

/// The byte at stream index `i`: every insert of an index carries the same
/// byte, as a real sender's retransmissions do.
fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(31) >> 3) as u8
}

/// Runs one of these calls and gives its mirror the same.
///
/// # Safety
///
/// Every handle in `w` is live.
pub unsafe fn apply(w: &mut World, op: Op) {
    // SAFETY: handles in `w` are live and removed from `w` when freed; data
    // pointers point at live vectors of the length passed; out-pointers
    // are locals or null.
    unsafe {
        match op {
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
            _ => unreachable!("not a call of this file: {op:?}"),
        }
    }
}
