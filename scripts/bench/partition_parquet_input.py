"""Peers for re-partitioning a Parquet dataset, its generator, and the
check of any output.

usage: partition_parquet_input.py gen DIR ROWS KEYS
       partition_parquet_input.py gen-ndjson DIR PARQUET_DIR
       partition_parquet_input.py duckdb|polars|pyarrow DIR OUT THREADS
       partition_parquet_input.py check DIR|OUT

gen writes DIR/part-0.parquet ... part-9.parquet (PyArrow, zstd, row
groups of 100,000 rows): ROWS rows in all of 20 columns of mixed types
(a string key of KEYS values; integers of 8 to 64 bits, floats, a decimal,
a date, timestamps with and without a zone, booleans, a dictionary-like
string, free text, binary), deterministic. gen-ndjson writes the same
rows of a gen dataset as JSON lines (DuckDB's writer), one .ndjson file per
Parquet file, with the columns JSON holds as such (NDJSON_COLUMNS: numbers,
a date and timestamp as text, booleans, strings); spool and DuckDB are
given their types, Polars infers them. Each peer reads DIR's
files (Parquet, or NDJSON if DIR holds .ndjson files) and writes OUT as a
Hive-partitioned Parquet dataset by `key`, zstd, the key left out of the
files. check prints "ROWS KEYS SUM(i64) SUM(length(text))" of DIR or of the
dataset OUT read back by DuckDB with hive partitioning, so a run counts
only when its output holds every input row.
"""
import os
import sys

CHECK = "count(*), count(distinct key), sum(i64), sum(length(text))"

# The NDJSON dataset's columns, and the --schema spool reads their types
# with (the peers infer them).
NDJSON_COLUMNS = "key, i32, i64, u32, f64, f64b, day, ts, flag, colour, text, small, code"
NDJSON_SCHEMA = "i32:int64,i64:int64,u32:int64,f64:float64,f64b:float64,day:date,ts:timestamp,flag:bool,small:int64"


# DuckDB is told the same types: left to infer them from a sample, it
# takes the timestamps' format from values with fractional seconds and
# fails on the first one without.
NDJSON_DUCKDB_COLUMNS = (
    "{key: 'VARCHAR', i32: 'BIGINT', i64: 'BIGINT', u32: 'BIGINT', f64: 'DOUBLE', f64b: 'DOUBLE', "
    "day: 'DATE', ts: 'TIMESTAMP', flag: 'BOOLEAN', colour: 'VARCHAR', text: 'VARCHAR', "
    "small: 'BIGINT', code: 'VARCHAR'}"
)


def ndjson(src):
    return any(name.endswith(".ndjson") for name in os.listdir(src))


def gen_ndjson(out, parquet_dir):
    import duckdb

    os.makedirs(out, exist_ok=True)
    con = duckdb.connect()
    for f in range(10):
        con.execute(
            f"COPY (SELECT {NDJSON_COLUMNS} FROM read_parquet('{parquet_dir}/part-{f}.parquet')) "
            f"TO '{out}/part-{f}.ndjson' (FORMAT JSON)"
        )


def gen(out, rows, keys):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    os.makedirs(out, exist_ok=True)
    per = rows // 10
    for f in range(10):
        def rnd(scale, seed):
            return pc.multiply(pc.random(per, initializer=f * 100 + seed), scale)

        def ints(scale, seed, t):
            return pc.cast(pc.floor(rnd(scale, seed)), t)

        key = pc.binary_join_element_wise("key-", pc.cast(ints(keys, 1, pa.int64()), pa.string()), "")
        text = pc.binary_join_element_wise("some free text ", pc.cast(ints(10**9, 2, pa.int64()), pa.string()), "")
        colour = pc.binary_join_element_wise("colour-", pc.cast(ints(12, 3, pa.int64()), pa.string()), "")
        micros = ints(2 * 10**15, 4, pa.int64())
        table = pa.table({
            "key": key,
            "i8": ints(250, 5, pa.int64()).cast(pa.int16()).cast(pa.int8(), safe=False),
            "i16": ints(60000, 6, pa.int32()).cast(pa.int16(), safe=False),
            "i32": ints(2**31 - 1, 7, pa.int32()),
            "i64": ints(10**12, 8, pa.int64()),
            "u32": ints(2**32 - 1, 9, pa.uint32()),
            "u64": ints(2**53, 10, pa.uint64()),
            "f32": rnd(1e6, 11).cast(pa.float32()),
            "f64": rnd(1e9, 12),
            "f64b": rnd(1.0, 13),
            "dec": pc.cast(pc.divide(ints(10**12, 14, pa.int64()).cast(pa.float64()), 1000), pa.decimal128(18, 3)),
            "day": ints(20000, 15, pa.int32()).cast(pa.date32()),
            "ts": micros.cast(pa.timestamp("us")),
            "ts_utc": pc.multiply(micros, 1000).cast(pa.timestamp("ns", tz="UTC")),
            "flag": pc.less(rnd(1.0, 16), 0.5),
            "colour": colour,
            "text": text,
            "small": ints(100, 17, pa.int64()),
            "code": pc.cast(ints(10**6, 18, pa.int64()), pa.string()),
            "blob": pc.cast(pc.cast(ints(10**6, 19, pa.int64()), pa.string()), pa.binary()),
        })
        pq.write_table(table, f"{out}/part-{f}.parquet", compression="zstd", row_group_size=100_000)


def check(path):
    import duckdb

    hive = "true" if any(e.is_dir() for e in os.scandir(path)) else "false"
    source = f"read_parquet('{path}/**/*.parquet', hive_partitioning={hive})"
    if ndjson(path):
        source = f"read_ndjson('{path}/*.ndjson')"
    row = duckdb.connect().execute(f"SELECT {CHECK} FROM {source}").fetchone()
    print(" ".join(str(v) for v in row))


def duckdb_peer(src, out, threads, partitioned=True):
    """DuckDB's COPY, partitioned by the key; or, as a floor for the
    partitioned runs, the same rows written whole into one file."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute(f"SET temp_directory = '{os.path.dirname(os.path.abspath(out))}/duckdb-tmp'")
    source = f"read_parquet('{src}/*.parquet')"
    if ndjson(src):
        source = f"read_ndjson('{src}/*.ndjson', columns = {NDJSON_DUCKDB_COLUMNS})"
    if partitioned:
        con.execute(
            f"COPY (SELECT * FROM {source}) TO '{out}' "
            "(FORMAT PARQUET, COMPRESSION ZSTD, PARTITION_BY (key))"
        )
    else:
        os.makedirs(out)
        con.execute(f"COPY (SELECT * FROM {source}) TO '{out}/all.parquet' (FORMAT PARQUET, COMPRESSION ZSTD)")


def polars_peer(src, out):
    import polars as pl

    lf = pl.scan_ndjson(f"{src}/*.ndjson") if ndjson(src) else pl.scan_parquet(f"{src}/*.parquet")
    lf.sink_parquet(pl.PartitionBy(out, key="key", include_key=False), compression="zstd", mkdir=True)


def pyarrow_peer(src, out, threads):
    import pyarrow as pa
    import pyarrow.dataset as ds

    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)
    ds.write_dataset(
        ds.dataset(src, format="json" if ndjson(src) else "parquet"), out, format="parquet",
        partitioning=ds.partitioning(pa.schema([("key", pa.string())]), flavor="hive"),
        file_options=ds.ParquetFileFormat().make_write_options(compression="zstd"),
        max_partitions=1 << 30,
        existing_data_behavior="overwrite_or_ignore",
    )


def main():
    tool = sys.argv[1]
    if tool == "gen":
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif tool == "gen-ndjson":
        gen_ndjson(sys.argv[2], sys.argv[3])
    elif tool == "schema":
        print(NDJSON_SCHEMA)
    elif tool == "check":
        check(sys.argv[2])
    else:
        src, out, threads = sys.argv[2], sys.argv[3], int(sys.argv[4])
        if tool == "duckdb":
            duckdb_peer(src, out, threads)
        elif tool == "duckdb-copy":
            duckdb_peer(src, out, threads, partitioned=False)
        elif tool == "polars":
            os.environ.setdefault("POLARS_MAX_THREADS", str(threads))
            polars_peer(src, out)
        elif tool == "pyarrow":
            pyarrow_peer(src, out, threads)
        else:
            sys.exit(f"unknown tool {tool}")


if __name__ == "__main__":
    main()
