//! Reading a Parquet part back in the partition tests.

use std::path::Path;

/// The `n` column of a Parquet part, in file order: a 64-bit integer
/// column, or a string one (every column is a string unless `--schema`
/// says otherwise) holding decimal numbers.
pub fn parquet_numbers(path: &Path) -> Vec<i64> {
    use parquet::file::reader::FileReader;
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap();
    let iter = reader.get_row_iter(None).unwrap();
    iter.map(|row| {
        let row = row.unwrap();
        let mut columns = row.get_column_iter();
        match columns.find(|(name, _)| *name == "n") {
            Some((_, parquet::record::Field::Long(n))) => *n,
            Some((_, parquet::record::Field::Str(n))) => n.parse().unwrap(),
            other => panic!("{}: column n is {other:?}", path.display()),
        }
    })
    .collect()
}
