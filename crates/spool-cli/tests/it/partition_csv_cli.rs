//! `spool partition` on RFC 4180 CSV, end to end: the quoted-key example
//! that used to give wrong groups, the RFC 4180 edge cases through the
//! whole program, `--quote` and `--where` on unquoted values. The errors
//! are `partition_csv_errors.rs`'s.

use crate::support::csv::{assert_ok, files, partition};
use crate::support::Dir;

#[test]
fn quoted_keys_group_by_their_value() {
    let dir = Dir::new("csv-example");
    let input = b"name,city,amount\n\"Smith, John\",Paris,10\n\"Doe, Jane\",\"New York, NY\",20\nBob,\"Paris\",30\n";
    let (output, out) = partition(
        &dir,
        "in",
        input,
        &["--header", "--delimiter", "comma", "--by", "city"],
    );
    assert_ok(&output);
    assert_eq!(
        files(&out),
        [
            (
                "city=New York, NY/part-00000.csv".to_owned(),
                "name,city,amount\n\"Doe, Jane\",\"New York, NY\",20\n".to_owned()
            ),
            (
                "city=Paris/part-00000.csv".to_owned(),
                "name,city,amount\n\"Smith, John\",Paris,10\nBob,\"Paris\",30\n".to_owned()
            ),
        ]
    );
}

/// What a case is called, its input, and the files (path, contents) it
/// must give.
type Case = (
    &'static str,
    &'static [u8],
    &'static [(&'static str, &'static str)],
);

/// RFC 4180's edge cases, each partitioned by its first column: the
/// groups, and every record exactly as it was read.
#[test]
fn rfc_4180_edge_cases_through_the_program() {
    let dir = Dir::new("csv-edges");
    let cases: &[Case] = &[
        (
            "quoted empty field",
            b"\"\",1\n,2\n",
            &[(
                "col1=__HIVE_DEFAULT_PARTITION__/part-00000.csv",
                "\"\",1\n,2\n",
            )],
        ),
        (
            "escaped quotes",
            b"\"a\"\"b\",1\na\"b,2\n",
            &[("col1=a%22b/part-00000.csv", "\"a\"\"b\",1\na\"b,2\n")],
        ),
        (
            "quoted CRLF, LF and delimiter",
            b"\"x\r\ny\",1\r\n\"x\r\ny\",\"2\n3\"\r\n\"p,q\",4\r\n",
            &[
                ("col1=p,q/part-00000.csv", "\"p,q\",4\r\n"),
                (
                    "col1=x%0D%0Ay/part-00000.csv",
                    "\"x\r\ny\",1\r\n\"x\r\ny\",\"2\n3\"\r\n",
                ),
            ],
        ),
        (
            "last record without a line break",
            b"a,1\nb,2",
            &[
                ("col1=a/part-00000.csv", "a,1\n"),
                ("col1=b/part-00000.csv", "b,2\n"),
            ],
        ),
        (
            "byte order mark, blank lines",
            b"\xEF\xBB\xBF\"a\",1\n\nb,2\n\n",
            &[
                ("col1=a/part-00000.csv", "\"a\",1\n"),
                ("col1=b/part-00000.csv", "b,2\n"),
            ],
        ),
        (
            "quote inside an unquoted field, text after a closing quote",
            b"5\"10,1\n\"5\"10,2\n",
            &[
                // csv-core's reading: `5"10` is literal; `"5"10` is 5 then 10.
                ("col1=5%2210/part-00000.csv", "5\"10,1\n"),
                ("col1=510/part-00000.csv", "\"5\"10,2\n"),
            ],
        ),
        (
            "lone CR line ends",
            b"a,1\rb,2\ra,3",
            &[
                ("col1=a/part-00000.csv", "a,1\ra,3\n"),
                ("col1=b/part-00000.csv", "b,2\r"),
            ],
        ),
    ];
    for (i, (what, input, want)) in cases.iter().enumerate() {
        let (output, out) = partition(
            &dir,
            &format!("case{i}"),
            input,
            &["-d", "comma", "--by", "1"],
        );
        assert_ok(&output);
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
            .collect();
        assert_eq!(files(&out), want, "{what}");
    }
}

#[test]
fn a_byte_order_mark_and_quoted_names_in_the_header() {
    let dir = Dir::new("csv-bom-header");
    let input = b"\xEF\xBB\xBF\"id\",\"city\"\r\n1,\"Paris\"\r\n2,Paris\r\n";
    let (output, out) = partition(
        &dir,
        "in",
        input,
        &["--header", "-d", "comma", "--by", "id", "--by", "city"],
    );
    assert_ok(&output);
    let got = files(&out);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(
        got[0],
        (
            "by-city/city=Paris/part-00000.csv".to_owned(),
            "\"id\",\"city\"\r\n1,\"Paris\"\r\n2,Paris\r\n".to_owned()
        )
    );
}

#[test]
fn where_matches_the_unquoted_value() {
    let dir = Dir::new("csv-where");
    let input = b"k,v\na,\"Paris\"\nb,Paris\nc,\"Paris, TX\"\n";
    let (output, out) = partition(
        &dir,
        "in",
        input,
        &[
            "--header",
            "-d",
            "comma",
            "--by",
            "k",
            "--where",
            "v~^Paris$",
        ],
    );
    assert_ok(&output);
    let keys: Vec<String> = files(&out).into_iter().map(|(p, _)| p).collect();
    assert_eq!(keys, ["k=a/part-00000.csv", "k=b/part-00000.csv"]);
}

#[test]
fn quote_none_and_quoted_tabs() {
    let dir = Dir::new("csv-quote-flag");
    // Comma without quoting: the quote is data, the comma splits.
    let (output, out) = partition(
        &dir,
        "none",
        b"\"a,b\",1\n",
        &["-d", "comma", "--quote", "none", "--by", "1"],
    );
    assert_ok(&output);
    assert_eq!(files(&out)[0].0, "col1=%22a/part-00000.csv");
    // Tab is unquoted by default, and quoted on request.
    let input = b"\"a\tb\"\t1\n";
    let (output, out) = partition(&dir, "tab", input, &["--by", "1"]);
    assert_ok(&output);
    assert_eq!(files(&out)[0].0, "col1=%22a/part-00000.tsv");
    let (output, out) = partition(&dir, "tabq", input, &["--quote", "\"", "--by", "1"]);
    assert_ok(&output);
    assert_eq!(files(&out)[0].0, "col1=a%09b/part-00000.tsv");
    // A quote that is also the delimiter is refused before anything runs.
    let (output, out) = partition(
        &dir,
        "same",
        b"a\n",
        &["-d", "comma", "--quote", ",", "--by", "1"],
    );
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot also be the field delimiter"));
    assert!(!out.exists());
}
