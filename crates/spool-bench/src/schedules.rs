//! Deterministic segment schedules for reassembler benchmarks: the CS144
//! lab's speed test and a realistic lossy, reordering network.

/// One substring delivered to a reassembler.
#[derive(Clone, Debug)]
pub struct Segment {
    /// Stream index of the first byte.
    pub index: u64,
    /// Length in bytes.
    pub len: usize,
    /// Whether the segment ends the stream.
    pub last: bool,
}

/// A stream and the segments that deliver it.
pub struct Schedule {
    /// The stream's bytes.
    pub data: Vec<u8>,
    /// Segments in delivery order.
    pub segments: Vec<Segment>,
    /// Output capacity the schedule was made for.
    pub capacity: usize,
}

impl Schedule {
    /// Bytes offered over all segments (duplicates and overlaps included).
    pub fn offered_bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.len as u64).sum()
    }

    /// The payload of a segment.
    #[inline]
    pub fn payload(&self, s: &Segment) -> &[u8] {
        &self.data[s.index as usize..s.index as usize + s.len]
    }
}

/// xorshift64*, so schedules need no external generator.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// Random stream bytes.
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

/// The four schedules of the reassembler benchmark, by name: the CS144 speed
/// test without and with 10x overlap (1.5 MB through a 32 KiB window), and
/// 4 MB over a lossy, reordering network with a 64 KiB and a 1 MiB window.
pub fn bench_schedules() -> Vec<(&'static str, Schedule)> {
    vec![
        ("cs144/no-overlap", cs144(1_500_000, 32_768, 1500, 1500)),
        ("cs144/10x-overlap", cs144(1_500_000, 32_768, 1500, 150)),
        (
            "realistic/64KiB",
            realistic(4_000_000, 64 * 1024, 1460, 2, 10, 1, 7),
        ),
        (
            "realistic/1MiB",
            realistic(4_000_000, 1 << 20, 1460, 2, 10, 1, 7),
        ),
    ]
}

/// The CS144 speed schedule: within each `capacity` window starting at `i`,
/// chunks of up to `chunk` bytes start at `i + capacity - 1`, then every
/// `overlap` bytes lower, down to `i` itself, so the window fills backwards
/// and only the last chunk of each window lets anything be written.
/// `overlap == chunk` gives no overlap; `overlap == chunk / 10` gives each
/// byte ten times.
pub fn cs144(len: usize, capacity: usize, chunk: usize, overlap: usize) -> Schedule {
    let data = random_bytes(len, 0x5EED);
    let mut segments = Vec::new();
    let mut i = 0;
    while i < len {
        let mut start = i + capacity - 1;
        loop {
            let s = start.min(len - 1);
            let end = (s + chunk).min(len);
            segments.push(Segment {
                index: s as u64,
                len: end - s,
                last: end == len,
            });
            if start == i {
                break;
            }
            start = start.saturating_sub(overlap).max(i);
        }
        i += capacity;
    }
    Schedule {
        data,
        segments,
        capacity,
    }
}

/// A realistic network: segments of `mtu` bytes sent in windows of
/// `capacity`, with `loss_pct`% lost (and sent again in the next flight),
/// `reorder_pct`% swapped with a segment up to 8 places later, and
/// `dup_pct`% delivered twice. The receiver is assumed to drain its output
/// after every segment, as the benchmark loop does.
pub fn realistic(
    len: usize,
    capacity: usize,
    mtu: usize,
    loss_pct: u64,
    reorder_pct: u64,
    dup_pct: u64,
    seed: u64,
) -> Schedule {
    let data = random_bytes(len, seed);
    let mut rng = Rng(seed.wrapping_mul(31) | 1);
    let mut present = vec![false; len];
    let mut acked = 0usize;
    let mut next = 0usize;
    let mut lost: Vec<(usize, usize)> = Vec::new();
    let mut segments = Vec::new();
    while acked < len {
        // One flight: retransmissions first, then new data up to the window.
        let mut flight: Vec<(usize, usize)> = std::mem::take(&mut lost);
        while next < len && next < acked + capacity {
            let end = (next + mtu).min(len).min(acked + capacity);
            flight.push((next, end));
            next = end;
        }
        for k in 0..flight.len() {
            if rng.below(100) < reorder_pct {
                let j = (k + 1 + rng.below(8) as usize).min(flight.len() - 1);
                flight.swap(k, j);
            }
        }
        for (s, e) in flight {
            if rng.below(100) < loss_pct {
                lost.push((s, e));
                continue;
            }
            let copies = if rng.below(100) < dup_pct { 2 } else { 1 };
            for _ in 0..copies {
                segments.push(Segment {
                    index: s as u64,
                    len: e - s,
                    last: e == len,
                });
            }
            let window_end = acked + capacity;
            for p in present.iter_mut().take(e.min(window_end)).skip(s) {
                *p = true;
            }
            while acked < len && present[acked] {
                acked += 1;
            }
        }
    }
    Schedule {
        data,
        segments,
        capacity,
    }
}
