//! The reassembler's rules, one test per rule, in the shape of the classic
//! lab's test files (single, capacity, sequential, duplicates, holes,
//! overlapping, window edges, end of stream) plus `u64::MAX` offsets.

use spool::{reassembler::Reassembler, stream::ByteStream};

struct Harness(Reassembler);

impl Harness {
    fn new(capacity: usize) -> Self {
        Self(Reassembler::new(ByteStream::new(capacity)))
    }
    fn insert(&mut self, index: u64, data: &str) -> &mut Self {
        self.0.insert(index, data.as_bytes(), false);
        self
    }
    fn insert_last(&mut self, index: u64, data: &str) -> &mut Self {
        self.0.insert(index, data.as_bytes(), true);
        self
    }
    fn pending(&mut self, n: u64) -> &mut Self {
        assert_eq!(self.0.bytes_pending(), n, "bytes_pending");
        self
    }
    fn pushed(&mut self, n: u64) -> &mut Self {
        assert_eq!(self.0.writer_ref().bytes_pushed(), n, "bytes_pushed");
        self
    }
    /// Pops everything buffered and checks it.
    fn read_all(&mut self, expected: &str) -> &mut Self {
        let mut out = Vec::new();
        while self.0.reader_ref().bytes_buffered() > 0 {
            let chunk = self.0.reader().peek().to_vec();
            self.0.reader().pop(chunk.len());
            out.extend(chunk);
        }
        assert_eq!(String::from_utf8(out).unwrap(), expected, "bytes read");
        self
    }
    fn finished(&mut self, yes: bool) -> &mut Self {
        assert_eq!(self.0.reader_ref().is_finished(), yes, "is_finished");
        self
    }
    fn closed(&mut self, yes: bool) -> &mut Self {
        assert_eq!(self.0.writer_ref().is_closed(), yes, "is_closed");
        self
    }
}

#[test]
fn single_segments() {
    Harness::new(65000)
        .insert(0, "a")
        .pushed(1)
        .pending(0)
        .read_all("a");
    Harness::new(65000)
        .insert_last(0, "a")
        .pushed(1)
        .read_all("a")
        .finished(true);
    Harness::new(65000)
        .insert_last(0, "")
        .pushed(0)
        .finished(true);
    Harness::new(65000)
        .insert(0, "")
        .pushed(0)
        .finished(false)
        .closed(false);
    Harness::new(65000)
        .insert_last(0, "abcd")
        .read_all("abcd")
        .finished(true);
    Harness::new(65000)
        .insert(1, "b")
        .pushed(0)
        .pending(1)
        .insert(0, "a")
        .read_all("ab");
}

#[test]
fn capacity_limits_the_window() {
    let mut t = Harness::new(2);
    t.insert(0, "ab").pushed(2).read_all("ab");
    t.insert(2, "cd").pushed(4).read_all("cd");
    t.insert(4, "ef").pushed(6).read_all("ef");

    let mut t = Harness::new(2);
    t.insert(0, "ab").insert(2, "cd").pushed(2).pending(0);
    t.read_all("ab").insert(2, "cd").read_all("cd");

    // Bytes beyond the window are dropped, not stored.
    let mut t = Harness::new(1);
    t.insert(0, "ab").pushed(1).pending(0).read_all("a");
    t.insert(0, "abc").pushed(2).read_all("b");

    // The window is measured from the first unassembled byte and shrinks as
    // the reader falls behind.
    let mut t = Harness::new(3);
    t.insert(1, "bcd")
        .pending(2)
        .insert(0, "a")
        .pushed(3)
        .pending(0);
    t.insert(3, "d")
        .pushed(3)
        .read_all("abc")
        .insert(3, "d")
        .read_all("d");
}

#[test]
fn sequential_substrings() {
    let mut t = Harness::new(65000);
    let mut all = String::new();
    for i in 0..100u64 {
        let piece = format!("{i:04}");
        t.insert(4 * i, &piece);
        all += &piece;
    }
    t.read_all(&all).pushed(400);
}

#[test]
fn duplicates_are_stored_and_counted_once() {
    let mut t = Harness::new(65000);
    t.insert(0, "abcd")
        .insert(0, "abcd")
        .pushed(4)
        .read_all("abcd");
    t.insert(0, "abcd").insert(2, "cd").pushed(4).read_all("");

    let mut t = Harness::new(65000);
    t.insert(4, "efgh")
        .insert(4, "efgh")
        .pending(4)
        .insert(5, "fg")
        .pending(4);
    t.insert(0, "abcd").pending(0).read_all("abcdefgh");
}

#[test]
fn holes_wait_for_the_missing_bytes() {
    let mut t = Harness::new(65000);
    t.insert(1, "b").pushed(0).pending(1).read_all("");
    t.insert(0, "a").pushed(2).pending(0).read_all("ab");

    let mut t = Harness::new(65000);
    t.insert_last(1, "b")
        .insert(0, "")
        .pushed(0)
        .finished(false);
    t.insert(0, "a").read_all("ab").finished(true);

    let mut t = Harness::new(65000);
    t.insert(0, "a")
        .insert(2, "c")
        .insert(4, "e")
        .pending(2)
        .read_all("a");
    t.insert(1, "b")
        .read_all("bc")
        .pending(1)
        .insert(3, "d")
        .read_all("de");
}

#[test]
fn overlapping_substrings_fill_only_their_gaps() {
    let mut t = Harness::new(1000);
    t.insert(2, "cd").insert(6, "gh").pending(4);
    t.insert(1, "bcdefg").pending(7).insert(0, "a").pending(0);
    t.read_all("abcdefgh");

    let mut t = Harness::new(1000);
    t.insert(0, "abcd")
        .insert(2, "cdef")
        .pushed(6)
        .read_all("abcdef");
    t.insert(10, "kl")
        .insert(8, "ijklmn")
        .pending(6)
        .insert(5, "fgh")
        .read_all("ghijklmn");
}

#[test]
fn window_edges() {
    // A substring that straddles the front of the window keeps its tail.
    let mut t = Harness::new(4);
    t.insert(0, "ab")
        .read_all("ab")
        .insert(1, "bcd")
        .pushed(4)
        .read_all("cd");

    // One that straddles the end keeps its head; the window then moves on
    // as the reader pops and the rest can come again.
    let mut t = Harness::new(4);
    t.insert(2, "cdef")
        .pending(2)
        .insert(0, "ab")
        .pushed(4)
        .pending(0);
    t.read_all("abcd").insert(4, "efgh").read_all("efgh");

    // A substring entirely at or past the window end is dropped.
    let mut t = Harness::new(4);
    t.insert(4, "e").pending(0).insert(5, "f").pending(0);
}

#[test]
fn end_of_stream_rules() {
    // Last substring arrives first and waits for the bytes before it.
    let mut t = Harness::new(65000);
    t.insert_last(2, "c")
        .closed(false)
        .insert(0, "ab")
        .closed(true)
        .read_all("abc");
    t.finished(true);

    // A last substring cut short by the window does not fix the end.
    let mut t = Harness::new(2);
    t.insert_last(0, "abc")
        .pushed(2)
        .closed(false)
        .read_all("ab");
    t.insert(2, "c").pushed(3).closed(false);
    t.insert_last(2, "c")
        .closed(true)
        .read_all("c")
        .finished(true);

    // An empty last substring beyond the received bytes fixes the end.
    let mut t = Harness::new(65000);
    t.insert(0, "ab").insert_last(5, "").closed(false);
    t.insert(2, "cde").closed(true).read_all("abcde");

    // Bytes at or after a known end are dropped, pending ones included.
    let mut t = Harness::new(65000);
    t.insert(6, "gh").pending(2).insert_last(3, "de").pending(2);
    t.insert(0, "abc")
        .pushed(5)
        .pending(0)
        .closed(true)
        .read_all("abcde");

    // A duplicate last substring after the end changes nothing.
    let mut t = Harness::new(65000);
    t.insert_last(0, "ab")
        .read_all("ab")
        .insert_last(0, "ab")
        .finished(true)
        .pushed(2);
}

#[test]
fn offsets_near_u64_max_do_not_overflow() {
    let mut t = Harness::new(16);
    t.insert(u64::MAX, "abc").pending(0).pushed(0);
    t.insert(u64::MAX - 1, "abc").pending(0);
    t.insert_last(u64::MAX - 2, "xyz").pending(0).closed(false);
    t.insert(0, "ok").read_all("ok");
    let mut r = Reassembler::new(ByteStream::new(16));
    r.insert(u64::MAX, &[], true);
    assert_eq!(r.bytes_pending(), 0);
    assert!(!r.writer_ref().is_closed());
}

#[test]
fn zero_capacity() {
    let mut t = Harness::new(0);
    t.insert(0, "a")
        .pending(0)
        .pushed(0)
        .insert_last(0, "")
        .closed(true);
}

#[test]
fn pending_never_double_counts() {
    let mut t = Harness::new(64);
    for (index, data) in [
        (10, "klmn"),
        (12, "mnop"),
        (10, "klmnop"),
        (11, "l"),
        (20, "u"),
    ] {
        t.insert(index, data);
    }
    t.pending(7).insert(0, "abcdefghij").pending(1).pushed(16);
    t.read_all("abcdefghijklmnop");
}

#[test]
fn wrap_around_the_ring() {
    // Capacity 5, many windows: pending bytes land on both sides of the
    // ring's end.
    let text = b"the quick brown fox jumps over the lazy dog";
    let mut r = Reassembler::new(ByteStream::new(5));
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let end = (i + 5).min(text.len());
        for j in (i..end).rev() {
            r.insert(
                j as u64,
                &text[j..(j + 2).min(text.len())],
                j + 2 >= text.len(),
            );
        }
        let chunk = r.reader().peek().to_vec();
        r.reader().pop(chunk.len());
        out.extend(chunk);
        let chunk = r.reader().peek().to_vec();
        r.reader().pop(chunk.len());
        out.extend(chunk);
        i = out.len();
    }
    assert_eq!(out, text);
    assert!(r.reader().is_finished());
}

#[test]
fn pending_bytes_stay_put_when_the_output_is_drained() {
    // The output rewinds to the front of its ring only when nothing is
    // buffered and nothing is pending; bytes stored ahead must not move.
    let mut t = Harness::new(8);
    t.insert(0, "abc").read_all("abc");
    t.insert(5, "fg").pending(2); // empty output, nothing pending: rewinds
    t.insert(3, "de").pending(0).read_all("defg");
    t.insert(9, "j").pending(1).read_all(""); // pending while drained
    t.insert(7, "hi").pending(0).read_all("hij");
    t.insert(10, "klmnopqrstu").pushed(18).read_all("klmnopqr");
}

#[test]
fn spans_touching_many_pending_ranges() {
    let mut t = Harness::new(64);
    for index in [2, 6, 10, 14, 30] {
        t.insert(
            index,
            &"cdefghijklmnopqrstuvwxyzABCDEFGHIJKL"[index as usize - 2..][..2],
        );
    }
    t.pending(10);
    // Covers the first four ranges and the holes between them: only the
    // holes are new.
    t.insert(1, "bcdefghijklmnop").pending(10 + 15 - 8);
    t.insert(0, "a")
        .pushed(16)
        .pending(2)
        .read_all("abcdefghijklmnop");
}

#[test]
fn a_restored_output_is_the_one_written_into() {
    // The lab's tests save a stream and assign it back; the reassembler
    // must go on writing into the stream it was given.
    let mut r = Reassembler::new(ByteStream::new(16));
    r.insert(0, b"ab", false);
    r.insert(6, b"gh", true); // pending, and the end
    let saved = r.output().clone();
    r.reader().pop(2);
    let old = r.replace_output(saved);
    assert_eq!(old.reader_ref().bytes_popped(), 2);
    assert_eq!(r.bytes_pending(), 2, "pending bytes move to the new output");
    r.insert(2, b"cd", false);
    assert_eq!(r.reader().peek(), b"abcd");
    assert_eq!(r.writer_ref().bytes_pushed(), 4);
    r.insert(4, b"ef", false);
    assert!(r.writer_ref().is_closed(), "the known end stays");
    assert_eq!(r.reader().peek(), b"abcdefgh");

    // A smaller stream: what its window cannot hold is dropped.
    let mut r = Reassembler::new(ByteStream::new(16));
    r.insert(2, b"cdefghij", false);
    r.replace_output(ByteStream::new(4));
    assert_eq!(r.bytes_pending(), 2);
    r.insert(0, b"abcdef", false);
    assert_eq!(r.reader().peek(), b"abcd");
}
