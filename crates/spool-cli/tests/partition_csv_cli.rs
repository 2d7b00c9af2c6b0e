//! `spool partition` on RFC 4180 CSV, end to end: the quoted-key example
//! that used to give wrong groups, the RFC 4180 edge cases through the
//! whole program, `--quote`, `--where` on unquoted values, and the errors.

use std::path::Path;
use std::process::{Command, Output};

mod support;
use support::Dir;

fn spool() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spool"))
}

/// Runs `spool partition ARGS -o OUT INPUT -q` on `input`; returns the
/// output and the output directory.
fn partition(dir: &Dir, name: &str, input: &[u8], args: &[&str]) -> (Output, std::path::PathBuf) {
    let path = dir.0.join(format!("{name}.csv"));
    std::fs::write(&path, input).unwrap();
    let out = dir.0.join(format!("out-{name}"));
    let output = spool()
        .arg("partition")
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg(&path)
        .arg("-q")
        .output()
        .unwrap();
    (output, out)
}

/// Every output file (relative path, contents), sorted, manifest aside.
fn files(out: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut stack = vec![out.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().unwrap() != "_partitions.tsv" {
                let rel = path.strip_prefix(out).unwrap().display().to_string();
                found.push((
                    rel,
                    String::from_utf8(std::fs::read(&path).unwrap()).unwrap(),
                ));
            }
        }
    }
    found.sort();
    found
}

fn assert_ok(output: &Output) {
    assert!(
        output.status.success(),
        "status {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

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

#[test]
fn an_unterminated_quote_names_its_opening_quote() {
    let dir = Dir::new("csv-unterminated");
    let input = b"id,v\n1,\"a\nb\"\n2,\"open\n3,x\n";
    let (output, out) = partition(
        &dir,
        "in",
        input,
        &["--header", "-d", "comma", "--by", "id"],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("in.csv:4: byte offset 15: unterminated quote"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!out.exists(), "nothing half-written is left");
    // With --skip-invalid the open record (to the end of the input) is
    // counted and skipped; the rest is written.
    let (output, out) = partition(
        &dir,
        "skip",
        input,
        &["--header", "-d", "comma", "--by", "id", "--skip-invalid"],
    );
    assert_ok(&output);
    assert!(String::from_utf8_lossy(&output.stderr).contains("1 invalid skipped"));
    assert_eq!(
        files(&out),
        [(
            "id=1/part-00000.csv".to_owned(),
            "id,v\n1,\"a\nb\"\n".to_owned()
        )]
    );
}

#[test]
fn a_quote_open_past_the_record_limit_is_named_early() {
    let dir = Dir::new("csv-open-long");
    // An open quote holding more than the 64 MiB a record may have: the
    // reader stops there, naming the quote, without reading on.
    let mut input = b"id,v\n1,\"".to_vec();
    input.extend(b"x,y\n".repeat(17 << 20));
    let path = dir.0.join("long.csv");
    std::fs::write(&path, &input).unwrap();
    let output = spool()
        .args([
            "partition",
            "--header",
            "-d",
            "comma",
            "--by",
            "id",
            "-q",
            "-o",
        ])
        .arg(dir.0.join("out"))
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("line 2, byte offset 7: unterminated quote"),
        "{stderr}"
    );
}

/// A value that does not parse is named alike whoever finds it: from a
/// file or a gzip file the writers check and the run reads the input
/// again, from standard input the router checks; the bad record sits in
/// a group that spills (500 keys in a small budget) after a good first
/// half, and a record with too few fields comes after it.
#[test]
fn a_bad_value_is_named_alike_from_a_file_and_from_standard_input() {
    use std::io::Write;
    let dir = Dir::new("csv-misfit");
    let mut text = String::from("key,n,s\n");
    for i in 0..40_000 {
        let n = if i == 30_000 {
            "3O".to_owned()
        } else {
            i.to_string()
        };
        text.push_str(&format!("k{},{n},\"s, {i}\"\n", i % 500));
    }
    text.push_str("short\n");
    let path = dir.0.join("in.csv");
    std::fs::write(&path, &text).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    std::fs::write(dir.0.join("in.csv.gz"), gz.finish().unwrap()).unwrap();
    let args = [
        "partition",
        "--header",
        "-d",
        "comma",
        "--by",
        "key",
        "--format",
        "parquet",
        "--schema",
        "n:int64",
        "--memory",
        "80M",
        "-q",
        "-o",
    ];
    let run = |input: &str| {
        let out = dir
            .0
            .join(format!("out-{}", input.replace(['.', '-'], "_")));
        let mut child = spool()
            .args(args)
            .arg(&out)
            .arg(if input == "-" {
                Path::new("-").to_owned()
            } else {
                dir.0.join(input)
            })
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        if input == "-" {
            // A run that stops early closes its end: a failed write is fine.
            let _ = stdin.write_all(text.as_bytes());
        }
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{input}");
        assert!(!out.exists(), "{input}: nothing is left behind");
        String::from_utf8(output.stderr).unwrap()
    };
    let want = ":30002: byte offset 631188: column 2 (n): \"3O\" is not a valid int64 value";
    let from_file = run("in.csv");
    assert!(from_file.contains(&format!("in.csv{want}")), "{from_file}");
    assert_eq!(from_file.lines().count(), 1, "printed once: {from_file}");
    let from_gzip = run("in.csv.gz");
    assert_eq!(from_gzip, from_file.replace("in.csv:", "in.csv.gz:"));
    let from_stdin = run("-");
    assert_eq!(
        from_stdin,
        from_file.replace(&*path.display().to_string(), "-")
    );
}
