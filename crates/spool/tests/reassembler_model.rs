//! The reassembler against a simple model: a map from stream index to byte
//! plus an end index, checked after every operation of random sequences.

use std::collections::BTreeMap;

use proptest::prelude::*;
use spool::{reassembler::Reassembler, stream::ByteStream};

/// The byte at stream index `i`: every substring of the stream agrees on it.
fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8
}

#[derive(Clone, Debug)]
enum Op {
    Insert { first: u64, len: usize, last: bool },
    Pop(usize),
}

fn op(max_index: u64) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..max_index, 0..40usize, prop::bool::weighted(0.1))
            .prop_map(|(first, len, last)| Op::Insert { first, len, last }),
        1 => (u64::MAX - 64..=u64::MAX, 0..40usize, any::<bool>())
            .prop_map(|(first, len, last)| Op::Insert { first, len, last }),
        2 => (0..50usize).prop_map(Op::Pop),
    ]
}

/// The obvious, slow reassembler the real one must agree with.
struct Model {
    capacity: u64,
    pending: BTreeMap<u64, u8>,
    buffered: Vec<u8>,
    pushed: u64,
    popped: u64,
    end: Option<u64>,
}

impl Model {
    fn insert(&mut self, first: u64, data: &[u8], last: bool) {
        let window_end = self.popped + self.capacity;
        let data_end = first.checked_add(data.len() as u64);
        if let Some(data_end) = data_end {
            let cut_short = data_end > window_end && !data.is_empty();
            if last && !cut_short && self.end.is_none() && data_end >= self.pushed {
                self.end = Some(data_end);
                self.pending.retain(|&i, _| i < data_end);
            }
        }
        for (k, &b) in data.iter().enumerate() {
            let Some(i) = first.checked_add(k as u64) else {
                break;
            };
            if i >= self.pushed && i < window_end && self.end.is_none_or(|e| i < e) {
                self.pending.insert(i, b);
            }
        }
        while let Some(b) = self.pending.remove(&self.pushed) {
            self.buffered.push(b);
            self.pushed += 1;
        }
    }

    fn pop(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.buffered.len());
        self.popped += n as u64;
        self.buffered.drain(..n).collect()
    }

    fn closed(&self) -> bool {
        self.end == Some(self.pushed)
    }
}

fn check(ops: &[Op], capacity: usize) {
    let mut real = Reassembler::new(ByteStream::new(capacity));
    let mut model = Model {
        capacity: capacity as u64,
        pending: BTreeMap::new(),
        buffered: Vec::new(),
        pushed: 0,
        popped: 0,
        end: None,
    };
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
        }
        assert_eq!(
            real.bytes_pending(),
            model.pending.len() as u64,
            "pending after {op:?}"
        );
        assert_eq!(
            real.writer().bytes_pushed(),
            model.pushed,
            "pushed after {op:?}"
        );
        assert_eq!(
            real.reader_ref().bytes_buffered(),
            model.buffered.len() as u64
        );
        assert_eq!(
            real.writer().is_closed(),
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
}
