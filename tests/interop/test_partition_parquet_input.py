"""`spool partition` reading Parquet written by PyArrow, Polars and DuckDB:
every type they write (integers of each width, floats, decimals, dates,
times, timestamps of each unit with and without a zone, strings, large
strings, binary, booleans, dictionary-encoded strings, lists and structs
carried whole, an all-NULL column), NULLs, dictionary and plain pages,
several row groups, several files, and a hive-partitioned dataset.

Re-partitioned into Parquet, each key's rows must be the input's rows of
that key, in input order (files in path order), and each column's type
the input's (read back with PyArrow); into CSV, each key's rows must be
the input's. The spool binary is taken from $SPOOL_BIN (default
target/release/spool).
"""
import csv
import datetime
import decimal
import os
import pathlib
import random
import subprocess

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
KEYS = ["north", "south", "east", "west", "a b", "ü", None]
ROWS = 6000


def table(seed):
    """A table of every type, NULLs in most columns."""
    rng = random.Random(seed)
    utc = datetime.timezone.utc
    n = ROWS

    def maybe(i, value, every=7):
        return None if i % every == 0 else value

    ts = [datetime.datetime(2000, 1, 1) + datetime.timedelta(microseconds=rng.randint(0, 10**15)) for _ in range(n)]
    return pa.table({
        "key": pa.array([rng.choice(KEYS) for _ in range(n)]),
        "i8": pa.array([maybe(i, rng.randint(-128, 127)) for i in range(n)], pa.int8()),
        "i16": pa.array([maybe(i, rng.randint(-2**15, 2**15 - 1)) for i in range(n)], pa.int16()),
        "i32": pa.array([maybe(i, rng.randint(-2**31, 2**31 - 1)) for i in range(n)], pa.int32()),
        "i64": pa.array([maybe(i, rng.randint(-2**63, 2**63 - 1)) for i in range(n)], pa.int64()),
        "u8": pa.array([maybe(i, rng.randint(0, 255)) for i in range(n)], pa.uint8()),
        "u16": pa.array([maybe(i, rng.randint(0, 2**16 - 1)) for i in range(n)], pa.uint16()),
        "u32": pa.array([maybe(i, rng.randint(0, 2**32 - 1)) for i in range(n)], pa.uint32()),
        "u64": pa.array([maybe(i, rng.randint(0, 2**64 - 1)) for i in range(n)], pa.uint64()),
        "f32": pa.array([maybe(i, rng.uniform(-1e6, 1e6)) for i in range(n)], pa.float32()),
        "f64": pa.array([maybe(i, rng.uniform(-1e300, 1e300)) for i in range(n)], pa.float64()),
        "dec": pa.array([maybe(i, decimal.Decimal(rng.randint(-10**15, 10**15)) / 1000) for i in range(n)], pa.decimal128(18, 3)),
        "dec38": pa.array([maybe(i, decimal.Decimal(rng.randint(-10**37, 10**37)) / 10**10) for i in range(n)], pa.decimal128(38, 10)),
        "day": pa.array([maybe(i, datetime.date(1900, 1, 1) + datetime.timedelta(days=rng.randint(0, 80000))) for i in range(n)], pa.date32()),
        "tod": pa.array([maybe(i, datetime.time(rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999))) for i in range(n)], pa.time64("us")),
        "ts_ms": pa.array([maybe(i, t.replace(microsecond=t.microsecond // 1000 * 1000)) for i, t in enumerate(ts)], pa.timestamp("ms")),
        "ts_us": pa.array([maybe(i, t) for i, t in enumerate(ts)], pa.timestamp("us")),
        "ts_ns_utc": pa.array([maybe(i, t.replace(tzinfo=utc)) for i, t in enumerate(ts)], pa.timestamp("ns", tz="UTC")),
        "ts_berlin": pa.array([maybe(i, t.replace(tzinfo=utc)) for i, t in enumerate(ts)], pa.timestamp("us", tz="Europe/Berlin")),
        "s": pa.array([maybe(i, f"text {i} " + rng.choice(["x", "y, z", "é", 'a"b'])) for i in range(n)]),
        "ls": pa.array([maybe(i, f"large {i}") for i in range(n)], pa.large_string()),
        "bin": pa.array([maybe(i, rng.randbytes(rng.randint(0, 9))) for i in range(n)], pa.binary()),
        "flag": pa.array([maybe(i, rng.random() < 0.5) for i in range(n)], pa.bool_()),
        "colour": pa.array([maybe(i, rng.choice(["red", "green", "blue"])) for i in range(n)]).dictionary_encode(),
        "tags": pa.array([maybe(i, [rng.randint(0, 9) for _ in range(rng.randint(0, 3))]) for i in range(n)], pa.list_(pa.int32())),
        "point": pa.array([maybe(i, {"x": rng.random(), "label": f"p{i}"}) for i in range(n)], pa.struct([("x", pa.float64()), ("label", pa.string())])),
        "nothing": pa.nulls(n, pa.string()),
    })


def rows_by_key(t, key="key"):
    """Each key's rows (the key column left out), in order."""
    out = {}
    names = [c for c in t.column_names if c != key]
    for row in t.to_pylist():
        k = row[key]
        out.setdefault("" if k is None else str(k), []).append(tuple(row[c] for c in names))
    return out


def spool(*args):
    subprocess.run([SPOOL, "partition", "-q", *map(str, args)], check=True, capture_output=True)


def read_dataset(out, key="key"):
    """Each key directory's files (in part order) read without the hive
    key: the rows, and each file's schema."""
    rows, schemas = {}, []
    for key_dir in sorted(out.glob(f"{key}=*")):
        value = key_dir.name.split("=", 1)[1]
        value = "" if value == "__HIVE_DEFAULT_PARTITION__" else value
        for part in sorted(key_dir.glob("part-*.parquet")):
            t = pq.read_table(part)
            schemas.append(t.schema)
            rows.setdefault(value, []).extend(tuple(r.values()) for r in t.to_pylist())
    return rows, schemas


def check_types(expected: pa.Schema, schemas, key="key"):
    want = [(f.name, f.type) for f in expected if f.name != key]
    for schema in schemas:
        assert [(f.name, f.type) for f in schema] == want


def unescape(value):
    return value.replace("%20", " ")


@pytest.fixture(scope="module")
def pyarrow_input(tmp_path_factory):
    d = tmp_path_factory.mktemp("pyarrow")
    t1, t2 = table(1), table(2)
    # Several row groups and both page kinds: dictionary and plain pages.
    pq.write_table(t1, d / "1.parquet", row_group_size=1000, use_dictionary=True)
    pq.write_table(t2, d / "2.parquet", row_group_size=700, use_dictionary=False, data_page_version="2.0")
    return d, pa.concat_tables([t1, t2])


def test_pyarrow_files_keep_every_type_and_row(pyarrow_input, tmp_path):
    d, expected = pyarrow_input
    out = tmp_path / "out"
    spool("--by", "key", "--format", "parquet", "--row-group-size", "500", "--out", out, d / "*.parquet")
    rows, schemas = read_dataset(out)
    assert {unescape(k): v for k, v in rows.items()} == rows_by_key(expected)
    check_types(expected.schema, schemas)


def test_one_open_file_per_thread_keeps_every_row_and_type(pyarrow_input, tmp_path):
    d, expected = pyarrow_input
    out = tmp_path / "out"
    spool("--by", "colour", "--format", "parquet", "--max-open", "1", "--threads", "1",
          "--memory", "64M", "--out", out, d)
    rows, schemas = read_dataset(out, key="colour")
    assert rows == rows_by_key(expected, key="colour")
    check_types(expected.schema, schemas, key="colour")


def test_parquet_to_csv_writes_the_values(pyarrow_input, tmp_path):
    d, expected = pyarrow_input
    out = tmp_path / "out"
    spool("--by", "key", "--delimiter", "comma", "--out", out, d)
    want = rows_by_key(expected.select(["key", "i64", "s", "flag", "dec", "day"]))
    got = {}
    for f in sorted(out.glob("key=*/part-*.csv")):
        value = unescape(f.parent.name.split("=", 1)[1])
        value = "" if value == "__HIVE_DEFAULT_PARTITION__" else value
        with open(f, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                got.setdefault(value, []).append(row)
    assert got.keys() == want.keys()
    for k, rows in want.items():
        text = [(r["i64"], r["s"], r["flag"], r["dec"], r["day"]) for r in got[k]]
        assert text == [
            ("" if i is None else str(i), s or "", "" if b is None else str(b).lower(),
             "" if dec is None else str(dec), "" if day is None else day.isoformat())
            for i, s, b, dec, day in rows
        ]


def test_polars_and_duckdb_files(tmp_path):
    t = table(3).drop_columns(["ts_berlin", "u64", "point", "colour", "tod"])
    pl.from_arrow(t).write_parquet(tmp_path / "polars.parquet", row_group_size=900)
    con = duckdb.connect()
    con.register("t", t)
    con.execute(f"COPY (SELECT * FROM t) TO '{tmp_path / 'duckdb.parquet'}' (FORMAT parquet, ROW_GROUP_SIZE 1024)")
    for name in ["polars", "duckdb"]:
        path = tmp_path / f"{name}.parquet"
        expected = pq.read_table(path)
        out = tmp_path / f"out-{name}"
        spool("--by", "key", "--format", "parquet", "--out", out, path)
        rows, schemas = read_dataset(out)
        assert {unescape(k): v for k, v in rows.items()} == rows_by_key(expected), name
        check_types(expected.schema, schemas)


def test_a_hive_dataset_keeps_its_path_keys(tmp_path):
    t = table(4).select(["key", "i32", "s", "day"])
    t = t.append_column("region", pa.array([["eu", "us", "apac"][i % 3] for i in range(t.num_rows)]))
    pq.write_to_dataset(t, tmp_path / "in", partition_cols=["region"])
    out = tmp_path / "out"
    spool("--by", "key", "--format", "parquet", "--out", out, tmp_path / "in")
    rows, schemas = read_dataset(out)
    # Files in path order: apac, eu, us.
    expected = pa.concat_tables(
        t.filter(pc.equal(t["region"], r)) for r in ["apac", "eu", "us"]
    )
    assert {unescape(k): v for k, v in rows.items()} == rows_by_key(expected)
    assert [f.name for f in schemas[0]] == ["i32", "s", "day", "region"]
    # Re-partitioned by the old path key.
    out2 = tmp_path / "out2"
    spool("--by", "region", "--format", "parquet", "--out", out2, tmp_path / "in")
    assert sorted(p.name for p in out2.iterdir() if p.is_dir()) == ["region=apac", "region=eu", "region=us"]


def test_a_nested_key_and_a_corrupt_file_are_refused(pyarrow_input, tmp_path):
    d, _ = pyarrow_input
    r = subprocess.run([SPOOL, "partition", "-q", "--by", "point", "--format", "parquet",
                        "--out", tmp_path / "o", d], capture_output=True, text=True)
    assert r.returncode == 2 and "--by point: the column is Struct" in r.stderr, r.stderr
    bad = tmp_path / "bad.parquet"
    bad.write_bytes((d / "1.parquet").read_bytes()[:5000])
    r = subprocess.run([SPOOL, "partition", "-q", "--by", "key", "--format", "parquet",
                        "--out", tmp_path / "o2", bad], capture_output=True, text=True)
    assert r.returncode == 2 and f"{bad}: cannot be read as Parquet" in r.stderr, r.stderr
    assert not (tmp_path / "o2").exists()
