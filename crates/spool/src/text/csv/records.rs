//! The records of a block of CSV as borrowed views.

use alloc::boxed::Box;

use super::record::{low_bits, Record};

use super::index::RecordIndex;
use super::scan::Splitter;
use super::{Dialect, UnterminatedQuote};
use crate::text::Position;

/// Iterator over the records of a block of whole records.
///
/// Blank lines (a line break right after another, or at the start) are not
/// records, as in the `csv` crate; they still count for line numbers. An
/// input's last record may lack its line break.
///
/// Yields an [`UnterminatedQuote`] (and then nothing) if the block ends
/// inside a quoted field; a block cut by a [`RecordCutter`] never does,
/// except at the end of the input.
///
/// [`RecordCutter`]: super::RecordCutter
///
/// # Examples
///
/// ```
/// use spool::text::csv::{Dialect, Records};
/// let block = b"a,\"b\nc\"\n\nd,e";
/// let got: Vec<_> = Records::new(block, Dialect::CSV)
///     .map(|r| r.map(|r| (r.raw(), r.line(), r.offset(), r.lines())))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(got, [(&b"a,\"b\nc\"\n"[..], 1, 0, 2), (b"d,e", 4, 9, 1)]);
/// # Ok::<(), spool::text::csv::UnterminatedQuote>(())
/// ```
#[derive(Clone, Debug)]
pub struct Records<'a> {
    data: &'a [u8],
    splitter: Splitter,
    /// Offset of `data` in the input.
    offset: u64,
    /// Stage one's output: the records found and not yet handed out.
    /// Boxed: 5 KiB, and a `Records` is moved around by value.
    index: Box<RecordIndex>,
    done: bool,
}

impl<'a> Records<'a> {
    /// The records of `data`, which starts at a record boundary, numbered
    /// as the start of an input ([`Position::START`]: line 1, offset 0).
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::{Dialect, Records};
    /// assert_eq!(Records::new(b"a,b\n\"c\nd\"\n", Dialect::CSV).count(), 2);
    /// ```
    #[must_use]
    pub fn new(data: &'a [u8], dialect: Dialect) -> Self {
        Self::with_splitter(data, Splitter::new(dialect))
    }

    pub(crate) fn with_splitter(data: &'a [u8], splitter: Splitter) -> Self {
        Records {
            data,
            splitter,
            offset: Position::START.offset,
            index: Box::new(RecordIndex::new(Position::START.line)),
            done: false,
        }
    }

    /// Numbers the records as if `data` began at `start` in the input: for
    /// a block read from the middle of an input. Set it before iterating.
    ///
    /// # Examples
    ///
    /// ```
    /// use spool::text::csv::{Dialect, Records};
    /// use spool::text::Position;
    /// let second = Records::new(b"a\n\"b\nc\"\nd\n", Dialect::CSV)
    ///     .starting_at(Position { offset: 40, line: 3 })
    ///     .nth(2)
    ///     .unwrap()?;
    /// assert_eq!((second.line(), second.offset()), (6, 48));
    /// # Ok::<(), spool::text::csv::UnterminatedQuote>(())
    /// ```
    #[must_use]
    pub fn starting_at(mut self, start: Position) -> Self {
        debug_assert!(
            self.index.base == 0 && !self.done,
            "starting_at after iterating"
        );
        self.offset = start.offset;
        self.index.line = start.line;
        self
    }

    /// Entry `i` of the index as a record ending before `end`.
    #[inline]
    fn record(&self, i: usize, end: usize) -> Record<'a> {
        let ix = &*self.index;
        let start = ix.starts[i];
        Record {
            raw: &self.data[start..end],
            line: ix.lines[i],
            lf_before: ix.lf_before[i],
            offset: self.offset + start as u64,
            dialect: self.splitter.dialect(),
            delims: ix.delims[i],
            quotes: ix.quotes[i],
        }
    }

    /// Stage one, out of line: the iterator's loop stays small.
    #[inline(never)]
    fn refill(&mut self) {
        self.index.refill(self.data, &self.splitter);
    }

    /// At the end of the data: the record left open, if any.
    #[cold]
    fn last(&mut self) -> Option<Result<Record<'a>, UnterminatedQuote>> {
        self.done = true;
        let ix = &*self.index;
        if !ix.open_record() {
            return None;
        }
        if ix.carry.inside {
            let (base, line, opens, lf) = ix.open;
            let bit = 63 - opens.leading_zeros();
            return Some(Err(UnterminatedQuote {
                offset: self.offset + (base + bit as usize) as u64,
                line: line + u64::from((lf & low_bits(bit as usize)).count_ones()),
            }));
        }
        Some(Ok(self.record(ix.n_ends, self.data.len())))
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, UnterminatedQuote>;

    // Always inlined: a record returned through memory is written field
    // by field and read back whole, which stalls on store forwarding.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let i = self.index.ends_taken;
            if i < self.index.n_ends {
                self.index.ends_taken = i + 1;
                return Some(Ok(self.record(i, self.index.ends[i])));
            }
            if self.index.base >= self.data.len() {
                if self.done {
                    return None;
                }
                return self.last();
            }
            self.refill();
        }
    }
}

impl core::iter::FusedIterator for Records<'_> {}

#[cfg(test)]
mod tests {
    use super::super::scan::tests::csv_bytes;
    use super::*;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    /// A record's raw bytes, line, offset, and every field found by
    /// index (raw and value).
    type Seen = (Vec<u8>, u64, u64, Vec<(Vec<u8>, Vec<u8>)>);

    /// Everything a caller can see of the records of `data`, or the error.
    fn seen(records: Records<'_>) -> Vec<Result<Seen, UnterminatedQuote>> {
        records
            .map(|r| {
                r.map(|r| {
                    let fields = (0..)
                        .map_while(|n| r.field(n))
                        .map(|f| (f.raw().to_vec(), f.value().into_owned()))
                        .collect();
                    (r.raw().to_vec(), r.line(), r.offset(), fields)
                })
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// The SSE2 path (the one every CPU without AVX2 takes) finds the
        /// records and fields the fused AVX2 path does, which the oracle
        /// tests check against the `csv` crate. Inputs run to a few KiB so
        /// that records span refills of the index, and fields lie past a
        /// record's first 64 bytes.
        #[test]
        fn the_sse2_path_splits_as_the_fused_one(
            bytes in proptest::collection::vec(csv_bytes(40), 0..2000),
            quoting in any::<bool>(),
        ) {
            let dialect = Dialect::new(b',', quoting.then_some(b'"')).unwrap();
            let fused = Records::new(&bytes, dialect).starting_at(Position { offset: 7, line: 1 });
            #[cfg(target_arch = "x86_64")]
            let unfused = Records::with_splitter(&bytes, Splitter::new(dialect).without_avx2())
                .starting_at(Position { offset: 7, line: 1 });
            #[cfg(not(target_arch = "x86_64"))]
            let unfused = Records::new(&bytes, dialect).starting_at(Position { offset: 7, line: 1 });
            prop_assert_eq!(seen(fused), seen(unfused));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// `for_each_value` gives every record's field values as
        /// `fields()` and `value()` do, for records shorter and longer
        /// than the masks' 64 bytes, quoted or not.
        #[test]
        fn for_each_value_is_fields_then_value(
            // From mostly delimiters to mostly data: records of a few
            // bytes to a few hundred.
            bytes in (4u32..400).prop_flat_map(|data| proptest::collection::vec(csv_bytes(data), 0..600)),
            quoting in any::<bool>(),
        ) {
            let dialect = Dialect::new(b',', quoting.then_some(b'"')).unwrap();
            for record in Records::new(&bytes, dialect).map_while(Result::ok) {
                let mut got = Vec::new();
                record.for_each_value(|i, v| got.push((i, v.into_owned())));
                let want: Vec<_> =
                    record.fields().map(|f| f.value().into_owned()).enumerate().collect();
                prop_assert_eq!(got, want);
            }
        }
    }

    /// A field that starts within the masks and ends past them, with a
    /// doubled quote on each side of byte 64, and fields after it.
    #[test]
    fn for_each_value_past_the_masks() {
        let long = format!("{}\"\"{}", "x".repeat(50), "y".repeat(30));
        let data = format!("a,\"q,{long}\",,z,\"w\"\n");
        let record = Records::new(data.as_bytes(), Dialect::CSV)
            .next()
            .unwrap()
            .unwrap();
        let mut got = Vec::new();
        record.for_each_value(|i, v| got.push((i, String::from_utf8(v.into_owned()).unwrap())));
        let inner = format!("q,{}\"{}", "x".repeat(50), "y".repeat(30));
        let want = [(0, "a"), (1, inner.as_str()), (2, ""), (3, "z"), (4, "w")];
        assert_eq!(got, want.map(|(i, v)| (i, v.to_owned())));
    }

    /// More records than the index holds, each spanning chunks, with a
    /// field past its first 64 bytes: the delimiters of a record whose
    /// start was scanned in one refill are completed in the next.
    #[test]
    fn records_span_refills_of_the_index() {
        let mut data = Vec::new();
        for i in 0..1000 {
            let pad = "x".repeat(i % 97);
            data.extend_from_slice(alloc::format!("{pad},\"q,{i}\",{i}\r\n").as_bytes());
        }
        let mut n = 0;
        for (i, record) in Records::new(&data, Dialect::CSV).enumerate() {
            let record = record.unwrap();
            assert_eq!(record.line(), i as u64 + 1);
            assert_eq!(record.field(0).unwrap().raw().len(), i % 97);
            assert_eq!(
                record.field(1).unwrap().value(),
                alloc::format!("q,{i}").as_bytes()
            );
            assert_eq!(
                record.field(2).unwrap().raw(),
                alloc::format!("{i}").as_bytes()
            );
            assert!(record.field(3).is_none());
            n += 1;
        }
        assert_eq!(n, 1000);
    }
}
