//! The C ABI calls the fuzzer picks from, with their arguments.

use arbitrary::Arbitrary;

/// A stream handle: an owned stream, a reassembler's view, or null.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Target {
    Owned(u8),
    View(u8),
    Null,
}

#[derive(Arbitrary, Debug)]
pub enum Op {
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
