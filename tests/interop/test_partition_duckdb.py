"""`spool partition` output read back by DuckDB as a Hive-partitioned
dataset: every key (including ones that need escaping, and the empty key,
which Hive readers turn into NULL) has exactly its records, and the
compressed outputs read the same.

The spool binary is taken from $SPOOL_BIN (default target/release/spool).
"""
import collections
import os
import pathlib
import random
import subprocess

import duckdb
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
KEYS = ["alpha", "beta", "x=y", "a b", "ü", "", "p/q", "50%", "..", "k:1", "#tag"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    rng = random.Random(7)
    path = tmp_path_factory.mktemp("in") / "in.tsv"
    counts = collections.Counter()
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for i in range(20_000):
            key = rng.choice(KEYS)
            counts[key] += 1
            f.write(f"{key}\t{i}\tpayload {i * 7}\n")
    return path, counts


@pytest.mark.parametrize("compress,ext", [("none", "tsv"), ("zstd", "tsv.zst"), ("gzip", "tsv.gz")])
def test_duckdb_reads_hive_output(sample, tmp_path, compress, ext):
    path, counts = sample
    out = tmp_path / "out"
    subprocess.run(
        [SPOOL, "partition", "--by", "1", "--compress", compress, "--max-open", "3", "--out", str(out), str(path)],
        check=True,
        capture_output=True,
    )
    rows = duckdb.sql(
        f"SELECT col1, count(*), min(column1::INTEGER), max(column1::INTEGER) "
        f"FROM read_csv('{out}/*/*.{ext}', delim='\t', header=false, hive_partitioning=true, all_varchar=true) "
        f"GROUP BY col1"
    ).fetchall()
    got = {("" if key is None else key): n for key, n, _, _ in rows}
    assert got == dict(counts)
    # The key column inside each file agrees with its directory.
    mismatched = duckdb.sql(
        f"SELECT count(*) FROM read_csv('{out}/*/*.{ext}', delim='\t', header=false, "
        f"hive_partitioning=true, all_varchar=true) WHERE coalesce(column0, '') <> coalesce(col1, '')"
    ).fetchall()[0][0]
    assert mismatched == 0
