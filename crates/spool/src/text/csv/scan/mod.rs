//! The splitter's state machine, run 64 bytes at a time on bit masks, with
//! a byte-at-a-time fallback for the chunks where the masks cannot decide.
//!
//! # The fast path
//!
//! A chunk is classified into four masks (quotes, delimiters, LF, CR;
//! [`classify`]). The prefix-XOR of the quote mask, seeded with "inside
//! quotes" from the previous chunk, is set on every byte inside a quoted
//! field: each quote flips the state, so a doubled `""` flips it twice and
//! leaves the bytes around it inside. Terminators outside quotes end
//! records; the first of a run ends one, the rest are blank lines.
//!
//! That reading is exact only while quotes open quoted fields at the start
//! of a field and close them before a delimiter, a line break or a doubled
//! quote — which is all a well-formed RFC 4180 file has. Two masks check
//! it: every opening quote must follow a field start (a delimiter, a line
//! break, the start of the record, or a closing quote, which makes the
//! pair a `""`), and every closing quote must be followed by a delimiter,
//! a line break or another quote. A chunk that fails (a quote in the middle
//! of an unquoted field, text after a closing quote) is run through
//! [`scalar`] instead, which is csv-core's state machine byte by byte, and
//! the masks take over again at the next chunk from the state it leaves.
//! So stray quotes cost speed, never correctness, and only in their chunk.
//!
//! # The state carried between chunks
//!
//! [`Carry`]: whether the last byte was inside a quoted field, and if not,
//! what it was (a line break or nothing yet, a delimiter, a closing quote,
//! other data). These are exactly the states of csv-core's reader that can
//! follow a byte, so the state at any byte is the same whichever path
//! scanned the bytes before it.
//!
//! # Where the parts are
//!
//! This file holds the splitter and the fast path; the states and the
//! byte-at-a-time path are `state.rs`'s, the fast path compiled for AVX2
//! as one function `x86.rs`'s.

use super::classify::{Classes, Needles};
use super::Dialect;

pub(crate) use state::{scalar, Carry, Scanned};

mod state;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod x86;

/// The dialect, with its bytes ready for [`Needles::classify`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Splitter {
    dialect: Dialect,
    needles: Needles,
}

impl Splitter {
    pub(crate) fn new(dialect: Dialect) -> Self {
        Splitter {
            dialect,
            needles: Needles::new(dialect.delimiter(), dialect.quote()),
        }
    }

    /// Without AVX2 even if the CPU has it: for the tests of the SSE2
    /// path.
    #[cfg(all(test, target_arch = "x86_64"))]
    pub(crate) fn without_avx2(mut self) -> Self {
        self.needles.vectors = self.needles.vectors.without_avx2();
        self
    }

    /// The dialect split.
    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Scans the first `len` bytes of `chunk` (1..=64) from `carry`,
    /// leaving in `carry` the state after them.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn scan(&self, carry: &mut Carry, chunk: &[u8; 64], len: usize) -> Scanned {
        debug_assert!((1..=64).contains(&len));
        #[cfg(target_arch = "x86_64")]
        if self.needles.vectors.fused() {
            // SAFETY: `fused` is set only when the CPU has AVX2, PCLMULQDQ
            // and POPCNT.
            return unsafe { x86::scan(self, carry, chunk, len) };
        }
        self.scan_unfused(carry, chunk, len)
    }

    /// Whether [`x86::scan`] may be called: the CPU has AVX2, PCLMULQDQ
    /// and POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn fused(&self) -> bool {
        self.needles.vectors.fused()
    }

    /// [`Splitter::scan`] without the fused AVX2 path: SSE2 (or portable)
    /// classification and the shift-and-XOR prefix.
    #[inline(always)]
    pub(crate) fn scan_unfused(&self, carry: &mut Carry, chunk: &[u8; 64], len: usize) -> Scanned {
        let c = valid(self.needles.classify(chunk), len);
        masks(c, carry, len, prefix_xor)
            .unwrap_or_else(|| scalar(self.dialect, carry, &chunk[..len]))
    }
}

/// The classes of the first `len` bytes only.
#[inline(always)]
fn valid(c: Classes, len: usize) -> Classes {
    let valid = u64::MAX >> (64 - len);
    Classes {
        quote: c.quote & valid,
        delimiter: c.delimiter & valid,
        lf: c.lf & valid,
        cr: c.cr & valid,
    }
}

/// Each bit `i` set to the XOR of bits `0..=i`.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// The fast path; `None` when a quote is misplaced (see the module docs).
#[inline(always)]
fn masks(
    c: Classes,
    carry: &mut Carry,
    len: usize,
    prefix_xor: impl Fn(u64) -> u64,
) -> Option<Scanned> {
    let after = carry.after as u64;
    let (prev_start, prev_delimiter, prev_close) = (after & 1, (after >> 1) & 1, (after >> 2) & 1);

    let breaks = c.lf | c.cr;
    let inside = prefix_xor(c.quote) ^ if carry.inside { u64::MAX } else { 0 };
    let open = c.quote & inside;
    let close = c.quote & !inside;
    let may_open = ((c.delimiter | breaks | close) << 1) | prev_start | prev_delimiter | prev_close;
    let after_close = (close << 1) | prev_close;
    let valid = u64::MAX >> (64 - len);
    if open & !may_open != 0 || after_close & !(c.delimiter | breaks | c.quote) & valid != 0 {
        return None;
    }

    let terminators = breaks & !inside;
    let after_break = (terminators << 1) | prev_start;
    let last = len - 1;
    let top = |mask: u64| (mask >> last) & 1;
    let true_open = open & !after_close;
    let fields = c.delimiter & !inside;
    // One class per byte, so at most one of these is set; none inside
    // quotes.
    let after = top(terminators) | top(fields) << 1 | top(close) << 2;
    *carry = Carry {
        inside: top(inside) == 1,
        after: after as u8,
    };
    Some(Scanned {
        starts: valid & !breaks & after_break,
        ends: terminators & !after_break,
        lf: c.lf,
        lf_count: c.lf.count_ones(),
        fields,
        quotes: c.quote,
        opens: true_open,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::state::{After, State};
    use super::*;
    use proptest::prelude::*;

    fn carries() -> impl Strategy<Value = Carry> {
        prop_oneof![
            Just(Carry::from(State {
                inside: true,
                after: After::Data
            })),
            Just(Carry::START),
            Just(Carry::from(State {
                inside: false,
                after: After::Delimiter
            })),
            Just(Carry::from(State {
                inside: false,
                after: After::Close
            })),
            Just(Carry::from(State {
                inside: false,
                after: After::Data
            })),
        ]
    }

    /// Bytes that matter to the splitter, and `data` parts in 16 of plain
    /// data (more makes longer fields and records).
    pub(crate) fn csv_bytes(data: u32) -> impl Strategy<Value = u8> {
        prop_oneof![4 => Just(b'"'), 4 => Just(b','), 2 => Just(b'\n'), 2 => Just(b'\r'), data => Just(b'a')]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        /// The masks give what csv-core's state machine gives, or refuse.
        #[test]
        fn masks_agree_with_the_state_machine(
            bytes in proptest::collection::vec(csv_bytes(4), 1..=64),
            carry in carries(),
            quoting in any::<bool>(),
        ) {
            let dialect = Dialect::new(b',', quoting.then_some(b'"')).unwrap();
            let mut chunk = [0u8; 64];
            chunk[..bytes.len()].copy_from_slice(&bytes);
            let (mut fast, mut slow) = (carry, carry);
            let got = Splitter::new(dialect).scan(&mut fast, &chunk, bytes.len());
            let want = scalar(dialect, &mut slow, &bytes);
            prop_assert_eq!(got, want);
            prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    fn well_formed_chunks_take_the_fast_path() {
        let text = b"a,\"b,\"\"c\"\"\r\nd\",e\n\n\"\",f\r\n";
        let mut chunk = [0u8; 64];
        chunk[..text.len()].copy_from_slice(text);
        let c = Needles::new(b',', Some(b'"')).classify(&chunk);
        let mut carry = Carry::START;
        assert!(masks(c, &mut carry, text.len(), prefix_xor).is_some());
        let mut stray = chunk;
        stray[0] = b'x';
        stray[1] = b'"'; // `x"`: a quote inside an unquoted field
        let c = Needles::new(b',', Some(b'"')).classify(&stray);
        let mut carry = Carry::START;
        assert!(masks(c, &mut carry, text.len(), prefix_xor).is_none());
    }
}
