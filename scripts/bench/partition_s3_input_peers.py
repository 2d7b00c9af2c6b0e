"""Peers for `spool partition 's3://…' --out s3://…`: PyArrow's dataset on
S3FileSystem and Polars' scan_csv on an S3 glob, reading CSV objects (no
header, the key in column 1) from one bucket and writing a hive-partitioned
Parquet dataset (zstd) into another, on the server AWS_ENDPOINT_URL names.

usage: partition_s3_input_peers.py pyarrow|polars SOURCE_BUCKET SOURCE_PREFIX BUCKET PREFIX
"""
import os
import sys

tool, src_bucket, src_prefix, bucket, prefix = sys.argv[1:6]
endpoint = os.environ["AWS_ENDPOINT_URL"]
region = os.environ.get("AWS_REGION", "us-east-1")
if tool == "polars":
    import polars as pl

    storage = {"aws_endpoint_url": endpoint, "aws_access_key_id": os.environ["AWS_ACCESS_KEY_ID"],
               "aws_secret_access_key": os.environ["AWS_SECRET_ACCESS_KEY"],
               "aws_region": region, "aws_allow_http": "true"}
    lf = pl.scan_csv(f"s3://{src_bucket}/{src_prefix}/*.csv", has_header=False, infer_schema=False,
                     storage_options=storage)
    lf.sink_parquet(pl.PartitionBy(f"s3://{bucket}/{prefix}/", key="column_1"), compression="zstd",
                    storage_options=storage)
elif tool == "pyarrow":
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.dataset as ds
    import pyarrow.fs as pafs

    fs = pafs.S3FileSystem(endpoint_override=endpoint.split("://", 1)[1], scheme="http", region=region)
    csv = ds.CsvFileFormat(read_options=pcsv.ReadOptions(autogenerate_column_names=True),
                           parse_options=pcsv.ParseOptions(newlines_in_values=True),
                           convert_options=pcsv.ConvertOptions(column_types={"f0": pa.string()}))
    source = ds.dataset(f"{src_bucket}/{src_prefix}", filesystem=fs, format=csv)
    part = ds.partitioning(pa.schema([source.schema.field("f0")]), flavor="hive")
    ds.write_dataset(source, f"{bucket}/{prefix}", filesystem=fs, format="parquet", partitioning=part,
                     max_partitions=100_000, max_open_files=2_000,
                     file_options=ds.ParquetFileFormat().make_write_options(compression="zstd"))
else:
    sys.exit(f"unknown tool {tool}")
