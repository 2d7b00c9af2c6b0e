//! The copy floor: the least work any copying reassembler can do on a
//! schedule, as a [`Peer`] that runs next to the real ones.
//!
//! A reassembler that keeps bytes must copy every unique byte into its
//! buffer once and the reader must copy it out once; everything else
//! (finding which bytes are new, tracking holes, the window) is overhead.
//! [`FloorPlan`] does that bookkeeping ahead of time, outside the timed loop,
//! by simulating the schedule once: for each segment it records which pieces
//! of the payload are new and how far the assembled prefix reaches
//! afterwards. [`CopyFloor`] then only replays the plan: a `memcpy` per new
//! piece into a ring, and the reader's `memcpy` out. It places bytes the
//! cheapest way too: relative to where the ring was last empty, so a drained
//! ring is refilled from its start (cache-warm, rarely wrapping).
//!
//! The floor is a correct reassembler for the schedule it was planned for
//! (its output is checked like every peer's) and for nothing else: replayed
//! against another schedule, or drained in another pattern than
//! [`run`](crate::reassembler_peers::run)'s, it panics.

use crate::reassembler_peers::Peer;
use crate::schedules::Schedule;

/// New pieces of one segment, as `(offset in the payload, length)`, and the
/// first unassembled index once the segment is taken.
#[derive(Clone, Debug)]
struct Step {
    pieces: std::ops::Range<usize>,
    assembled: u64,
}

/// What each segment of a schedule adds, worked out before timing.
#[derive(Clone, Debug)]
pub struct FloorPlan {
    capacity: usize,
    /// Every step's new pieces, back to back: `(offset in payload, length)`.
    pieces: Vec<(usize, usize)>,
    steps: Vec<Step>,
}

impl FloorPlan {
    /// Simulates `schedule` drained after every segment (as `run` does): the
    /// window is `[assembled, assembled + capacity)`, bytes outside it are
    /// dropped, and each byte is new the first time it lands inside it.
    pub fn new(schedule: &Schedule) -> Self {
        let capacity = schedule.capacity;
        let mut present = vec![false; schedule.data.len()];
        let mut assembled = 0usize;
        let mut pieces = Vec::new();
        let mut steps = Vec::with_capacity(schedule.segments.len());
        for s in &schedule.segments {
            let first = pieces.len();
            let index = s.index as usize;
            let lo = index.max(assembled);
            let hi = (index + s.len).min(assembled + capacity);
            let mut at = lo;
            while at < hi {
                if present[at] {
                    at += 1;
                    continue;
                }
                let run = at;
                while at < hi && !present[at] {
                    present[at] = true;
                    at += 1;
                }
                pieces.push((run - index, at - run));
            }
            while assembled < present.len() && present[assembled] {
                assembled += 1;
            }
            steps.push(Step {
                pieces: first..pieces.len(),
                assembled: assembled as u64,
            });
        }
        Self {
            capacity,
            pieces,
            steps,
        }
    }
}

/// Replays a [`FloorPlan`]: copies each new piece into a ring once and the
/// assembled bytes out once; see the [module documentation](self).
pub struct CopyFloor<'a> {
    plan: &'a FloorPlan,
    ring: Box<[u8]>,
    /// Index of the next segment in the plan.
    next: usize,
    /// Stream index that sits at ring position 0 (modulo the capacity).
    base: u64,
    /// First index not yet read.
    read: u64,
    /// First index not yet assembled.
    assembled: u64,
    /// One past the highest index stored, to know when the ring is empty.
    stored_end: u64,
}

impl<'a> CopyFloor<'a> {
    /// A floor replaying `plan`, with a ring of the schedule's capacity.
    pub fn new(plan: &'a FloorPlan) -> Self {
        Self {
            plan,
            ring: vec![0; plan.capacity].into_boxed_slice(),
            next: 0,
            base: 0,
            read: 0,
            assembled: 0,
            stored_end: 0,
        }
    }

    /// Ring position of stream index `i` (inside the window). `read - base`
    /// stays below the capacity, so `i - base` is below twice the capacity
    /// and one conditional subtraction wraps it (no division).
    #[inline]
    fn pos(&self, i: u64) -> usize {
        let at = (i - self.base) as usize;
        if at >= self.ring.len() {
            at - self.ring.len()
        } else {
            at
        }
    }
}

impl Peer for CopyFloor<'_> {
    #[inline]
    fn insert(&mut self, index: u64, data: &[u8], _last: bool) {
        let step = &self.plan.steps[self.next];
        self.next += 1;
        if self.stored_end == self.read {
            // Nothing stored: start again at the front of the ring.
            self.base = self.read;
        }
        for &(offset, len) in &self.plan.pieces[step.pieces.clone()] {
            let start = index + offset as u64;
            let at = self.pos(start);
            let first = len.min(self.ring.len() - at);
            self.ring[at..at + first].copy_from_slice(&data[offset..offset + first]);
            self.ring[..len - first].copy_from_slice(&data[offset + first..offset + len]);
            self.stored_end = self.stored_end.max(start + len as u64);
        }
        self.assembled = step.assembled;
    }

    #[inline]
    fn drain_into(&mut self, out: &mut Vec<u8>) {
        let len = (self.assembled - self.read) as usize;
        let at = self.pos(self.read);
        let first = len.min(self.ring.len() - at);
        out.extend_from_slice(&self.ring[at..at + first]);
        out.extend_from_slice(&self.ring[..len - first]);
        self.read = self.assembled;
        if self.read - self.base >= self.ring.len() as u64 {
            self.base += self.ring.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reassembler_peers::run;
    use crate::schedules::{cs144, realistic};

    #[test]
    fn floor_reassembles_every_schedule_it_planned() {
        for s in [
            cs144(100_000, 4096, 1500, 1500),
            cs144(100_000, 4096, 1500, 150),
            realistic(200_000, 8192, 1460, 5, 20, 5, 3),
        ] {
            let plan = FloorPlan::new(&s);
            let mut out = Vec::new();
            run(&mut CopyFloor::new(&plan), &s, &mut out);
            assert!(out == s.data);
            let copied: usize = plan.pieces.iter().map(|p| p.1).sum();
            assert_eq!(copied, s.data.len(), "each byte is copied in once");
        }
    }
}
