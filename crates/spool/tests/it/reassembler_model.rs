//! The reassembler against a simple model: a map from stream index to byte
//! plus an end index, checked after every operation of random sequences.

use proptest::prelude::*;
use spool::{reassembler::Reassembler, stream::ByteStream};

use crate::support::reassembler_model as model;
use model::{byte_at, Model, Saved};

#[derive(Clone, Debug)]
enum Op {
    Insert {
        first: u64,
        len: usize,
        last: bool,
    },
    Pop(usize),
    /// Copy the output stream aside (the lab's `ByteStream saved = reader()`).
    Save,
    /// Put the last copy back (`reader() = saved`).
    Restore,
}

fn op(max_index: u64) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..max_index, 0..40usize, prop::bool::weighted(0.1))
            .prop_map(|(first, len, last)| Op::Insert { first, len, last }),
        1 => (u64::MAX - 64..=u64::MAX, 0..40usize, any::<bool>())
            .prop_map(|(first, len, last)| Op::Insert { first, len, last }),
        2 => (0..50usize).prop_map(Op::Pop),
        1 => Just(Op::Save),
        1 => Just(Op::Restore),
    ]
}

fn check(ops: &[Op], capacity: usize) {
    let mut real = Reassembler::new(ByteStream::new(capacity));
    let mut model = Model::new(capacity as u64);
    let mut saved: Option<(ByteStream, Saved)> = None;
    for op in ops {
        match *op {
            Op::Insert { first, len, last } => {
                let data: Vec<u8> = (0..len as u64)
                    .map(|k| byte_at(first.wrapping_add(k)))
                    .collect();
                real.insert(first, &data, last);
                model.insert(first, &data, last);
            }
            Op::Pop(n) => {
                let (a, b) = real.reader_ref().as_slices();
                let front: Vec<u8> = a.iter().chain(b).take(n).copied().collect();
                assert_eq!(real.reader().pop(n), front.len());
                assert_eq!(front, model.pop(n), "popped bytes");
            }
            Op::Save => saved = Some((real.output().clone(), model.save())),
            Op::Restore => {
                if let Some((stream, copy)) = &saved {
                    real.replace_output(stream.clone());
                    model.restore(copy);
                }
            }
        }
        assert_eq!(
            real.bytes_pending(),
            model.pending.len() as u64,
            "pending after {op:?}"
        );
        assert_eq!(
            real.writer_ref().bytes_pushed(),
            model.pushed,
            "pushed after {op:?}"
        );
        assert_eq!(
            real.reader_ref().bytes_buffered(),
            model.buffered.len() as u64
        );
        assert_eq!(
            real.writer_ref().is_closed(),
            model.closed(),
            "closed after {op:?}"
        );
        let (a, b) = real.reader_ref().as_slices();
        assert_eq!(
            [a, b].concat(),
            model.buffered,
            "buffered bytes after {op:?}"
        );
    }
}

/// One- to three-byte pieces scattered over a wide window: more holes at
/// once than the range mode tracks, so the bitmap mode is exercised too.
fn sparse_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..600u64, 1..4usize, prop::bool::weighted(0.02))
            .prop_map(|(first, len, last)| Op::Insert { first, len, last }),
        1 => (0..200usize).prop_map(Op::Pop),
        1 => Just(Op::Save),
        1 => Just(Op::Restore),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn agrees_with_model_small_capacity(ops in prop::collection::vec(op(80), 1..120), capacity in 0usize..70) {
        check(&ops, capacity);
    }

    #[test]
    fn agrees_with_model_large_capacity(ops in prop::collection::vec(op(400), 1..200), capacity in 60usize..300) {
        check(&ops, capacity);
    }

    #[test]
    fn agrees_with_model_many_holes(ops in prop::collection::vec(sparse_op(), 100..600), capacity in 200usize..600) {
        check(&ops, capacity);
    }
}
