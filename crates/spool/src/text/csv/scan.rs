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

use super::classify::{Classes, Needles};
use super::Dialect;

/// What the byte before the next one was, when it was outside quotes
/// (always `Data` inside quotes). The values are one bit each, so the fast
/// path turns them into masks without branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum After {
    /// A line break, or nothing yet: the next byte starts a record (or is
    /// a blank line).
    RecordStart = 1,
    /// A delimiter: the next byte starts a field.
    Delimiter = 2,
    /// The quote that may close a quoted field (or be the first of `""`).
    Close = 4,
    /// Anything else: the next byte continues an unquoted field.
    Data = 0,
}

/// The scanner's state between two bytes, as the byte-at-a-time path
/// reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State {
    /// Inside a quoted field.
    inside: bool,
    /// What the last byte was (meaningful only outside quotes).
    after: After,
}

/// The scanner's state between two bytes; see the module docs. Kept as
/// the bits of [`After`], so the fast path reads and writes it without a
/// branch on data that is as random as the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Carry {
    /// Inside a quoted field.
    pub inside: bool,
    /// An [`After`] as its bit (0 inside quotes).
    after: u8,
}

impl Carry {
    /// The state before the first byte of an input or a block.
    pub const START: Carry = Carry {
        inside: false,
        after: After::RecordStart as u8,
    };

    fn state(self) -> State {
        let after = match self.after {
            1 => After::RecordStart,
            2 => After::Delimiter,
            4 => After::Close,
            _ => After::Data,
        };
        State {
            inside: self.inside,
            after,
        }
    }
}

impl From<State> for Carry {
    fn from(s: State) -> Carry {
        Carry {
            inside: s.inside,
            after: s.after as u8,
        }
    }
}

/// Where records start and end in one chunk; bit `i` stands for byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scanned {
    /// The first byte of each record (blank lines are not records).
    pub starts: u64,
    /// The line break that ends each record (for CRLF, the CR).
    pub ends: u64,
    /// Every LF, inside quotes or not, for line numbers.
    pub lf: u64,
    /// How many: `lf.count_ones()`, counted here where the fast path has
    /// POPCNT at hand (the crate is built for baseline x86-64, where
    /// `count_ones` is a dozen instructions).
    pub lf_count: u32,
    /// The delimiters outside quotes: where fields end, so a record's
    /// field N is found without scanning its bytes again.
    pub fields: u64,
    /// Every quote, inside quotes or not: with `fields`, a field's value
    /// is read off the masks when its only quotes enclose it.
    pub quotes: u64,
    /// The quotes that opened a quoted field (not the second of a `""`).
    /// The caller keeps the last one even when the field closes in the
    /// chunk: a quote at the start of the next chunk can make the closing
    /// one a `""` and reopen that same field.
    pub opens: u64,
}

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

/// The whole chunk scan in one function compiled for AVX2, PCLMULQDQ and
/// POPCNT, so classification, masks and counts run without a call or a
/// spill between them. The prefix-XOR is one carry-less multiply by all
/// ones (bit `i` of the product is the XOR of bits `0..=i`), as in
/// simdjson; under callgrind this path takes 0.8x the instructions of the
/// split one on the benchmark's CSV (docs/perf/csv-split.md).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod x86 {
    use core::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set1_epi8, _mm_set_epi64x,
    };

    use super::{masks, scalar, valid, Carry, Scanned, Splitter};

    /// [`Splitter::scan`] on a CPU with AVX2, PCLMULQDQ and POPCNT.
    #[inline]
    #[target_feature(enable = "avx2,pclmulqdq,popcnt")]
    pub(crate) fn scan(s: &Splitter, carry: &mut Carry, chunk: &[u8; 64], len: usize) -> Scanned {
        let c = valid(s.needles.vectors.classify_avx2(chunk), len);
        // The closure inherits this function's target features, so the
        // call is safe and inlined.
        masks(c, carry, len, |x| prefix_xor(x))
            .unwrap_or_else(|| scalar(s.dialect, carry, &chunk[..len]))
    }

    /// [`super::prefix_xor`] as one carry-less multiply.
    #[inline]
    #[target_feature(enable = "pclmulqdq")]
    fn prefix_xor(x: u64) -> u64 {
        let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
        _mm_cvtsi128_si64(product) as u64
    }

    #[cfg(test)]
    mod tests {
        use proptest::prelude::*;

        proptest! {
            /// The carry-less multiply is the shift-and-XOR ladder.
            #[test]
            fn clmul_prefix_xor_is_the_ladder(x in any::<u64>()) {
                if std::is_x86_feature_detected!("pclmulqdq") {
                    // SAFETY: the CPU has PCLMULQDQ (checked above).
                    let fast = unsafe { super::prefix_xor(x) };
                    prop_assert_eq!(fast, super::super::prefix_xor(x));
                }
            }
        }
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

/// csv-core's reader, one byte at a time (without its output: only where
/// records start and end). The reference the fast path is tested against,
/// and the path for chunks it refuses.
pub(crate) fn scalar(dialect: Dialect, carry: &mut Carry, chunk: &[u8]) -> Scanned {
    let mut out = Scanned::default();
    let mut state = carry.state();
    for (i, &b) in chunk.iter().enumerate() {
        let bit = 1u64 << i;
        if b == b'\n' {
            out.lf |= bit;
        }
        let is_quote = Some(b) == dialect.quote();
        if is_quote {
            out.quotes |= bit;
        }
        if state.inside {
            if is_quote {
                state = State {
                    inside: false,
                    after: After::Close,
                };
            }
            continue;
        }
        if b == b'\n' || b == b'\r' {
            if state.after != After::RecordStart {
                out.ends |= bit;
            }
            state.after = After::RecordStart;
            continue;
        }
        if state.after == After::RecordStart {
            out.starts |= bit;
        }
        state = match state.after {
            After::RecordStart | After::Delimiter if is_quote => {
                out.opens |= bit;
                State {
                    inside: true,
                    after: After::Data,
                }
            }
            // The second quote of `""`: a literal quote, still inside.
            After::Close if is_quote => State {
                inside: true,
                after: After::Data,
            },
            _ if b == dialect.delimiter() => {
                out.fields |= bit;
                State {
                    inside: false,
                    after: After::Delimiter,
                }
            }
            // A quote inside an unquoted field, or text after a closing
            // quote: data, as in csv-core.
            _ => State {
                inside: false,
                after: After::Data,
            },
        };
    }
    *carry = state.into();
    out.lf_count = out.lf.count_ones();
    out
}

#[cfg(test)]
pub(crate) mod tests {
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
