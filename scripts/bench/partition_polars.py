"""Peer for `spool partition`: Polars' sink_csv with PartitionBy.

usage: partition_polars.py INPUT OUT none|zstd|gzip   (POLARS_MAX_THREADS sets threads)
"""
import sys

import polars as pl

src, out, compression = sys.argv[1], sys.argv[2], sys.argv[3]
lf = pl.scan_csv(src, separator="\t", has_header=False, infer_schema=False)
lf.sink_csv(
    pl.PartitionBy(out, key="column_0"),
    separator="\t",
    include_header=False,
    compression="uncompressed" if compression == "none" else compression,
    check_extension=False,
    mkdir=True,
)
