"""Peers for `spool partition --out s3://…`: Polars' partitioned sinks and
PyArrow's write_dataset, writing a CSV's rows by its first column to S3
(AWS_ENDPOINT_URL and keys from the environment).

usage: partition_s3_peers.py polars-parquet|polars-csv-zstd|pyarrow-parquet INPUT BUCKET PREFIX
"""
import os
import sys

tool, src, bucket, prefix = sys.argv[1:5]
endpoint = os.environ["AWS_ENDPOINT_URL"]
if tool.startswith("polars"):
    import polars as pl

    storage = {"aws_endpoint_url": endpoint, "aws_access_key_id": os.environ["AWS_ACCESS_KEY_ID"],
               "aws_secret_access_key": os.environ["AWS_SECRET_ACCESS_KEY"],
               "aws_region": os.environ.get("AWS_REGION", "us-east-1"), "aws_allow_http": "true"}
    lf = pl.scan_csv(src, has_header=False, infer_schema=False)
    target = pl.PartitionBy(f"s3://{bucket}/{prefix}/", key="column_1")
    if tool == "polars-parquet":
        lf.sink_parquet(target, compression="zstd", storage_options=storage)
    else:
        lf.sink_csv(target, include_header=False, compression="zstd", check_extension=False,
                    storage_options=storage)
elif tool == "pyarrow-parquet":
    import pyarrow.csv as pcsv
    import pyarrow.dataset as ds
    import pyarrow.fs as pafs

    host = endpoint.split("://", 1)[1]
    fs = pafs.S3FileSystem(endpoint_override=host, scheme="http", region=os.environ.get("AWS_REGION", "us-east-1"))
    import pyarrow as pa

    reader = pcsv.open_csv(src, read_options=pcsv.ReadOptions(autogenerate_column_names=True),
                           parse_options=pcsv.ParseOptions(newlines_in_values=True),
                           convert_options=pcsv.ConvertOptions(column_types={"f0": pa.string()}))
    part = ds.partitioning(pa.schema([reader.schema.field("f0")]), flavor="hive")
    ds.write_dataset(reader, f"{bucket}/{prefix}", filesystem=fs, format="parquet", partitioning=part,
                     max_partitions=100_000, max_open_files=2_000,
                     file_options=ds.ParquetFileFormat().make_write_options(compression="zstd"))
else:
    sys.exit(f"unknown tool {tool}")
