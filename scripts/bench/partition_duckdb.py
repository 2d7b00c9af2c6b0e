"""Peer for `spool partition`: DuckDB's COPY ... PARTITION_BY.

usage: partition_duckdb.py INPUT OUT none|zstd|gzip THREADS [tsv|csv]

tsv (the default): tab-separated, no quoting; csv: RFC 4180, comma-separated
with quoted fields, written back with DuckDB's own quoting.
"""
import sys

import duckdb

src, out, compression, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
csv = len(sys.argv) > 5 and sys.argv[5] == "csv"
dialect = "DELIMITER ',', QUOTE '\"'" if csv else "DELIMITER '\t'"
read = "delim=',', quote='\"', escape='\"'" if csv else "delim='\t'"
con = duckdb.connect()
con.execute(f"SET threads = {threads}")
options = f"FORMAT csv, {dialect}, HEADER false, PARTITION_BY (column0)"
if compression != "none":
    options += f", COMPRESSION {compression}"
con.execute(
    f"COPY (SELECT * FROM read_csv('{src}', {read}, header=false, all_varchar=true)) "
    f"TO '{out}' ({options})"
)
