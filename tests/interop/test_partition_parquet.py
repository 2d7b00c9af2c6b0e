"""`spool partition --format parquet` read back by DuckDB, PyArrow and Polars
as a hive-partitioned dataset: each key's rows, in input order (files in part
order, rows in file order), with the declared types and NULLs. A small
--max-open leaves most keys without an open writer (their rows spill and
become one part file at the end) and a small --row-group-size gives many
row groups per file. The free-text column is written without a
dictionary, as DELTA_LENGTH_BYTE_ARRAY pages, which every reader must take.
A CSV written by Python's `csv` module (commas, doubled quotes, CR and LF
inside quotes, quoted numbers) comes back with its unquoted values.

The spool binary is taken from $SPOOL_BIN (default target/release/spool).
"""
import collections
import csv
import datetime
import os
import pathlib
import random
import subprocess

import duckdb
import pyarrow.dataset as ds
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
KEYS = ["alpha", "beta", "gamma", "a b", "ü", "k1", "k2", "k3"]
EPOCH = datetime.datetime(1970, 1, 1)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """Rows of (key, seq, price, day, at, flag, note); None is an empty field."""
    rng = random.Random(11)
    path = tmp_path_factory.mktemp("in") / "in.tsv"
    rows = collections.defaultdict(list)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("key\tseq\tprice\tday\tat\tflag\tnote\n")
        for i in range(30_000):
            key = rng.choice(KEYS)
            price = None if i % 17 == 0 else rng.randint(-10**6, 10**6) / 4
            day = datetime.date(2000, 1, 1) + datetime.timedelta(days=rng.randint(0, 9000))
            at = EPOCH + datetime.timedelta(microseconds=rng.randint(0, 2 * 10**15))
            flag = None if i % 23 == 0 else rng.random() < 0.5
            note = None if i % 29 == 0 else f"note {i} {rng.choice(['x', 'y, z', 'ä'])}"
            rows[key].append((i, price, day, at, flag, note))
            fields = [
                key,
                str(i),
                "" if price is None else repr(price),
                day.isoformat(),
                at.isoformat(sep="T", timespec="microseconds"),
                "" if flag is None else str(flag).lower(),
                "" if note is None else note,
            ]
            f.write("\t".join(fields) + "\n")
    return path, rows


@pytest.fixture(scope="module")
def dataset(sample, tmp_path_factory):
    path, _ = sample
    out = tmp_path_factory.mktemp("pq") / "out"
    subprocess.run(
        [SPOOL, "partition", "--header", "--by", "key", "--format", "parquet",
         "--schema", "seq:int64,price:float64,day:date,at:timestamp,flag:bool",
         "--max-open", "4", "--threads", "2", "--row-group-size", "1000",
         "--out", str(out), str(path)],
        check=True,
        capture_output=True,
    )
    return out


def test_each_key_has_one_or_two_parts_of_small_row_groups(dataset):
    import pyarrow.parquet as pq

    for key_dir in dataset.glob("key=*"):
        parts = sorted(key_dir.glob("part-*.parquet"))
        assert 1 <= len(parts) <= 2, (key_dir, parts)
        groups = [pq.ParquetFile(p).metadata.num_row_groups for p in parts]
        assert sum(groups) >= 3, (key_dir, groups)
    assert len(list(dataset.glob("key=*"))) == len(KEYS)


def test_free_text_is_delta_length_and_numbers_plain(dataset):
    import pyarrow.parquet as pq

    for part in dataset.glob("key=*/part-*.parquet"):
        meta = pq.ParquetFile(part).metadata
        names = [meta.schema.column(c).name for c in range(meta.num_columns)]
        chunk = meta.row_group(0)
        encodings = {name: chunk.column(c).encodings for c, name in enumerate(names)}
        assert "DELTA_LENGTH_BYTE_ARRAY" in encodings["note"], (part, encodings)
        for number in ["seq", "price", "day", "at"]:
            assert "PLAIN" in encodings[number], (part, encodings)


def test_duckdb_reads_every_key_in_order(sample, dataset):
    _, rows = sample
    con = duckdb.connect()
    for key, want in rows.items():
        got = con.execute(
            f"SELECT seq, price, day, \"at\", flag, note FROM read_parquet('{dataset}/*/*.parquet', "
            "hive_partitioning = true, filename = true, file_row_number = true) WHERE key = ? "
            "ORDER BY filename, file_row_number",
            [key],
        ).fetchall()
        assert [r[0] for r in got] == [r[0] for r in want], key
        assert got == want, key
    types = dict(con.execute(
        f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('{dataset}/*/*.parquet', hive_partitioning = true))"
    ).fetchall())
    assert types["seq"] == "BIGINT" and types["price"] == "DOUBLE" and types["day"] == "DATE"
    assert types["at"] == "TIMESTAMP" and types["flag"] == "BOOLEAN" and types["note"] == "VARCHAR"


def test_pyarrow_reads_every_key_in_order(sample, dataset):
    _, rows = sample
    for key, want in rows.items():
        part_files = sorted(str(p) for p in dataset.glob(f"key={key}/part-*.parquet"))
        assert part_files, key
        table = ds.dataset(part_files, format="parquet").to_table()
        got = list(zip(*(table.column(c).to_pylist() for c in ["seq", "price", "day", "at", "flag", "note"])))
        assert got == want, key
    whole = ds.dataset(str(dataset), format="parquet", partitioning="hive").to_table()
    assert whole.num_rows == sum(len(v) for v in rows.values())
    assert sorted(set(whole.column("key").to_pylist())) == sorted(rows)


def test_polars_reads_every_key_in_order(sample, dataset):
    import polars as pl

    _, rows = sample
    columns = ["seq", "price", "day", "at", "flag", "note"]
    for key, want in rows.items():
        part_files = sorted(str(p) for p in dataset.glob(f"key={key}/part-*.parquet"))
        assert part_files, key
        frame = pl.read_parquet(part_files)
        got = list(zip(*(frame[c].to_list() for c in columns)))
        assert got == want, key
    whole = pl.scan_parquet(f"{dataset}/*/*.parquet", hive_partitioning=True).collect()
    assert whole.height == sum(len(v) for v in rows.values())
    assert sorted(whole["key"].unique().to_list()) == sorted(rows)
    assert whole.schema["seq"] == pl.Int64 and whole.schema["day"] == pl.Date


NOTES = ["Smith, John", 'say "hi"', "two\nlines", "cr\r\nlf", "", "plain", " padded "]


def test_quoted_csv_values_come_back_unquoted(tmp_path):
    rng = random.Random(17)
    path = tmp_path / "in.csv"
    want = collections.defaultdict(list)
    with open(path, "w", encoding="utf-8", newline="") as f:
        minimal = csv.writer(f)  # QUOTE_MINIMAL and CRLF, Python's default
        every = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        minimal.writerow(["city", "n", "note"])
        for i in range(3_000):
            city = rng.choice(["Paris", "New York, NY", 'a "b" c'])
            note = rng.choice(NOTES)
            (every if i % 3 == 0 else minimal).writerow([city, i, note])
            want[city].append((i, note or None))
    out = tmp_path / "out"
    subprocess.run(
        [SPOOL, "partition", "--quiet", "--header", "-d", ",", "--by", "city",
         "--format", "parquet", "--schema", "n:int64", "--out", str(out), str(path)],
        check=True,
        capture_output=True,
    )
    con = duckdb.connect()
    for city, rows in want.items():
        got = con.execute(
            f"SELECT n, note FROM read_parquet('{out}/*/*.parquet', hive_partitioning = true, "
            "filename = true, file_row_number = true) WHERE city = ? ORDER BY filename, file_row_number",
            [city],
        ).fetchall()
        assert got == rows, city
    whole = ds.dataset(str(out), format="parquet", partitioning="hive").to_table()
    assert sorted(set(whole.column("note").to_pylist()), key=str) == sorted({n or None for n in NOTES}, key=str)
