//! Records that do not fit a Parquet run's table, wherever they are found.
//!
//! With inputs that can be read twice the writer threads check the records
//! as they build columns, and the run reads its inputs again to name the
//! first bad record; the error must be the one a check of every record in
//! input order gives: the first bad record's line, byte offset and reason,
//! whichever group it went to, whether that group was being written or
//! spilled, and whatever kind of bad record comes after it.

use std::fs;
use std::path::PathBuf;

use proptest::prelude::*;
use spool_partition::parquet::{ParquetOptions, SchemaSpec};
use spool_partition::{
    run, BufferSizes, ColumnRef, MemoryPlan, Options, OutputFormat, PartitionError,
};

/// Ways a record can be bad, and the words of its error.
#[derive(Clone, Copy, Debug)]
enum Bad {
    /// `n` is not an int64.
    Number,
    /// The key column (typed int64, left out of the files) is not one.
    Key,
    /// A string value is not UTF-8.
    NotUtf8,
    /// Too few fields to hold the key (the router finds these itself).
    NoKey,
    /// One field too many.
    Extra,
}

impl Bad {
    fn line(self, i: usize, keys: usize) -> Vec<u8> {
        let k = i % keys;
        match self {
            Bad::Number => format!("x{i},{k},s{i}\n").into_bytes(),
            Bad::Key => format!("{i},z{i},s{i}\n").into_bytes(),
            Bad::NotUtf8 => [format!("{i},{k},s").as_bytes(), b"\xff\n"].concat(),
            Bad::NoKey => format!("{i}\n").into_bytes(),
            Bad::Extra => format!("{i},{k},s{i},more\n").into_bytes(),
        }
    }

    fn reason(self, i: usize) -> String {
        match self {
            Bad::Number => format!("column 1 (n): \"x{i}\" is not a valid int64 value"),
            Bad::Key => format!("column 2 (k): \"z{i}\" is not a valid int64 value"),
            Bad::NotUtf8 => "column 3 (s): \"s\u{fffd}\" is not a valid string value".into(),
            Bad::NoKey => "record has 1 field(s), column 2 is needed".into(),
            Bad::Extra => "record has 4 field(s), the table has 3".into(),
        }
    }
}

fn bad() -> impl Strategy<Value = Bad> {
    prop_oneof![
        Just(Bad::Number),
        Just(Bad::Key),
        Just(Bad::NotUtf8),
        Just(Bad::NoKey),
        Just(Bad::Extra),
    ]
}

fn scratch(case: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "spool-parquet-misfit-{}-{case}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_first_bad_record_is_named(
        records in 1usize..4000,
        keys in 1usize..300,
        bads in prop::collection::vec((any::<prop::sample::Index>(), bad()), 1..4),
        spill in any::<bool>(),
        case in any::<u32>(),
    ) {
        let at: Vec<(usize, Bad)> = bads.iter().map(|(i, b)| (i.index(records), *b)).collect();
        let mut text = b"n,k,s\n".to_vec();
        let mut first = None;
        for i in 0..records {
            let line = match at.iter().find(|(p, _)| *p == i) {
                Some(&(_, bad)) => {
                    first.get_or_insert((i, text.len(), bad));
                    bad.line(i, keys)
                }
                None => format!("{i},{},s{i}\n", i % keys).into_bytes(),
            };
            text.extend_from_slice(&line);
        }
        let (i, offset, bad) = first.expect("at least one bad record");
        let dir = scratch(case);
        fs::write(dir.join("in.csv"), &text).unwrap();
        let mut options = Options::new(
            vec![dir.join("in.csv")],
            dir.join("out"),
            vec![ColumnRef("k".into())],
        );
        options.header = true;
        (options.delimiter, options.quote) = (b',', Some(b'"'));
        options.format = OutputFormat::Parquet(ParquetOptions {
            schema: SchemaSpec::parse("n:int64,k:int64").unwrap(),
            ..ParquetOptions::default()
        });
        if spill {
            // Admits no writer: every group spills, and is checked at the end.
            let planned = MemoryPlan::new(&options).unwrap().buffers();
            options.buffer_sizes = Some(BufferSizes { budget: 4096, ..planned });
        }
        let err = run(&options).unwrap_err();
        let PartitionError::Input { file, line, offset: at_byte, message } = &err else {
            panic!("not an input error: {err}");
        };
        prop_assert!(file.ends_with("in.csv"), "{err}");
        prop_assert_eq!((*line, *at_byte), ((i + 2) as u64, offset as u64), "{}", err);
        prop_assert!(message.starts_with(&bad.reason(i)), "{err}");
        prop_assert!(!dir.join("out").exists(), "nothing is left behind");
        fs::remove_dir_all(&dir).unwrap();
    }
}
