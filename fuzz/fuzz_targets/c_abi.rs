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

use libfuzzer_sys::fuzz_target;
use spool_c::*;

#[path = "c_abi/apply.rs"]
mod apply;
#[path = "c_abi/ops.rs"]
mod ops;
#[path = "c_abi/world.rs"]
mod world;

use apply::apply;
use ops::Op;
use world::{check, World};

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
