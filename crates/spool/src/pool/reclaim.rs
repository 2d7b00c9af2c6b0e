//! Taking back the slots and spans of frames whose every holder has let
//! go: cheaply at the front of the span order, and anywhere in it when no
//! slot is free.
//!
//! The front is where the write position goes next, so reclaiming there
//! is what frees the gap ahead, and it costs one load per reclaimed frame.
//! But a frame held for long sits at the front for as long as it lives,
//! and the frames behind it would wait with it — every one of them holding
//! a slot, so after `slots` short-lived frames every message would go to
//! the heap. So when a freeze finds no free slot,
//! [`reclaim_released`](BufferPool::reclaim_released) checks every span
//! and takes back the released ones wherever they lie; removing spans
//! keeps the others in order, which is all the placement invariant of
//! `gaps.rs` asks.
//!
//! That scan reads one slot word per span. When frames are released, it
//! frees about as many slots as it reads, and the next scan comes only
//! once they are used up: one read per frame. When nearly every frame is
//! live it would read them all at every freeze for a slot or two, so a
//! scan that frees fewer than an eighth of the spans it read makes the
//! next ones wait that many freezes (those fall back to the heap unless
//! the front frees a slot): at most [`SCAN_SHARE`] reads per freeze, on
//! average, whatever the holders do.

use super::BufferPool;

/// A full scan of `n` spans that frees fewer than `n / SCAN_SHARE` slots
/// delays the next by the shortfall, so scans cost at most `SCAN_SHARE`
/// slot reads per freeze on average.
const SCAN_SHARE: usize = 8;

impl BufferPool {
    /// Reclaims released frames at the front of the span order.
    pub(super) fn reclaim_front(&mut self) {
        while let Some(span) = self.spans.front() {
            if !self.shared().is_released(span.slot as usize) {
                break;
            }
            let span = self.spans.pop_front().expect("front exists");
            self.in_spans -= span.end - span.start;
            self.free_slots.push(span.slot);
        }
    }

    /// Reclaims released frames anywhere in the span order, unless an
    /// earlier scan that freed little asked to wait (see the [module
    /// documentation](self)).
    pub(super) fn reclaim_released(&mut self) {
        if self.scan_wait > 0 {
            self.scan_wait -= 1;
            return;
        }
        // SAFETY: the pool holds a share of the shared memory until its
        // drop (a copy of the pointer, so that the spans can be borrowed
        // mutably beside it).
        let shared = unsafe { self.shared.as_ref() };
        let read = self.spans.len();
        let (free_slots, in_spans) = (&mut self.free_slots, &mut self.in_spans);
        self.spans.retain(|span| {
            let released = shared.is_released(span.slot as usize);
            if released {
                *in_spans -= span.end - span.start;
                free_slots.push(span.slot);
            }
            !released
        });
        let freed = read - self.spans.len();
        self.scan_wait = (read / SCAN_SHARE).saturating_sub(freed);
        self.debug_check();
    }
}
