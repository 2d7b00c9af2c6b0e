"""Spark tasks writing one dataset into S3 with spool, read back by Spark
through `s3a://` (hadoop-aws).

Run by scripts/test-spark-s3.sh, which starts the S3-compatible server
(scripts/s3-server.sh: AWS_ENDPOINT_URL and keys in the environment) and
fetches hadoop-aws and its AWS SDK bundle from Maven Central for the
Hadoop version PySpark ships (SPOOL_SPARK_S3_JARS: their paths,
comma-separated); skipped without them.

A Spark job (local[2]) spreads the inputs of test_spark_partition.py (CSV
with quoted fields holding commas, quotes and line breaks; keys that need
escaping in a name) over 4 tasks; each calls
`spool.partition(out='s3://…', run_id=…, append=True)` on its share. Spark then reads `s3a://…` back with Hive partition
discovery: per key, exactly the input's rows (as multisets), and every
object the rows of its task and key in input order, as the task's
manifest lists them.
"""
import collections
import os
import urllib.parse
import uuid

import pytest

pyspark = pytest.importorskip("pyspark")
boto3 = pytest.importorskip("boto3")
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

# The inputs (eight CSV files of quoted fields and keys to escape) and the
# task (its share into `out` as run `p<partition id>`, appending), and
# each key's ids in a task's input order, are the local test's.
from test_spark_partition import CSV, INPUTS, ROWS, ids_by_key, inputs, spool_task  # noqa: E402,F401

JARS = os.environ.get("SPOOL_SPARK_S3_JARS")
ENDPOINT = os.environ.get("AWS_ENDPOINT_URL")
pytestmark = pytest.mark.skipif(
    not (JARS and ENDPOINT), reason="needs scripts/test-spark-s3.sh (an S3 server and hadoop-aws)"
)


@pytest.fixture(scope="module")
def spark():
    session = (
        SparkSession.builder.master("local[2]")
        .appName("spool-spark-s3")
        .config("spark.ui.enabled", "false")
        .config("spark.jars", JARS)
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .config("spark.hadoop.fs.s3a.endpoint", ENDPOINT)
        .config("spark.hadoop.fs.s3a.endpoint.region", os.environ.get("AWS_REGION", "us-east-1"))
        .config("spark.hadoop.fs.s3a.path.style.access", "true")
        .config("spark.hadoop.fs.s3a.connection.ssl.enabled", "false")
        .config("spark.hadoop.fs.s3a.access.key", os.environ["AWS_ACCESS_KEY_ID"])
        .config("spark.hadoop.fs.s3a.secret.key", os.environ["AWS_SECRET_ACCESS_KEY"])
        .config(
            "spark.hadoop.fs.s3a.aws.credentials.provider",
            "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        )
        .getOrCreate()
    )
    yield session
    session.stop()


def test_spark_tasks_write_s3_and_spark_reads_it_through_s3a(spark, inputs):
    bucket = f"spool-spark-{uuid.uuid4().hex[:12]}"
    s3 = boto3.client("s3", endpoint_url=ENDPOINT)
    s3.create_bucket(Bucket=bucket)
    out = f"s3://{bucket}/events/"
    runs = spark.sparkContext.parallelize(inputs, 4).mapPartitions(spool_task(out)).collect()
    assert len(runs) == 4
    assert sorted(f for _, files, _ in runs for f in files) == inputs
    assert sum(s["records"] for _, _, s in runs) == INPUTS * ROWS
    # Every run committed: its manifest, and nothing of its staging left.
    listed = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
              for o in page.get("Contents", [])]
    assert sorted(k for k in listed if k.startswith("events/_")) == sorted(
        f"events/_partitions-{run_id}.tsv" for run_id, _, _ in runs
    )
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []

    # Per key, the input's rows, as multisets.
    base = f"s3a://{bucket}/events/"
    got = spark.read.options(**CSV).option("basePath", base).csv(base)
    want = spark.read.options(**CSV).csv(inputs)
    columns = ["key", "id", "amount", "note"]
    assert got.count() == INPUTS * ROWS
    assert got.select(columns).exceptAll(want.select(columns)).count() == 0
    assert want.select(columns).exceptAll(got.select(columns)).count() == 0

    # Every object: its task's rows of its key, in input order, as many as
    # the task's manifest says.
    per_object = collections.defaultdict(list)
    for row in got.withColumn("file", F.input_file_name()).select("file", "id").collect():
        per_object[row["file"]].append(row["id"])
    expected = {}
    for run_id, files, summary in runs:
        order = ids_by_key(files)
        for group in summary["groups"]:
            assert group["path"].startswith(out) and run_id in group["path"]
            ids = order[group["key"].decode()]
            assert len(ids) == group["records"]
            expected[group["path"]] = ids
    # input_file_name() is the s3a URI, percent-encoded.
    got_order = {
        "s3://" + urllib.parse.unquote(f.removeprefix("s3a://")): ids for f, ids in per_object.items()
    }
    assert got_order.keys() == expected.keys()
    for path, ids in got_order.items():
        assert ids == expected[path], path
