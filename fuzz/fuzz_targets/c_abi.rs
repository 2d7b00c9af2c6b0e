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

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool_c::*;

#[path = "c_abi/reassembler_calls.rs"]
mod reassembler_calls;
#[path = "c_abi/stream_calls.rs"]
mod stream_calls;
#[path = "c_abi/world.rs"]
mod world;

use world::{check, World};

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

/// Runs one op: the stream calls and the reassembler calls each have
/// their own file; the two that take no handle are here.
///
/// # Safety
///
/// Every handle in `w` is live.
unsafe fn apply(w: &mut World, op: Op, tag: u8) {
    // SAFETY: handles in `w` are live (the callee's contract); the status
    // message is a static C string.
    unsafe {
        match op {
            Op::NewReassembler(_)
            | Op::CloneReassembler(_)
            | Op::FreeReassembler(_)
            | Op::Insert { .. }
            | Op::Pending { .. }
            | Op::NullReassembler => reassembler_calls::apply(w, op),
            Op::CapacityOk(c) => {
                let ok = usize::try_from(c).is_ok_and(|c| c <= isize::MAX as usize);
                assert_eq!(spool_capacity_ok(c) == SPOOL_OK, ok);
            }
            Op::Message(code) => {
                let msg = CStr::from_ptr(spool_status_message(code));
                assert!(!msg.is_empty());
            }
            _ => stream_calls::apply(w, op, tag),
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
