//! Field values written as one record of the run's text dialect: what a
//! source that is not delimited text (NDJSON, Parquet) is turned into, so
//! that the router, the key table and the text and Parquet writers treat
//! its records exactly as they treat a CSV or TSV file's.
//!
//! With a quote (CSV), a value holding the delimiter, the quote or a line
//! break is quoted, its quotes doubled (RFC 4180). Without one (IANA TSV)
//! such a value cannot be written: the record is refused, and the message
//! says to read it as CSV.

/// The dialect records are written in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TextDialect {
    pub delimiter: u8,
    pub quote: Option<u8>,
}

/// A value TSV cannot hold.
#[derive(Debug)]
pub(crate) struct Unwritable;

impl TextDialect {
    /// Appends `values` as one record (ended by `\n`) to `out`; on
    /// [`Unwritable`] `out` is as it was.
    pub fn record<'v>(
        &self,
        values: impl IntoIterator<Item = &'v [u8]>,
        out: &mut Vec<u8>,
    ) -> Result<(), Unwritable> {
        let start = out.len();
        let mut fields = 0;
        for (i, value) in values.into_iter().enumerate() {
            fields += 1;
            if i > 0 {
                out.push(self.delimiter);
            }
            if let Err(e) = self.field(value, out) {
                out.truncate(start);
                return Err(e);
            }
        }
        if let (1, Some(q)) = (fields, self.quote) {
            if out.len() == start {
                // One empty field, quoted: a blank line is no record.
                out.extend_from_slice(&[q, q]);
            }
        }
        out.push(b'\n');
        Ok(())
    }

    fn field(&self, value: &[u8], out: &mut Vec<u8>) -> Result<(), Unwritable> {
        let special = |b: &u8| *b == self.delimiter || *b == b'\n' || *b == b'\r';
        match self.quote {
            None if value.iter().any(special) => Err(Unwritable),
            Some(q) if value.iter().any(|b| special(b) || *b == q) => {
                out.push(q);
                for &b in value {
                    if b == q {
                        out.push(q);
                    }
                    out.push(b);
                }
                out.push(q);
                Ok(())
            }
            _ => {
                out.extend_from_slice(value);
                Ok(())
            }
        }
    }

    /// What to tell a user whose value TSV cannot hold.
    pub fn unwritable_hint(&self) -> &'static str {
        "holds a tab or line break, which TSV cannot hold; read it as CSV \
         (--delimiter comma), which quotes such values"
    }

    /// What to tell a user whose record of `values` (columns `names`)
    /// [`record`](Self::record) refused: which value, and why.
    pub fn unwritable<'v>(
        &self,
        names: &[String],
        values: impl IntoIterator<Item = &'v [u8]>,
    ) -> String {
        let mut probe = Vec::new();
        let column = (values.into_iter()).position(|v| self.field(v, &mut probe).is_err());
        let name = column
            .and_then(|c| names.get(c))
            .map_or("?", String::as_str);
        format!("the value of {name:?} {}", self.unwritable_hint())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_it_must_and_tsv_refuses() {
        let csv = TextDialect {
            delimiter: b',',
            quote: Some(b'"'),
        };
        let mut out = Vec::new();
        let values: [&[u8]; 4] = [b"plain", b"a,b", b"say \"hi\"", b"two\nlines"];
        csv.record(values, &mut out).unwrap();
        let expected = "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"\n";
        assert_eq!(String::from_utf8(out.clone()).unwrap(), expected);
        let parsed: Vec<Vec<String>> = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(&out[..])
            .records()
            .map(|r| r.unwrap().iter().map(str::to_owned).collect())
            .collect();
        assert_eq!(parsed, [["plain", "a,b", "say \"hi\"", "two\nlines"]]);
        let tsv = TextDialect {
            delimiter: b'\t',
            quote: None,
        };
        let mut out = b"kept".to_vec();
        assert!(tsv.record([&b"a"[..], b"b\tc"], &mut out).is_err());
        assert_eq!(out, b"kept");
    }
}
