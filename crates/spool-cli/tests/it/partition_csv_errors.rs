//! `spool partition` on CSV that is not well formed, end to end: an
//! unterminated quote is named by its opening quote (early, when it stays
//! open past the record limit), and a bad value is named alike whether it
//! comes from a file or from standard input.

use std::path::Path;

use crate::support::csv::{assert_ok, files, partition};
use crate::support::spool;
use crate::support::Dir;

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
