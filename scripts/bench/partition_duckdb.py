"""Peer for `spool partition`: DuckDB's COPY ... PARTITION_BY.

usage: partition_duckdb.py INPUT OUT none|zstd|gzip THREADS
"""
import sys

import duckdb

src, out, compression, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
con = duckdb.connect()
con.execute(f"SET threads = {threads}")
options = "FORMAT csv, DELIMITER '\t', HEADER false, PARTITION_BY (column0)"
if compression != "none":
    options += f", COMPRESSION {compression}"
con.execute(
    f"COPY (SELECT * FROM read_csv('{src}', delim='\t', header=false, all_varchar=true)) "
    f"TO '{out}' ({options})"
)
