//! The reference model of the reassembler: the obvious, slow version the real
//! one must agree with. Shared by the property test and the fuzz target.

use std::collections::BTreeMap;

/// The byte at stream index `i`: every substring of the stream agrees on it.
pub fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8
}

/// A copy of the model's output stream.
#[derive(Clone, Debug)]
pub struct Saved {
    buffered: Vec<u8>,
    pushed: u64,
    popped: u64,
}

/// The obvious, slow reassembler the real one must agree with.
pub struct Model {
    pub capacity: u64,
    pub pending: BTreeMap<u64, u8>,
    pub buffered: Vec<u8>,
    pub pushed: u64,
    pub popped: u64,
    pub end: Option<u64>,
}

impl Model {
    pub fn new(capacity: u64) -> Self {
        Self {
            capacity,
            pending: BTreeMap::new(),
            buffered: Vec::new(),
            pushed: 0,
            popped: 0,
            end: None,
        }
    }
}

impl Model {
    pub fn insert(&mut self, first: u64, data: &[u8], last: bool) {
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
        self.write_out_ready();
    }

    fn write_out_ready(&mut self) {
        while let Some(b) = self.pending.remove(&self.pushed) {
            self.buffered.push(b);
            self.pushed += 1;
        }
    }

    /// The output stream's part of the state, as a copy of the stream keeps it.
    pub fn save(&self) -> Saved {
        Saved {
            buffered: self.buffered.clone(),
            pushed: self.pushed,
            popped: self.popped,
        }
    }

    /// Puts a saved output stream back under the reassembler (the lab's
    /// `reader() = saved`): pending bytes outside its window are dropped,
    /// those it can now take are written out.
    pub fn restore(&mut self, saved: &Saved) {
        self.buffered = saved.buffered.clone();
        self.pushed = saved.pushed;
        self.popped = saved.popped;
        let (pushed, window_end) = (self.pushed, self.popped + self.capacity);
        self.pending.retain(|&i, _| i >= pushed && i < window_end);
        self.write_out_ready();
    }

    pub fn pop(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.buffered.len());
        self.popped += n as u64;
        self.buffered.drain(..n).collect()
    }

    pub fn closed(&self) -> bool {
        self.end == Some(self.pushed)
    }
}
