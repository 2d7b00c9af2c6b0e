"""Peer for `spool partition`: Polars' sink_csv with PartitionBy.

usage: partition_polars.py INPUT OUT none|zstd|gzip [tsv|csv]
(POLARS_MAX_THREADS sets threads; csv: RFC 4180, comma-separated, quoted)
"""
import sys

import polars as pl

src, out, compression = sys.argv[1], sys.argv[2], sys.argv[3]
separator = "," if len(sys.argv) > 4 and sys.argv[4] == "csv" else "\t"
lf = pl.scan_csv(src, separator=separator, has_header=False, infer_schema=False)
lf.sink_csv(
    pl.PartitionBy(out, key="column_0"),
    separator=separator,
    include_header=False,
    compression="uncompressed" if compression == "none" else compression,
    check_extension=False,
    mkdir=True,
)
