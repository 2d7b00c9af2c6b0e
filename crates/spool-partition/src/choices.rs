//! A run's settings from the words people give them: `comma`, `none`,
//! `zstd` with a level.
//!
//! `spool partition`'s flags and the Python `spool.partition` keywords take
//! the same words; both hand them here, so a delimiter, quote or
//! compression means the same in each and a wrong one is refused with the
//! same message. The refusals happen before anything is read or written.

use std::str::FromStr;

use crate::parquet::{
    Encodings, ParquetCompression, ParquetOptions, SchemaSpec, DEFAULT_ROW_GROUP_ROWS,
};
use crate::{OutputFormat, PartitionError, SourceFormat};
use spool_io::write::Compression;

/// The delimiter a name stands for: `tab`, `comma`, `space`, `pipe`,
/// `semicolon`, or any single ASCII character but a line feed.
///
/// # Errors
///
/// [`PartitionError::Usage`] for anything else.
///
/// # Examples
///
/// ```
/// use spool_partition::choices::delimiter;
/// assert_eq!(delimiter("comma")?, b',');
/// assert_eq!(delimiter(";")?, b';');
/// assert!(delimiter("ab").is_err());
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
pub fn delimiter(name: &str) -> Result<u8, PartitionError> {
    match name {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        "comma" => Ok(b','),
        "space" => Ok(b' '),
        "pipe" => Ok(b'|'),
        "semicolon" => Ok(b';'),
        _ if name.len() == 1 && name.as_bytes()[0] != b'\n' => Ok(name.as_bytes()[0]),
        _ => Err(PartitionError::Usage(format!(
            "'{name}' is not a delimiter: use tab, comma, space, pipe, semicolon or one ASCII character"
        ))),
    }
}

/// What an input format's name (`--input-format`) stands for: the
/// format, and the delimiter `csv` and `tsv` imply when no other is given
/// (`None` keeps the delimiter given).
///
/// # Errors
///
/// [`PartitionError::Usage`] for a name other than `csv`, `tsv`,
/// `ndjson` (or `jsonl`) and `parquet`.
///
/// # Examples
///
/// ```
/// use spool_partition::choices::input_format;
/// use spool_partition::SourceFormat;
/// assert_eq!(input_format("csv")?, (SourceFormat::Text, Some(b',')));
/// assert_eq!(input_format("jsonl")?, (SourceFormat::Ndjson, None));
/// assert!(input_format("xml").is_err());
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
pub fn input_format(name: &str) -> Result<(SourceFormat, Option<u8>), PartitionError> {
    match name {
        "csv" => Ok((SourceFormat::Text, Some(b','))),
        "tsv" => Ok((SourceFormat::Text, Some(b'\t'))),
        "ndjson" | "jsonl" => Ok((SourceFormat::Ndjson, None)),
        "parquet" => Ok((SourceFormat::Parquet, None)),
        _ => Err(PartitionError::Usage(format!(
            "'{name}' is not an input format: use csv, tsv, ndjson or parquet"
        ))),
    }
}

/// A quote setting as given: a character, or `none` for no quoting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quote {
    /// Fields may be enclosed in this byte.
    Char(u8),
    /// No quoting: every byte is data.
    None,
}

impl FromStr for Quote {
    type Err = PartitionError;

    /// `none`, or one ASCII character other than CR and LF.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(Quote::None),
            _ if s.len() == 1 && !matches!(s.as_bytes()[0], b'\n' | b'\r') => {
                Ok(Quote::Char(s.as_bytes()[0]))
            }
            _ => Err(PartitionError::Usage(format!(
                "'{s}' is not a quote: use one ASCII character (usually '\"') or none"
            ))),
        }
    }
}

/// The quote byte for a run: what `quote` says, or when it says nothing
/// `"` (RFC 4180) unless the delimiter is a tab (IANA TSV has no quoting).
///
/// # Examples
///
/// ```
/// use spool_partition::choices::{quote_for, Quote};
/// assert_eq!(quote_for(b',', None), Some(b'"'));
/// assert_eq!(quote_for(b'\t', None), None);
/// assert_eq!(quote_for(b',', Some(Quote::None)), None);
/// assert_eq!(quote_for(b'\t', Some(Quote::Char(b'\''))), Some(b'\''));
/// ```
pub fn quote_for(delimiter: u8, quote: Option<Quote>) -> Option<u8> {
    match quote {
        Some(Quote::Char(q)) => Some(q),
        Some(Quote::None) => None,
        None if delimiter == b'\t' => None,
        None => Some(b'"'),
    }
}

/// A compression name: `none`, `zstd`, `gzip` (text) or `snappy`
/// (Parquet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// Stored as is.
    None,
    /// Zstandard.
    Zstd,
    /// gzip (text only).
    Gzip,
    /// Snappy (Parquet only).
    Snappy,
}

impl FromStr for Codec {
    type Err = PartitionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(Codec::None),
            "zstd" => Ok(Codec::Zstd),
            "gzip" => Ok(Codec::Gzip),
            "snappy" => Ok(Codec::Snappy),
            _ => Err(usage(format!(
                "'{s}' is not a compression: use none, zstd, gzip (text) or snappy (Parquet)"
            ))),
        }
    }
}

/// The encoding of text output files: `codec` at `level`, or at the
/// codec's default level (zstd 3, gzip 6) when none is given. A level
/// outside the codec's range is refused rather than quietly changed (gzip
/// 0 would store, not compress).
///
/// # Errors
///
/// [`PartitionError::Usage`] for snappy, a level without a compressing
/// codec, or a level out of range.
///
/// # Examples
///
/// ```
/// use spool_partition::choices::{text_compression, Codec};
/// use spool_io::write::Compression;
/// assert_eq!(text_compression(Codec::Gzip, None)?, Compression::Gzip(6));
/// assert_eq!(text_compression(Codec::Zstd, Some(19))?, Compression::Zstd(19));
/// assert!(text_compression(Codec::Gzip, Some(0)).is_err());
/// assert!(text_compression(Codec::None, Some(3)).is_err());
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
pub fn text_compression(codec: Codec, level: Option<i32>) -> Result<Compression, PartitionError> {
    Ok(match (codec, level) {
        (Codec::Snappy, _) => return Err(usage("compress snappy needs format parquet")),
        (Codec::None, None) => Compression::None,
        (Codec::None, Some(_)) => {
            return Err(usage("a level needs compress zstd or compress gzip"));
        }
        (Codec::Zstd, level) => Compression::Zstd(zstd_level(level)?),
        (Codec::Gzip, level) => {
            let level = level.unwrap_or(6);
            if !(1..=12).contains(&level) {
                return Err(usage(format!("level {level}: gzip levels are 1-12")));
            }
            Compression::Gzip(level.unsigned_abs())
        }
    })
}

/// The compression of Parquet column chunks: `codec` (zstd unless given)
/// at `level` (zstd only).
///
/// # Errors
///
/// [`PartitionError::Usage`] for gzip, a level with another codec than
/// zstd, or a zstd level out of range.
///
/// # Examples
///
/// ```
/// use spool_partition::choices::{parquet_compression, Codec};
/// use spool_partition::parquet::ParquetCompression;
/// assert_eq!(parquet_compression(None, None)?, ParquetCompression::Zstd(3));
/// assert_eq!(parquet_compression(Some(Codec::Snappy), None)?, ParquetCompression::Snappy);
/// assert!(parquet_compression(Some(Codec::Gzip), None).is_err());
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
pub fn parquet_compression(
    codec: Option<Codec>,
    level: Option<i32>,
) -> Result<ParquetCompression, PartitionError> {
    match (codec.unwrap_or(Codec::Zstd), level) {
        (Codec::Zstd, level) => Ok(ParquetCompression::Zstd(zstd_level(level)?)),
        (_, Some(_)) => Err(usage("a level needs compress zstd with format parquet")),
        (Codec::Snappy, None) => Ok(ParquetCompression::Snappy),
        (Codec::None, None) => Ok(ParquetCompression::None),
        (Codec::Gzip, None) => Err(usage("format parquet compresses with zstd, snappy or none")),
    }
}

/// The settings only Parquet output takes, as given: `schema` and
/// `encodings` are `None` where not given.
#[derive(Clone, Copy, Debug)]
pub struct ParquetChoices<'a> {
    /// Column types, e.g. `id:int64,day:date` (see
    /// [`SchemaSpec`]).
    pub schema: Option<&'a str>,
    /// Most rows in a row group: at least 1.
    pub row_group_size: usize,
    /// `delta` or `plain` (see [`Encodings`]).
    pub encodings: Option<&'a str>,
}

impl Default for ParquetChoices<'_> {
    fn default() -> Self {
        ParquetChoices {
            schema: None,
            row_group_size: DEFAULT_ROW_GROUP_ROWS,
            encodings: None,
        }
    }
}

/// What the output files hold and how text is compressed, from the
/// format's name (`text` or `parquet`), the compression and level given
/// (each format's default where not), and the Parquet settings — which a
/// text run refuses rather than ignores when they are given.
///
/// # Errors
///
/// [`PartitionError::Usage`] for another format name, a schema or
/// encodings with text output, a row group size of 0, unknown encodings,
/// or a compression the format does not take.
///
/// # Examples
///
/// ```
/// use spool_partition::choices::{output_format, Codec, ParquetChoices};
/// use spool_partition::OutputFormat;
/// use spool_io::write::Compression;
/// let text = output_format("text", Some(Codec::Gzip), None, ParquetChoices::default())?;
/// assert!(matches!(text, (OutputFormat::Text, Compression::Gzip(6))));
/// let typed = ParquetChoices { schema: Some("id:int64"), ..ParquetChoices::default() };
/// assert!(matches!(output_format("parquet", None, None, typed)?.0, OutputFormat::Parquet(_)));
/// assert!(output_format("text", None, None, typed).is_err());
/// # Ok::<(), spool_partition::PartitionError>(())
/// ```
pub fn output_format(
    name: &str,
    codec: Option<Codec>,
    level: Option<i32>,
    parquet: ParquetChoices<'_>,
) -> Result<(OutputFormat, Compression), PartitionError> {
    match name {
        "text" => {
            if parquet.schema.is_some() {
                return Err(usage("schema needs format parquet"));
            }
            if parquet.encodings.is_some() {
                return Err(usage("encodings needs format parquet"));
            }
            let compression = text_compression(codec.unwrap_or(Codec::None), level)?;
            Ok((OutputFormat::Text, compression))
        }
        "parquet" => {
            if parquet.row_group_size == 0 {
                return Err(usage("row group size 0: give at least 1"));
            }
            let options = ParquetOptions {
                schema: parquet
                    .schema
                    .map(SchemaSpec::parse)
                    .transpose()?
                    .unwrap_or_default(),
                row_group_size: parquet.row_group_size,
                compression: parquet_compression(codec, level)?,
                encodings: match parquet.encodings {
                    None | Some("delta") => Encodings::Delta,
                    Some("plain") => Encodings::Plain,
                    Some(other) => {
                        return Err(usage(format!(
                            "'{other}' is not an encoding: use delta or plain"
                        )))
                    }
                },
            };
            Ok((OutputFormat::Parquet(options), Compression::None))
        }
        _ => Err(usage(format!(
            "'{name}' is not an output format: use text or parquet"
        ))),
    }
}

/// A zstd level: 3 unless given, 1-22.
fn zstd_level(level: Option<i32>) -> Result<i32, PartitionError> {
    let level = level.unwrap_or(3);
    if !(1..=22).contains(&level) {
        return Err(usage(format!("level {level}: zstd levels are 1-22")));
    }
    Ok(level)
}

fn usage(message: impl Into<String>) -> PartitionError {
    PartitionError::Usage(message.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_delimiters_and_single_characters() {
        for (name, byte) in [("tab", b'\t'), ("pipe", b'|'), ("space", b' '), ("x", b'x')] {
            assert_eq!(delimiter(name).unwrap(), byte, "{name}");
        }
        for bad in ["", "\n", "comma,", "tabs"] {
            let err = delimiter(bad).unwrap_err().to_string();
            assert!(err.contains("is not a delimiter"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn quotes() {
        assert_eq!("none".parse::<Quote>().unwrap(), Quote::None);
        assert_eq!("'".parse::<Quote>().unwrap(), Quote::Char(b'\''));
        assert!("\r".parse::<Quote>().is_err());
        assert!("\"\"".parse::<Quote>().is_err());
    }

    #[test]
    fn levels_out_of_range_are_refused_not_clamped() {
        assert!(text_compression(Codec::Zstd, Some(23)).is_err());
        assert!(text_compression(Codec::Zstd, Some(0)).is_err());
        assert_eq!(
            text_compression(Codec::Gzip, Some(12)).unwrap(),
            Compression::Gzip(12)
        );
        assert!(parquet_compression(Some(Codec::Zstd), Some(-1)).is_err());
        assert!(parquet_compression(Some(Codec::Snappy), Some(3)).is_err());
        assert!(text_compression(Codec::Snappy, None).is_err());
    }

    #[test]
    fn parquet_settings_are_refused_with_text_output_not_ignored() {
        let given = |schema, encodings| ParquetChoices {
            schema,
            encodings,
            ..ParquetChoices::default()
        };
        for (choices, refusal) in [
            (given(Some("a:int64"), None), "schema needs format parquet"),
            (given(None, Some("plain")), "encodings needs format parquet"),
        ] {
            let err = output_format("text", None, None, choices).unwrap_err();
            assert_eq!(err.to_string(), refusal);
            assert!(output_format("parquet", None, None, choices).is_ok());
        }
        let none = ParquetChoices {
            row_group_size: 0,
            ..ParquetChoices::default()
        };
        assert!(output_format("parquet", None, None, none).is_err());
        assert!(output_format("text", None, None, none).is_ok());
        assert!(output_format("parquet", None, None, given(None, Some("rle"))).is_err());
        assert!(output_format("csv", None, None, ParquetChoices::default()).is_err());
        let (plain, _) = output_format(
            "parquet",
            Some(Codec::Snappy),
            None,
            given(None, Some("plain")),
        )
        .unwrap();
        let OutputFormat::Parquet(plain) = plain else {
            panic!("parquet")
        };
        assert_eq!(
            (plain.encodings, plain.compression),
            (Encodings::Plain, ParquetCompression::Snappy)
        );
    }

    #[test]
    fn codec_names() {
        assert_eq!("zstd".parse::<Codec>().unwrap(), Codec::Zstd);
        assert!("lz4".parse::<Codec>().is_err());
    }
}
