//! Deterministic network simulation: a seeded sender cuts a stream into
//! MTU-sized segments and delivers them reordered, duplicated, re-cut with
//! overlaps and lost-then-retransmitted, through windows of several sizes,
//! to a reader that drains at a random pace. The output must equal the
//! input byte for byte, for every cell of the loss x window matrix.

use spool::{reassembler::Reassembler, stream::ByteStream};

/// xorshift64*: a tiny deterministic generator, so the test needs no seed
/// files and every run sees the same traffic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Network {
    mtu: usize,
    loss: u64,
    reorder: u64,
    duplicate: u64,
}

/// Runs one transfer; returns the number of rounds it took.
fn transfer(data: &[u8], capacity: usize, net: &Network, seed: u64) -> usize {
    let mut rng = Rng(seed | 1);
    let mut r = Reassembler::new(ByteStream::new(capacity));
    let mut out = Vec::with_capacity(data.len());
    let mut rounds = 0;
    while !r.reader_ref().is_finished() {
        rounds += 1;
        assert!(rounds < 100_000, "transfer did not finish");
        // The sender sends its whole window, in segments whose boundaries
        // shift from round to round (so retransmissions overlap the
        // originals), then the network mangles the flight.
        let acked = r.first_unassembled_index() as usize;
        let window = (r.writer_ref().available_capacity() as usize).max(1);
        let limit = (acked + window).min(data.len());
        let mut flight = Vec::new();
        let mut at = acked.saturating_sub(rng.below(net.mtu as u64 / 2) as usize);
        while at < limit || (at == data.len() && flight.is_empty()) {
            let len = 1 + rng.below(net.mtu as u64) as usize;
            let end = (at + len).min(data.len());
            flight.push((at, end));
            if end == data.len() {
                break;
            }
            at = end;
        }
        for i in 0..flight.len() {
            if rng.chance(net.reorder) {
                let j = rng.below(flight.len() as u64) as usize;
                flight.swap(i, j);
            }
        }
        let mut delivered = Vec::new();
        for &(s, e) in &flight {
            if rng.chance(net.loss) {
                continue;
            }
            delivered.push((s, e));
            if rng.chance(net.duplicate) {
                delivered.push((s, e));
            }
        }
        for (s, e) in delivered {
            r.insert(s as u64, &data[s..e], e == data.len());
            assert!(r.bytes_pending() <= capacity as u64);
            // The reader drains at a random pace between arrivals.
            let want = rng.below(capacity as u64 + 1) as usize;
            while out.len() < data.len() && r.reader_ref().bytes_buffered() > 0 {
                let chunk = r.reader().peek();
                let n = chunk.len().min(want.max(1));
                out.extend_from_slice(&chunk[..n]);
                r.reader().pop(n);
                if rng.chance(50) {
                    break;
                }
            }
        }
        // Between rounds the reader catches up completely.
        while r.reader_ref().bytes_buffered() > 0 {
            let chunk = r.reader().peek().to_vec();
            r.reader().pop(chunk.len());
            out.extend(chunk);
        }
    }
    assert_eq!(out.len(), data.len());
    assert!(out == data, "output differs from input");
    assert_eq!(r.bytes_pending(), 0);
    rounds
}

#[test]
fn loss_by_window_matrix() {
    let mut rng = Rng(0xC0FFEE);
    let data: Vec<u8> = (0..200_000).map(|_| rng.next() as u8).collect();
    let mut table = Vec::new();
    for capacity in [1, 1_460, 4_096, 65_536, 1 << 20] {
        for loss in [0, 2, 10, 30] {
            let net = Network {
                mtu: 1460,
                loss,
                reorder: 10,
                duplicate: 1,
            };
            let len = if capacity == 1 { 3_000 } else { data.len() };
            let rounds = transfer(&data[..len], capacity, &net, capacity as u64 * 31 + loss);
            table.push((capacity, loss, rounds));
        }
    }
    // Sanity of the shape: with no loss and a window as large as the data,
    // one round suffices.
    assert!(table.contains(&(1 << 20, 0, 1)), "{table:?}");
    for (capacity, loss, rounds) in &table {
        eprintln!("capacity {capacity:>8}  loss {loss:>2}%  rounds {rounds}");
    }
}

#[test]
fn tiny_mtus_and_heavy_mangling() {
    let data: Vec<u8> = (0..20_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    for (mtu, seed) in [(1, 1), (3, 2), (17, 3), (100, 4)] {
        for capacity in [7, 64, 1000] {
            let net = Network {
                mtu,
                loss: 20,
                reorder: 50,
                duplicate: 20,
            };
            let len = if mtu == 1 { 2_000 } else { data.len() };
            transfer(&data[..len], capacity, &net, seed * 1000 + capacity as u64);
        }
    }
}
