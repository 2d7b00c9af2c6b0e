//! RFC 4180 edge cases, one line each, with the answer written out (and
//! checked against the `csv` crate as well), plus cuts at block edges.

use spool::text::csv::{Dialect, InvalidDialect, RecordCutter, Records, UnterminatedQuote};
use spool::text::Position;

use crate::support::csv_reference;
use csv_reference::csv_crate;

type Rows = Vec<Vec<&'static [u8]>>;

fn values(input: &[u8], dialect: Dialect) -> Result<Vec<Vec<Vec<u8>>>, UnterminatedQuote> {
    let body = spool::text::csv::strip_bom(input);
    Records::new(body, dialect)
        .map(|r| r.map(|r| r.fields().map(|f| f.value().into_owned()).collect()))
        .collect()
}

#[test]
fn rfc_4180_table() {
    let cases: &[(&str, &[u8], Rows)] = &[
        ("quoted empty field", b"\"\",a\n", vec![vec![b"", b"a"]]),
        (
            "a lone quoted empty field is a record",
            b"\"\"\n",
            vec![vec![b""]],
        ),
        (
            "escaped quotes",
            b"\"a\"\"b\",\"\"\"\"\n",
            vec![vec![b"a\"b", b"\""]],
        ),
        (
            "delimiter inside quotes",
            b"\"Smith, John\",Paris\n",
            vec![vec![b"Smith, John", b"Paris"]],
        ),
        (
            "LF and CRLF inside quotes",
            b"\"a\nb\r\nc\",d\r\n",
            vec![vec![b"a\nb\r\nc", b"d"]],
        ),
        (
            "last record without a line break",
            b"a,b\nc,d",
            vec![vec![b"a", b"b"], vec![b"c", b"d"]],
        ),
        ("empty fields", b",,\n", vec![vec![b"", b"", b""]]),
        (
            "blank lines are not records",
            b"\n\na\r\n\r\n\nb\n\n",
            vec![vec![b"a"], vec![b"b"]],
        ),
        (
            "CR-only line endings",
            b"a,b\rc,d\r",
            vec![vec![b"a", b"b"], vec![b"c", b"d"]],
        ),
        (
            "mixed line endings",
            b"a\rb\r\nc\nd",
            vec![vec![b"a"], vec![b"b"], vec![b"c"], vec![b"d"]],
        ),
        (
            "byte order mark before a quoted field",
            b"\xEF\xBB\xBF\"id\",x\n",
            vec![vec![b"id", b"x"]],
        ),
        (
            "a quote inside an unquoted field is data",
            b"5\"10,x\n",
            vec![vec![b"5\"10", b"x"]],
        ),
        (
            "text after a closing quote is appended",
            b"\"a\"b\"c,x\n",
            vec![vec![b"ab\"c", b"x"]],
        ),
        (
            "a space before a quote makes it data",
            b" \"a,b\"\n",
            vec![vec![b" \"a", b"b\""]],
        ),
        (
            "whitespace-only lines are records",
            b" \n",
            vec![vec![b" "]],
        ),
        ("empty input", b"", vec![]),
    ];
    for (name, input, want) in cases {
        let want: Vec<Vec<Vec<u8>>> = want
            .iter()
            .map(|r| r.iter().map(|f| f.to_vec()).collect())
            .collect();
        assert_eq!(values(input, Dialect::CSV).unwrap(), want, "{name}");
        assert_eq!(
            csv_crate(input, Dialect::CSV),
            want,
            "{name}: the csv crate"
        );
    }
}

#[test]
fn tsv_has_no_quoting() {
    let input = b"a\t\"b\tc\"\n";
    let want = vec![vec![b"a".to_vec(), b"\"b".to_vec(), b"c\"".to_vec()]];
    assert_eq!(values(input, Dialect::TSV).unwrap(), want);
    assert_eq!(csv_crate(input, Dialect::TSV), want);
    let quoted_tsv = Dialect::new(b'\t', Some(b'"')).unwrap();
    assert_eq!(
        values(input, quoted_tsv).unwrap(),
        vec![vec![b"a".to_vec(), b"b\tc".to_vec()]]
    );
}

#[test]
fn unterminated_quote_names_the_opening_quote() {
    let input = b"a,b\nc,\"d\ne,f\ng\n";
    let mut records = Records::new(input, Dialect::CSV).starting_at(Position {
        offset: 100,
        line: 1,
    });
    assert_eq!(records.next().unwrap().unwrap().raw(), b"a,b\n");
    let err = records.next().unwrap().unwrap_err();
    assert_eq!(
        err,
        UnterminatedQuote {
            offset: 106,
            line: 2
        }
    );
    assert!(records.next().is_none(), "nothing after the error");

    // The cutter names the same quote, even when it opened many reads ago.
    let mut cutter = RecordCutter::new(Dialect::CSV);
    let mut last = None;
    for piece in input.chunks(3) {
        last = cutter.scan(piece).or(last);
        assert!(cutter.open_quote().is_none() || cutter.scanned().offset > 6);
    }
    assert_eq!(last, Some(Position { offset: 4, line: 2 }));
    assert_eq!(cutter.open_quote(), Some(Position { offset: 6, line: 2 }));
    assert_eq!(
        cutter.finish(),
        Err(UnterminatedQuote { offset: 6, line: 2 })
    );
}

#[test]
fn doubled_quote_split_by_a_block_edge_reopens_the_same_field() {
    // `"x""y` never closes: the `""` is split across two reads, and the
    // error still names the first quote.
    let mut cutter = RecordCutter::new(Dialect::CSV);
    assert_eq!(cutter.scan(b"a,\"x\""), None);
    assert_eq!(cutter.open_quote(), None, "closed, for now");
    assert_eq!(cutter.scan(b"\"y\n"), None);
    assert_eq!(
        cutter.finish(),
        Err(UnterminatedQuote { offset: 2, line: 1 })
    );
    let input = [b'a'; 64]
        .iter()
        .chain(b",\"x\"\"y\n")
        .copied()
        .collect::<Vec<_>>();
    let err = Records::new(&input[1..], Dialect::CSV)
        .starting_at(Position { offset: 1, line: 1 })
        .last()
        .unwrap();
    assert_eq!(
        err,
        Err(UnterminatedQuote {
            offset: 65,
            line: 1
        })
    );
}

#[test]
fn quoted_line_break_at_a_block_edge_is_not_a_cut() {
    let mut cutter = RecordCutter::new(Dialect::CSV);
    assert_eq!(cutter.scan(b"a,\"x"), None);
    assert_eq!(cutter.scan(b"\n"), None, "the LF is inside quotes");
    assert_eq!(
        cutter.scan(b"y\"\nb"),
        Some(Position { offset: 8, line: 3 })
    );
    assert_eq!(cutter.finish(), Ok(()));
}

#[test]
fn crlf_split_by_a_block_edge_stays_whole() {
    let mut cutter = RecordCutter::new(Dialect::CSV);
    assert_eq!(
        cutter.scan(b"a\nb\r"),
        Some(Position { offset: 2, line: 2 })
    );
    assert_eq!(cutter.scan(b"\nc"), Some(Position { offset: 5, line: 3 }));
    // A lone CR is confirmed by the next byte.
    let mut cutter = RecordCutter::new(Dialect::CSV);
    assert_eq!(cutter.scan(b"a\r"), None);
    assert_eq!(cutter.scan(b""), None);
    assert_eq!(cutter.scan(b"b"), Some(Position { offset: 2, line: 1 }));
}

#[test]
fn byte_order_mark_split_across_reads() {
    let mut cutter = RecordCutter::new(Dialect::CSV);
    assert_eq!(cutter.scan(b"\xEF"), None);
    assert_eq!(cutter.scan(b"\xBB"), None);
    // With the mark skipped, the quote opens a field and the LF is data.
    assert_eq!(
        cutter.scan(b"\xBF\"a\nb\"\n"),
        Some(Position { offset: 9, line: 3 })
    );
    // Not a mark after all: the bytes were data, and the quote is too.
    let mut cutter = RecordCutter::new(Dialect::CSV);
    assert_eq!(cutter.scan(b"\xEF\xBB"), None);
    assert_eq!(
        cutter.scan(b"x\"a\nb\n"),
        Some(Position { offset: 8, line: 3 })
    );
    assert_eq!(cutter.open_quote(), None);
}

#[test]
fn long_quoted_field_over_many_chunks() {
    // A quoted field of 10,000 bytes with line breaks and doubled quotes
    // inside, read 100 bytes at a time: one record, one cut.
    let mut field = Vec::new();
    for i in 0..2000 {
        field.extend_from_slice(if i % 7 == 0 { b"\"\"\r\n," } else { b"abcd," });
    }
    let mut input = b"k,\"".to_vec();
    input.extend_from_slice(&field);
    input.extend_from_slice(b"\"\nnext\n");
    let mut cutter = RecordCutter::new(Dialect::CSV);
    let cuts: Vec<_> = input.chunks(100).filter_map(|p| cutter.scan(p)).collect();
    let first_end = (input.len() - 5) as u64;
    // No cut inside the field; the last read holds both record ends.
    assert_eq!(
        cuts.iter().map(|p| p.offset).collect::<Vec<_>>(),
        [input.len() as u64]
    );
    let mut cutter = RecordCutter::new(Dialect::CSV);
    let cuts: Vec<_> = input
        .chunks(input.len() - 3)
        .filter_map(|p| cutter.scan(p))
        .collect();
    assert_eq!(
        cuts.iter().map(|p| p.offset).collect::<Vec<_>>(),
        [first_end, input.len() as u64]
    );
    let record = Records::new(&input, Dialect::CSV).next().unwrap().unwrap();
    assert_eq!(record.raw().len() as u64, first_end);
    assert_eq!(record.lines(), 1 + 286);
    let value = record.field(1).unwrap().value();
    assert_eq!(value.len(), field.len() - 286);
    assert_eq!(csv_crate(&input, Dialect::CSV)[0][1], &value[..]);
}

#[test]
fn invalid_dialects_are_refused() {
    assert_eq!(
        Dialect::new(b'\n', None),
        Err(InvalidDialect::LineBreak('\n'))
    );
    assert_eq!(
        Dialect::new(b',', Some(b'\r')),
        Err(InvalidDialect::LineBreak('\r'))
    );
    assert_eq!(
        Dialect::new(b'"', Some(b'"')),
        Err(InvalidDialect::QuoteIsDelimiter('"'))
    );
    assert_eq!(Dialect::new(b';', None).unwrap().quote(), None);
}
