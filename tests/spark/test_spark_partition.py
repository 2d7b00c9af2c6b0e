"""Spark tasks as spool's writers, checked against Spark's own partitionBy.

A Spark job (local[2]) spreads N CSV inputs (a header, quoted fields with
commas, quotes and line breaks inside, keys that need escaping in a path)
over its tasks; each task calls `spool.partition` on its share with its
partition id as the run id and `append=True`, all into one
output. Spark then reads that dataset back (`basePath`, Hive partition
discovery) and must get, per key, exactly the rows that Spark's own
`df.write.partitionBy(...)` of the same input gives when read back the same
way (as multisets), and each of spool's files must hold its task's rows of
its key in input order.

Spark as the writer of spool's input: a dataset Spark wrote with
`partitionBy("day")` (every type it writes: integers of each width,
floats, decimals, dates, timestamps, timestamp_ntz, strings, binary,
booleans, arrays, structs, maps, NULLs) re-partitioned by `spool
partition` (the binary from $SPOOL_BIN, default target/release/spool)
into Parquet must keep each column's type and give Spark back exactly the
rows it wrote, and into CSV each value as text. Spark's default timestamp,
INT96, is read as microseconds in UTC and written as INT64
TIMESTAMP(MICROS, UTC), which Spark reads back as its timestamp, the
instants of years 1 and 9999 included, at the top level and inside structs
and arrays; a TIMESTAMP_MICROS column stays a timestamp.
"""
import collections
import csv
import datetime
import decimal
import json
import os
import pathlib
import random
import struct
import subprocess
import urllib.parse

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark import TaskContext
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

import spool

INPUTS = 8
ROWS = 3_000
# Keys Spark and spool must both escape in a directory name and read back:
# '=', '/', '%', '"', ':', a space, a comma, a leading '.' and '_', and a
# non-ASCII letter. (The empty key, Hive's default partition, is read back
# as NULL by Spark from either.)
KEYS = [f"k{i:02}" for i in range(40)] + ["a=b", "x/y", "50%", 'say "hi"', "c:d", "São Paulo", "New York, NY", ".dot", "_under"]
NOTES = ["plain", "with, comma", 'with "quotes"', "two\nlines", "", "ü"]
ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
# How Spark reads RFC 4180 CSV: quotes doubled inside quoted fields, line
# breaks inside quotes, every column a string.
CSV = dict(header=True, escape='"', multiLine=True, inferSchema=False)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    rng = random.Random(15)
    folder = tmp_path_factory.mktemp("in")
    paths = []
    for n in range(INPUTS):
        path = folder / f"events-{n:02}.csv"
        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "key", "amount", "note"])
            for i in range(ROWS):
                w.writerow([f"{n}-{i}", rng.choice(KEYS), str(rng.randrange(10**6)), rng.choice(NOTES)])
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def spark():
    session = (
        SparkSession.builder.master("local[2]")
        .appName("spool-spark-interop")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        # Keys stay strings ("k01", "50%") on both sides.
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .getOrCreate()
    )
    yield session
    session.stop()


def spool_task(out):
    """The task: this partition's share of the input files into `out`."""

    def run(files):
        files = list(files)
        if not files:
            return
        ctx = TaskContext.get()
        run_id = f"p{ctx.partitionId()}"
        summary = spool.partition(
            files, out, by="key", header=True, delimiter="comma",
            run_id=run_id, append=True, threads=1, memory="64M",
        )
        yield run_id, files, summary

    return run


def ids_by_key(files):
    """Each key's ids in the order `files` hold them: one task's input order."""
    order = collections.defaultdict(list)
    for path in files:
        with open(path, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                order[row["key"]].append(row["id"])
    return order


def read_back(spark, out):
    return spark.read.options(**CSV).option("basePath", out).csv(out)


def test_spool_in_spark_tasks_matches_partition_by(spark, inputs, tmp_path):
    ours, theirs = str(tmp_path / "spool"), str(tmp_path / "spark")
    os.makedirs(ours)
    runs = (
        spark.sparkContext.parallelize(inputs, 4)
        .mapPartitions(spool_task(ours))
        .collect()
    )
    assert len(runs) == 4
    assert sorted(f for _, files, _ in runs for f in files) == inputs
    assert sum(s["records"] for _, _, s in runs) == INPUTS * ROWS
    # Each run's manifest, and nothing of its staging left.
    assert sorted(n for n in os.listdir(ours) if n.startswith("_")) == sorted(
        f"_partitions-{run_id}.tsv" for run_id, _, _ in runs
    )

    spark.read.options(**CSV).csv(inputs).write.partitionBy("key").options(**CSV).csv(theirs)

    got, want = read_back(spark, ours), read_back(spark, theirs)
    columns = ["key", "id", "amount", "note"]
    # Per key, the same rows as multisets: nothing left either way of a
    # difference that keeps duplicates.
    assert got.select(columns).exceptAll(want.select(columns)).count() == 0
    assert want.select(columns).exceptAll(got.select(columns)).count() == 0

    # Every file of every run: the run's rows of its key, in input order.
    per_file = collections.defaultdict(list)
    keys = set()
    for row in got.withColumn("file", F.input_file_name()).select("file", "key", "id").collect():
        per_file[row["file"]].append(row["id"])
        keys.add(row["key"])
    assert sum(map(len, per_file.values())) == INPUTS * ROWS
    assert keys == set(KEYS)
    files_of = {run_id: files for run_id, files, _ in runs}
    expected = {}
    for run_id, _, summary in runs:
        order = ids_by_key(files_of[run_id])
        for group in summary["groups"]:
            assert run_id in pathlib.Path(group["path"]).name
            expected[os.path.realpath(group["path"])] = order[group["key"].decode()]
    assert len(expected) == sum(s["files"] for _, _, s in runs)
    # input_file_name() is a URI, percent-encoded.
    got_order = {os.path.realpath(urllib.parse.unquote(urllib.parse.urlparse(f).path)): ids for f, ids in per_file.items()}
    assert got_order.keys() == expected.keys()
    for path, ids in got_order.items():
        assert ids == expected[path], path


def test_spark_reads_spool_parquet(spark, inputs, tmp_path):
    """Spark reads a `format="parquet"` dataset of spool's with Hive
    partition discovery: the declared int64 column as a long, the free-text
    column (DELTA_LENGTH_BYTE_ARRAY pages) and the keys as Spark's own CSV
    reader gives them, row for row."""
    out = str(tmp_path / "parquet")
    summary = spool.partition(
        inputs, out, by="key", header=True, delimiter="comma", format="parquet",
        schema="amount:int64", threads=2, memory="128M",
    )
    assert summary["records"] == INPUTS * ROWS
    got = spark.read.option("basePath", out).parquet(out)
    assert dict(got.dtypes)["amount"] == "bigint"
    want = spark.read.options(**CSV).csv(inputs).withColumn("amount", F.col("amount").cast("long"))
    columns = ["key", "id", "amount", "note"]
    assert got.count() == INPUTS * ROWS
    assert got.select(columns).exceptAll(want.select(columns)).count() == 0
    assert want.select(columns).exceptAll(got.select(columns)).count() == 0


# A table of every type Spark writes to Parquet by default, written by
# Spark's own `partitionBy("day")`: the `kind` column is what spool
# re-partitions it by.
SPARK_ROWS = 3_000
SPARK_KINDS = ["red", "green", "a b", "ü", None]
SPARK_SCHEMA = T.StructType([
    T.StructField("id", T.LongType()),
    T.StructField("kind", T.StringType()),
    T.StructField("i8", T.ByteType()),
    T.StructField("i16", T.ShortType()),
    T.StructField("i32", T.IntegerType()),
    T.StructField("i64", T.LongType()),
    T.StructField("f32", T.FloatType()),
    T.StructField("f64", T.DoubleType()),
    T.StructField("dec", T.DecimalType(10, 2)),
    T.StructField("dec38", T.DecimalType(38, 10)),
    T.StructField("dt", T.DateType()),
    T.StructField("ts", T.TimestampType()),
    T.StructField("ntz", T.TimestampNTZType()),
    T.StructField("s", T.StringType()),
    T.StructField("bin", T.BinaryType()),
    T.StructField("flag", T.BooleanType()),
    T.StructField("tags", T.ArrayType(T.IntegerType())),
    T.StructField("point", T.StructType([T.StructField("x", T.DoubleType()), T.StructField("label", T.StringType())])),
    T.StructField("attrs", T.MapType(T.StringType(), T.IntegerType())),
    T.StructField("day", T.DateType()),
])


def spark_rows():
    """The rows, NULLs in every column but the id; `ts` as an aware UTC
    time (an instant), `ntz` as the same wall time without a zone."""
    rng = random.Random(4)
    utc = datetime.timezone.utc

    def maybe(i, value, every=7):
        return None if i % every == 0 else value

    # Instants nanoseconds since 1970 cannot hold (INT96 can), the
    # placeholders for "none" among them.
    far = [
        datetime.datetime(1, 1, 1, tzinfo=utc),
        datetime.datetime(1600, 2, 29, 12, 0, 0, 1, tzinfo=utc),
        datetime.datetime(2500, 1, 1, tzinfo=utc),
        datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=utc),
    ]
    rows = []
    for i in range(SPARK_ROWS):
        t = datetime.datetime(1970, 1, 1, tzinfo=utc) + datetime.timedelta(microseconds=rng.randint(-2 * 10**15, 2 * 10**15))
        if i % 50 == 1:
            t = far[i // 50 % len(far)]
        rows.append((
            i,
            maybe(i, rng.choice(SPARK_KINDS), 11),
            maybe(i, rng.randint(-128, 127)),
            maybe(i, rng.randint(-2**15, 2**15 - 1)),
            maybe(i, rng.randint(-2**31, 2**31 - 1)),
            maybe(i, rng.randint(-2**63, 2**63 - 1)),
            maybe(i, rng.uniform(-1e6, 1e6)),
            maybe(i, rng.uniform(-1e300, 1e300)),
            maybe(i, decimal.Decimal(rng.randint(-10**10 + 1, 10**10 - 1)) / 100),
            maybe(i, decimal.Decimal(f"{rng.randint(-10**38 + 1, 10**38 - 1)}e-10")),
            maybe(i, datetime.date(1900, 1, 1) + datetime.timedelta(days=rng.randint(0, 80000))),
            maybe(i, t),
            maybe(i, t.replace(tzinfo=None)),
            maybe(i, f"text {i} " + rng.choice(["x", "y, z", "é", 'a"b', "two\nlines"])),
            maybe(i, rng.randbytes(rng.randint(0, 9))),
            maybe(i, rng.random() < 0.5),
            maybe(i, [rng.randint(0, 9) for _ in range(rng.randint(0, 3))]),
            maybe(i, (rng.random(), f"p{i}")),
            maybe(i, {"a": i, "b": rng.randint(0, 9)}),
            maybe(i, datetime.date(2026, 5, 1) + datetime.timedelta(days=i % 4), 13),
        ))
    return rows


@pytest.fixture(scope="module")
def spark_written(spark, tmp_path_factory):
    """Spark's datasets: every column with Spark's default timestamp
    (INT96), and `id`, `kind`, `ts`, `day` with
    outputTimestampType=TIMESTAMP_MICROS. Several files per day."""
    folder = tmp_path_factory.mktemp("spark-parquet")
    rows = spark_rows()
    df = spark.createDataFrame(rows, SPARK_SCHEMA, verifySchema=False)
    df.write.partitionBy("day").parquet(str(folder / "int96"))
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    try:
        df.select("id", "kind", "ts", "day").write.partitionBy("day").parquet(str(folder / "micros"))
    finally:
        spark.conf.unset("spark.sql.parquet.outputTimestampType")
    int96 = sorted((folder / "int96").glob("day=*/*.parquet"))
    # Two tasks (local[2]: the list's two slices), each a file per day.
    assert len(int96) == 2 * 5
    assert pq.read_metadata(int96[0]).schema.column(11).physical_type == "INT96"
    return folder, rows, df


def spool_cli(*args):
    r = subprocess.run([SPOOL, "partition", "-q", *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def arrow_schema_of(dataset):
    """The Arrow schema PyArrow reads Spark's files with (no hive key)."""
    return pq.read_schema(sorted(pathlib.Path(dataset).glob("day=*/*.parquet"))[0]).remove_metadata()


def spool_files(out):
    return sorted(pathlib.Path(out).glob("*=*/part-*.parquet"))


EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def f32(x):
    """A double as the float Spark's FloatType keeps."""
    return struct.unpack("f", struct.pack("f", x))[0]


def comparable(row):
    """A row (a dict by column name, of `spark_rows` or as Spark collects
    it, `ts` in microseconds since the epoch) as a hashable tuple."""
    out = []
    for name, value in row.items():
        if value is None:
            pass
        elif name == "ts" and isinstance(value, datetime.datetime):
            value = (value - EPOCH) // datetime.timedelta(microseconds=1)
        elif name == "f32":
            value = f32(value)
        elif name == "bin":
            value = bytes(value)
        elif name == "tags":
            value = tuple(value)
        elif name == "point":
            value = tuple(value)
        elif name == "attrs":
            value = tuple(sorted(value.items()))
        out.append((name, value))
    return tuple(out)


def expected_rows(rows, columns):
    names = [f.name for f in SPARK_SCHEMA]
    return collections.Counter(
        comparable({c: r[c] for c in columns}) for r in (dict(zip(names, row)) for row in rows)
    )


def test_spark_written_parquet_keeps_every_type(spark, spark_written, tmp_path):
    """Spark's INT96 dataset re-partitioned by `kind` into Parquet, the
    hive key typed by --schema: every file has the types PyArrow reads in
    Spark's files but for INT96, which is read as microseconds in UTC
    (INT64 TIMESTAMP(MICROS, UTC)), and `day` a date after them. Spark
    reads every column back as the type it wrote, with no setting, and
    gets exactly the rows it wrote (years 1 to 9999)."""
    folder, rows, df = spark_written
    out = tmp_path / "out"
    spool_cli("--by", "kind", "--format", "parquet", "--schema", "day:date", "--out", out, folder / "int96")
    source = arrow_schema_of(folder / "int96")
    assert source.field("ts").type == pa.timestamp("ns")
    assert source.field("ntz").type == pa.timestamp("us")
    utc_micros = pa.timestamp("us", tz="UTC")
    want = [(f.name, utc_micros if f.name == "ts" else f.type) for f in source if f.name != "kind"]
    want.append(("day", pa.date32()))
    files = spool_files(out)
    assert sorted({f.parent.name for f in files}) == sorted(
        ["kind=__HIVE_DEFAULT_PARTITION__", "kind=a b", "kind=green", "kind=red", "kind=ü"]
    )
    for f in files:
        assert [(x.name, x.type) for x in pq.read_schema(f)] == want, f
        ts = pq.read_metadata(f).schema.column(10)
        logical = json.loads(ts.logical_type.to_json())
        assert (ts.name, ts.physical_type, logical["Type"], logical["timeUnit"], logical["isAdjustedToUTC"]) == (
            "ts", "INT64", "Timestamp", "microseconds", True
        )

    got = spark.read.option("basePath", str(out)).parquet(str(out))
    assert dict(got.dtypes) == dict(df.dtypes)
    columns = [f.name for f in SPARK_SCHEMA]
    # The instant in microseconds: collect() would give local wall times.
    got = got.select([F.unix_micros("ts").alias("ts") if c == "ts" else c for c in columns])
    got = collections.Counter(comparable(r.asDict()) for r in got.collect())
    assert got == expected_rows(rows, columns)


def test_spark_timestamp_micros_reads_back_as_timestamps(spark, spark_written, tmp_path):
    """With outputTimestampType=TIMESTAMP_MICROS, Spark's timestamps
    (INT64 TIMESTAMP(MICROS, UTC)) keep their type, and Spark reads spool's
    dataset with no setting: every row, `ts` a timestamp; the hive key
    `day`, not typed, a string column."""
    folder, rows, _ = spark_written
    out = tmp_path / "out"
    spool_cli("--by", "kind", "--format", "parquet", "--out", out, folder / "micros")
    source = arrow_schema_of(folder / "micros")
    assert source.field("ts").type == pa.timestamp("us", tz="UTC")
    for f in spool_files(out):
        assert [(x.name, x.type) for x in pq.read_schema(f)] == [
            ("id", pa.int64()), ("ts", pa.timestamp("us", tz="UTC")), ("day", pa.string())
        ], f
    got = spark.read.option("basePath", str(out)).parquet(str(out))
    assert dict(got.dtypes) == {"id": "bigint", "ts": "timestamp", "day": "string", "kind": "string"}
    # The instant in microseconds: collect() would give local wall times.
    got = got.select("id", "kind", F.unix_micros("ts").alias("ts"), F.to_date("day").alias("day"))
    got = collections.Counter(comparable(r.asDict()) for r in got.collect())
    assert got == expected_rows(rows, ["id", "kind", "ts", "day"])


def test_spark_written_parquet_to_csv(spark_written, tmp_path):
    """Spark's INT96 dataset into CSV: each key's rows are Spark's rows of
    that key, each value as Arrow displays it (INT96 as the UTC time with
    `Z`; binary as hex; a list as `[1, 2]`), the hive key last."""
    folder, rows, _ = spark_written
    out = tmp_path / "out"
    spool_cli("--by", "kind", "--delimiter", "comma", "--out", out, folder / "int96")
    names = [f.name for f in SPARK_SCHEMA]

    def exact(d):
        """A decimal's value, whatever its trailing zeros."""
        return d.normalize()

    def expected(row):
        r = dict(zip(names, row))
        text = lambda v, f=str: "" if v is None else str(f(v))
        return (
            str(r["id"]), text(r["i8"]), text(r["i64"]), text(r["f32"], f32), text(r["f64"]),
            text(r["dec"], exact), text(r["dec38"], exact), text(r["dt"], datetime.date.isoformat),
            text(r["ts"]), text(r["ntz"]), text(r["s"]),
            text(r["bin"], bytes.hex), text(r["flag"], lambda b: str(b).lower()),
            text(r["tags"], lambda xs: "[" + ", ".join(map(str, xs)) + "]"), text(r["day"], datetime.date.isoformat),
        )

    def parsed(r):
        value = lambda v, f: str(f(v)) if v else ""
        return (
            r["id"], r["i8"], r["i64"], value(r["f32"], lambda x: f32(float(x))), value(r["f64"], float),
            value(r["dec"], lambda x: exact(decimal.Decimal(x))), value(r["dec38"], lambda x: exact(decimal.Decimal(x))), r["dt"],
            value(r["ts"], datetime.datetime.fromisoformat), value(r["ntz"], datetime.datetime.fromisoformat),
            r["s"], r["bin"], r["flag"], r["tags"], r["day"],
        )

    want = collections.defaultdict(list)
    for row in rows:
        want[row[1] or ""].append(expected(row))
    got = collections.defaultdict(list)
    for f in sorted(out.glob("kind=*/part-*.csv")):
        key = f.parent.name.split("=", 1)[1]
        key = "" if key == "__HIVE_DEFAULT_PARTITION__" else key
        with open(f, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            assert reader.fieldnames == names
            got[key].extend(parsed(r) for r in reader)
    assert got.keys() == want.keys()
    for key in want:
        assert sorted(got[key]) == sorted(want[key]), key


def test_spark_nested_int96_reads_back_exactly(spark, tmp_path):
    """Spark's default timestamp inside a struct and an array (INT96 leaves,
    years 1 to 9999) re-partitioned into Parquet: each nested timestamp is
    written as microseconds in UTC, and Spark reads back exactly the
    instants it wrote, NULL structs and arrays included."""
    utc = datetime.timezone.utc
    instants = [
        datetime.datetime(1, 1, 1, tzinfo=utc),
        datetime.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=utc),
        datetime.datetime(2500, 1, 1, tzinfo=utc),
        datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=utc),
    ]
    schema = T.StructType([
        T.StructField("id", T.LongType()),
        T.StructField("kind", T.StringType()),
        T.StructField("ev", T.StructType([T.StructField("at", T.TimestampType())])),
        T.StructField("evs", T.ArrayType(T.TimestampType())),
    ])
    rows = [
        (i, "ab"[i % 2], None if i == 5 else (instants[i % 4],), None if i == 6 else instants[i % 4:])
        for i in range(8)
    ]
    src = tmp_path / "src"
    spark.createDataFrame(rows, schema).coalesce(1).write.parquet(str(src))
    (written,) = sorted(src.glob("*.parquet"))
    leaves = pq.read_metadata(written).schema
    assert [leaves.column(i).physical_type for i in range(len(leaves))] == ["INT64", "BYTE_ARRAY", "INT96", "INT96"]

    out = tmp_path / "out"
    spool_cli("--by", "kind", "--format", "parquet", "--out", out, src)
    utc_micros = pa.timestamp("us", tz="UTC")
    files = spool_files(out)
    assert len(files) == 2
    for f in files:
        read = pq.read_schema(f)
        assert read.field("ev").type == pa.struct([("at", utc_micros)]), f
        assert read.field("evs").type.value_type == utc_micros, f

    def micros(t):
        return (t - EPOCH) // datetime.timedelta(microseconds=1)

    got = spark.read.parquet(str(out)).select(
        "id",
        F.unix_micros("ev.at").alias("at"),
        F.transform("evs", F.unix_micros).alias("evs"),
        F.col("ev").isNull().alias("no_ev"),
    )
    want = {
        i: (None if ev is None else micros(ev[0]), None if evs is None else [micros(t) for t in evs], ev is None)
        for i, _, ev, evs in rows
    }
    assert {r.id: (r.at, r.evs, r.no_ev) for r in got.collect()} == want
