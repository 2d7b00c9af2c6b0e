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
"""
import collections
import csv
import os
import pathlib
import random
import urllib.parse

import pytest
from pyspark import TaskContext
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import spool

INPUTS = 8
ROWS = 3_000
# Keys Spark and spool must both escape in a directory name and read back:
# '=', '/', '%', '"', ':', a space, a comma, a leading '.' and '_', and a
# non-ASCII letter. (The empty key, Hive's default partition, is read back
# as NULL by Spark from either.)
KEYS = [f"k{i:02}" for i in range(40)] + ["a=b", "x/y", "50%", 'say "hi"', "c:d", "São Paulo", "New York, NY", ".dot", "_under"]
NOTES = ["plain", "with, comma", 'with "quotes"', "two\nlines", "", "ü"]
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
