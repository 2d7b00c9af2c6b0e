"""Peers for `spool partition --format parquet`, and the check of any output.

usage: partition_parquet.py duckdb|polars|pyarrow INPUT OUT THREADS [MEMORY_MB]
       partition_parquet.py check INPUT|OUT

INPUT is the benchmark's CSV (gen-csv: RFC 4180, no header; key, int64 id,
timestamp, colour, text), read with typed columns by every peer: col2 int64,
col3 timestamp, the rest strings. Each peer writes OUT as a Hive-partitioned
Parquet dataset by col1 (OUT/col1=KEY/...), zstd, the key left out of the
files. duckdb with MEMORY_MB runs under SET memory_limit.

check prints "ROWS KEYS SUM(col2) SUM(length(col5))" of the CSV INPUT, or of
the dataset OUT read back with hive partitioning (by DuckDB), so a run is
only counted when its output holds every input row.
"""
import os
import sys

NAMES = ["col1", "col2", "col3", "col4", "col5"]
CHECK = "count(*), count(distinct col1), sum(col2), sum(length(col5))"


def duckdb_csv(path):
    types = "{" + ", ".join(
        f"'{n}': '{t}'" for n, t in zip(NAMES, ["VARCHAR", "BIGINT", "TIMESTAMP", "VARCHAR", "VARCHAR"])
    ) + "}"
    return f"read_csv('{path}', delim=',', quote='\"', escape='\"', header=false, columns={types})"


def check(path):
    import duckdb

    if os.path.isdir(path):
        source = f"read_parquet('{path}/**/*.parquet', hive_partitioning=true)"
    else:
        source = duckdb_csv(path)
    row = duckdb.connect().execute(f"SELECT {CHECK} FROM {source}").fetchone()
    print(" ".join(str(v) for v in row))


def duckdb_peer(src, out, threads, memory_mb):
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    # Spilled data goes beside the output, not into the working directory.
    con.execute(f"SET temp_directory = '{os.path.dirname(os.path.abspath(out))}/duckdb-tmp'")
    if memory_mb:
        con.execute(f"SET memory_limit = '{memory_mb}MB'")
    con.execute(
        f"COPY (SELECT * FROM {duckdb_csv(src)}) TO '{out}' "
        "(FORMAT PARQUET, COMPRESSION ZSTD, PARTITION_BY (col1))"
    )


def polars_peer(src, out):
    import polars as pl

    lf = pl.scan_csv(
        src,
        has_header=False,
        new_columns=NAMES,
        schema_overrides={"col1": pl.String, "col2": pl.Int64, "col3": pl.Datetime("us"),
                          "col4": pl.String, "col5": pl.String},
    )
    lf.sink_parquet(pl.PartitionBy(out, key="col1", include_key=False), compression="zstd", mkdir=True)


def pyarrow_peer(src, out, threads):
    import pyarrow as pa
    import pyarrow.csv as csv
    import pyarrow.dataset as ds

    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)
    schema = pa.schema([("col1", pa.string()), ("col2", pa.int64()), ("col3", pa.timestamp("us")),
                        ("col4", pa.string()), ("col5", pa.string())])
    reader = csv.open_csv(
        src,
        read_options=csv.ReadOptions(column_names=NAMES),
        parse_options=csv.ParseOptions(delimiter=",", newlines_in_values=True),
        convert_options=csv.ConvertOptions(column_types=schema),
    )
    ds.write_dataset(
        reader, out, format="parquet",
        partitioning=ds.partitioning(pa.schema([("col1", pa.string())]), flavor="hive"),
        file_options=ds.ParquetFileFormat().make_write_options(compression="zstd"),
        # The default of 1024 partitions stops larger runs outright; the
        # open-file limit stays at its default (files are closed and new
        # ones started as groups come back).
        max_partitions=1 << 30,
        existing_data_behavior="overwrite_or_ignore",
    )


def main():
    tool = sys.argv[1]
    if tool == "check":
        check(sys.argv[2])
        return
    src, out, threads = sys.argv[2], sys.argv[3], int(sys.argv[4])
    if tool == "duckdb":
        duckdb_peer(src, out, threads, int(sys.argv[5]) if len(sys.argv) > 5 else 0)
    elif tool == "polars":
        os.environ.setdefault("POLARS_MAX_THREADS", str(threads))
        polars_peer(src, out)
    elif tool == "pyarrow":
        pyarrow_peer(src, out, threads)
    else:
        sys.exit(f"unknown tool {tool}")


if __name__ == "__main__":
    main()
