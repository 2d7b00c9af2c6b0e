//! Arbitrary insert/pop/error/save/restore sequences against the reference
//! model: any index (including near `u64::MAX`), any length, any capacity
//! up to 4 KiB, and the output stream copied aside and put back under the
//! reassembler as the lab's tests do.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use spool::{reassembler::Reassembler, stream::ByteStream};

#[path = "../../crates/spool/tests/it/support/reassembler_model.rs"]
mod model;
use model::{byte_at, Model, Saved};

#[derive(Arbitrary, Debug)]
enum Index {
    Near(u16),
    Far(u64),
}

#[derive(Arbitrary, Debug)]
enum Op {
    Insert { index: Index, len: u8, last: bool },
    Pop(u16),
    SetError,
    Save,
    Restore,
}

#[derive(Arbitrary, Debug)]
struct Input {
    capacity: u16,
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let capacity = (input.capacity % 4096) as usize;
    let mut real = Reassembler::new(ByteStream::new(capacity));
    let mut model = Model::new(capacity as u64);
    let mut saved: Option<(ByteStream, Saved)> = None;
    for op in &input.ops {
        match op {
            Op::Insert { index, len, last } => {
                let first = match *index {
                    Index::Near(i) => model.pushed.saturating_sub(64) + u64::from(i % 1024),
                    Index::Far(i) => i,
                };
                let data: Vec<u8> = (0..u64::from(*len))
                    .map(|k| byte_at(first.wrapping_add(k)))
                    .collect();
                real.insert(first, &data, *last);
                model.insert(first, &data, *last);
            }
            Op::Pop(n) => {
                let n = usize::from(*n);
                let (a, b) = real.reader_ref().as_slices();
                let front: Vec<u8> = a.iter().chain(b).take(n).copied().collect();
                assert_eq!(real.reader().pop(n), front.len());
                assert_eq!(front, model.pop(n));
            }
            Op::SetError => {
                real.set_error();
                assert!(real.reader_ref().has_error());
            }
            Op::Save => saved = Some((real.output().clone(), model.save())),
            Op::Restore => {
                if let Some((stream, copy)) = &saved {
                    real.replace_output(stream.clone());
                    model.restore(copy);
                }
            }
        }
        assert_eq!(real.bytes_pending(), model.pending.len() as u64);
        assert_eq!(real.writer_ref().bytes_pushed(), model.pushed);
        assert_eq!(real.writer_ref().is_closed(), model.closed());
        let (a, b) = real.reader_ref().as_slices();
        assert_eq!([a, b].concat(), model.buffered);
    }
});
