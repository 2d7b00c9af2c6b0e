//! The splitter's state between two bytes, and csv-core's state machine
//! that moves it one byte at a time.
//!
//! Both paths of the scan (the bit masks in `mod.rs` and, for chunks the
//! masks cannot decide, [`scalar`] here) leave the same [`Carry`] after a
//! chunk and report the same [`Scanned`] masks, so the state at any byte
//! is the same whichever path scanned the bytes before it. [`scalar`] is
//! also the reference the fast path is tested against. Kept apart from the
//! fast path because it is the definition: what a state means and how a
//! byte changes it, in the words of csv-core's reader.

use super::super::Dialect;

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
pub(super) struct State {
    /// Inside a quoted field.
    pub(super) inside: bool,
    /// What the last byte was (meaningful only outside quotes).
    pub(super) after: After,
}

/// The scanner's state between two bytes; see the module docs. Kept as
/// the bits of [`After`], so the fast path reads and writes it without a
/// branch on data that is as random as the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Carry {
    /// Inside a quoted field.
    pub inside: bool,
    /// An [`After`] as its bit (0 inside quotes).
    pub(super) after: u8,
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
