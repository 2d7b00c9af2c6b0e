"""`spool partition` reading its inputs from S3 (the server scripts/s3-server.sh
started: AWS_ENDPOINT_URL and keys in the environment) and from an HTTP
server with Range support (started here): CSV (some gzip), NDJSON and
Parquet objects (a hive dataset written by PyArrow) into a local dataset and
into another bucket, each key's rows compared as multisets with what the
objects held; a glob on keys; an object written again during the run; a
missing bucket and an empty prefix.

The spool binary is taken from $SPOOL_BIN (default target/release/spool).
"""
import collections
import gzip
import hashlib
import http.server
import io
import json
import os
import pathlib
import subprocess
import threading
import time
import uuid

import boto3
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
ENDPOINT = os.environ["AWS_ENDPOINT_URL"]
KEYS = ["alpha", "beta", "gamma", "a b", "ü"]


@pytest.fixture(scope="module")
def s3():
    return boto3.client("s3", endpoint_url=ENDPOINT)


def new_bucket(s3):
    name = f"spool-in-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


def spool(*args, check=True, **kw):
    return subprocess.run([SPOOL, "partition", *map(str, args)], capture_output=True, text=True,
                          check=check, **kw)


def csv_objects(s3, bucket, prefix, count=6, rows=800):
    """CSV objects under `prefix` (every other one gzip), a `_SUCCESS` and a
    hidden object beside them; each key's rows (as tuples) over all objects."""
    by_key = collections.defaultdict(list)
    for n in range(count):
        lines = ["key,seq,note"]
        for i in range(rows):
            key = KEYS[(n * 7 + i * 3) % len(KEYS)]
            row = (key, str(n * rows + i), f"n{i % 11}")
            lines.append(",".join(row))
            by_key[key].append(row)
        body = ("\n".join(lines) + "\n").encode()
        name = f"{prefix}part-{n:02}.csv"
        if n % 2:
            body, name = gzip.compress(body), name + ".gz"
        s3.put_object(Bucket=bucket, Key=name, Body=body)
    s3.put_object(Bucket=bucket, Key=f"{prefix}_SUCCESS", Body=b"")
    s3.put_object(Bucket=bucket, Key=f"{prefix}.hidden.csv", Body=b"key,seq,note\nhidden,0,x\n")
    return by_key


def local_rows(out):
    """Each key's rows in a local CSV hive dataset (key directories)."""
    got = collections.defaultdict(list)
    for path in pathlib.Path(out).glob("key=*/*.csv"):
        lines = path.read_text().splitlines()
        assert lines[0] == "key,seq,note"
        for line in lines[1:]:
            row = tuple(line.split(","))
            got[row[0]].append(row)
    return got


def s3_rows(s3, bucket, prefix):
    got = collections.defaultdict(list)
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    for o in (o for page in pages for o in page.get("Contents", [])):
        if not o["Key"].endswith(".csv"):
            continue
        lines = s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read().decode().splitlines()
        for line in lines[1:]:
            row = tuple(line.split(","))
            got[row[0]].append(row)
    return got


def same(got, want):
    assert sorted(got) == sorted(want)
    for key in want:
        assert sorted(got[key]) == sorted(want[key]), key


def test_csv_objects_to_a_local_dataset_and_to_another_bucket(s3, tmp_path):
    raw, clean = new_bucket(s3), new_bucket(s3)
    want = csv_objects(s3, raw, "2026/")
    args = ["--by", "key", "--header", "--delimiter", "comma"]
    spool(*args, "-o", tmp_path / "out", f"s3://{raw}/2026/")
    same(local_rows(tmp_path / "out"), want)
    spool(*args, "-o", f"s3://{clean}/ds/", f"s3://{raw}/2026/")
    same(s3_rows(s3, clean, "ds/"), want)
    # A glob on keys: the gzip objects only.
    spool(*args, "-o", tmp_path / "gz", f"s3://{raw}/2026/*.csv.gz")
    gz = collections.defaultdict(list)
    for n in range(1, 6, 2):
        body = gzip.decompress(s3.get_object(Bucket=raw, Key=f"2026/part-{n:02}.csv.gz")["Body"].read())
        for line in body.decode().splitlines()[1:]:
            gz[line.split(",")[0]].append(tuple(line.split(",")))
    same(local_rows(tmp_path / "gz"), gz)
    # One object by its key, beside a local file, in one run.
    local = tmp_path / "local.csv"
    local.write_text("key,seq,note\nalpha,-1,local\n")
    spool(*args, "-o", tmp_path / "mixed", local, f"s3://{raw}/2026/part-00.csv")
    mixed = local_rows(tmp_path / "mixed")
    assert ("alpha", "-1", "local") in mixed["alpha"]
    assert sum(len(v) for v in mixed.values()) == 801


def parquet_dataset(s3, bucket, tmp_path):
    """A hive dataset (year=…/) written by PyArrow, uploaded under ds/."""
    n = 3000
    table = pa.table({
        "key": [KEYS[i % len(KEYS)] for i in range(n)],
        "seq": pa.array(range(n), pa.int64()),
        "price": pa.array([i / 4 for i in range(n)], pa.float64()),
        "year": [str(2024 + i % 3) for i in range(n)],
    })
    local = tmp_path / "pq"
    pq.write_to_dataset(table, local, partition_cols=["year"], row_group_size=500)
    for path in sorted(local.rglob("*.parquet")):
        s3.upload_file(str(path), bucket, f"ds/{path.relative_to(local)}")
    s3.put_object(Bucket=bucket, Key="ds/_SUCCESS", Body=b"")
    return table


def rows_of(table):
    cols = ["key", "seq", "price", "year"]
    t = table.select(cols).to_pydict()
    return sorted(zip(*(map(str, t[c]) for c in cols)))


def test_parquet_objects_with_hive_keys_to_parquet_and_to_csv(s3, tmp_path):
    raw, clean = new_bucket(s3), new_bucket(s3)
    table = parquet_dataset(s3, raw, tmp_path)
    spool("--by", "key", "--format", "parquet", "-o", f"s3://{clean}/by-key/", f"s3://{raw}/ds/")
    local = tmp_path / "down"
    for o in s3.list_objects_v2(Bucket=clean, Prefix="by-key/")["Contents"]:
        if o["Key"].endswith(".parquet"):
            target = local / o["Key"]
            target.parent.mkdir(parents=True, exist_ok=True)
            s3.download_file(clean, o["Key"], str(target))
    got = ds.dataset(local / "by-key", format="parquet", partitioning="hive").to_table()
    assert got.schema.field("seq").type == pa.int64()
    assert got.schema.field("price").type == pa.float64()
    assert rows_of(got) == rows_of(table)
    spool("--by", "key", "--delimiter", "comma", "-o", tmp_path / "csv", f"s3://{raw}/ds/")
    parts = [pacsv.read_csv(p, convert_options=pacsv.ConvertOptions(
        column_types={"year": pa.string(), "seq": pa.int64(), "price": pa.float64()}))
        for p in sorted((tmp_path / "csv").glob("key=*/*.csv"))]
    assert rows_of(pa.concat_tables(parts)) == rows_of(table)


def test_ndjson_objects(s3, tmp_path):
    raw = new_bucket(s3)
    want = collections.defaultdict(list)
    for n in range(2):
        lines = []
        for i in range(300):
            key = KEYS[(i + n) % len(KEYS)]
            lines.append(json.dumps({"key": key, "seq": n * 300 + i, "tag": {"a": i % 3}}))
            want[key].append(str(n * 300 + i))
        s3.put_object(Bucket=raw, Key=f"events/{n}.ndjson", Body=("\n".join(lines) + "\n").encode())
    spool("--by", "key", "--delimiter", "comma", "-o", tmp_path / "out", f"s3://{raw}/events/")
    got = collections.defaultdict(list)
    for path in (tmp_path / "out").glob("key=*/*.csv"):
        table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types={"seq": pa.string()}))
        for key, seq in zip(table["key"].to_pylist(), table["seq"].to_pylist()):
            got[key].append(seq)
    assert {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in want.items()}
    # Into Parquet the lines are decoded as record batches (read from the
    # bucket in pieces, on two threads): the same rows, in input order per
    # key, `seq` typed, the nested value as its JSON text.
    spool("--by", "key", "--format", "parquet", "--schema", "seq:int64", "-o", tmp_path / "pq",
          f"s3://{raw}/events/")
    table = ds.dataset(tmp_path / "pq", format="parquet", partitioning="hive").to_table()
    assert table.schema.field("seq").type == pa.int64()
    got = collections.defaultdict(list)
    for key, seq, tag in zip(table["key"].to_pylist(), table["seq"].to_pylist(), table["tag"].to_pylist()):
        got[key].append(str(seq))
        assert json.loads(tag) == {"a": (seq % 300) % 3}
    assert {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in want.items()}


def test_an_object_written_again_during_the_run_fails_it(s3, tmp_path):
    raw, clean = new_bucket(s3), new_bucket(s3)
    for n in range(12):
        s3.put_object(Bucket=raw, Key=f"in/{n:02}.csv", Body=b"key,seq,note\nalpha,1,x\n")
    # Standard input first: the objects are listed before it is read, and
    # while it is open only the first object beside it is open and the
    # next eight have their first bytes read early: the last object is not
    # read before standard input ends.
    run = subprocess.Popen([SPOOL, "partition", "--by", "key", "--header", "--delimiter", "comma",
                            "-o", f"s3://{clean}/ds/", "-", f"s3://{raw}/in/"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run.stdin.write("key,seq,note\nbeta,2,y\n")
    run.stdin.flush()
    time.sleep(1.0)
    s3.put_object(Bucket=raw, Key="in/11.csv", Body=b"key,seq,note\nalpha,1,changed\n")
    _, err = run.communicate()
    assert run.returncode == 2, err
    assert f"s3://{raw}/in/11.csv" in err and "changed during the run" in err, err
    assert s3.list_objects_v2(Bucket=clean).get("KeyCount", 0) == 0
    assert s3.list_multipart_uploads(Bucket=clean).get("Uploads") is None


def test_a_missing_bucket_or_no_objects_is_a_clear_error(s3, tmp_path):
    missing = f"spool-none-{uuid.uuid4().hex[:8]}"
    r = spool("--by", "1", "-o", tmp_path / "a", f"s3://{missing}/x/", check=False)
    assert r.returncode == 2 and f"s3://{missing}/x/: cannot be listed" in r.stderr, r.stderr
    assert "NoSuchBucket" in r.stderr, r.stderr
    raw = new_bucket(s3)
    s3.put_object(Bucket=raw, Key="in/_SUCCESS", Body=b"")
    r = spool("--by", "1", "-o", tmp_path / "b", f"s3://{raw}/in/", check=False)
    assert r.returncode == 2 and f"s3://{raw}/in/: no object under the prefix" in r.stderr, r.stderr
    r = spool("--by", "1", "-o", tmp_path / "c", f"s3://{raw}/in/*.csv", check=False)
    assert r.returncode == 2 and "no object matches the pattern" in r.stderr, r.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


class RangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves `files` (name → bytes) with ETags, If-Match and single ranges."""
    files = {}
    ranges = []

    def log_message(self, *args):
        pass

    def head(self, send_body):
        body = self.files.get(self.path.lstrip("/"))
        if body is None:
            self.send_error(404)
            return
        tag = '"' + hashlib.md5(body).hexdigest() + '"'
        if self.headers.get("If-Match") not in (None, tag):
            self.send_error(412)
            return
        start, end, status = 0, len(body), 200
        wanted = self.headers.get("Range")
        if wanted:
            a, b = wanted.removeprefix("bytes=").split("-")
            start, end, status = int(a), min(int(b) + 1, len(body)), 206
            self.ranges.append((start, end))
        self.send_response(status)
        self.send_header("ETag", tag)
        self.send_header("Content-Length", str(end - start))
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(body)}")
        self.end_headers()
        if send_body:
            self.wfile.write(body[start:end])

    def do_HEAD(self):
        self.head(False)

    def do_GET(self):
        self.head(True)


@pytest.fixture
def web():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    RangeHandler.files, RangeHandler.ranges = {}, []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_http_urls_csv_and_parquet(web, tmp_path):
    lines = ["key,seq,note"] + [f"{KEYS[i % 5]},{i},n" for i in range(2000)]
    RangeHandler.files["a.csv.gz"] = gzip.compress(("\n".join(lines) + "\n").encode())
    n = 200_000
    table = pa.table({"key": [KEYS[i % 5] for i in range(n)], "seq": pa.array(range(n), pa.int64())})
    sink = io.BytesIO()
    pq.write_table(table, sink, row_group_size=50_000, compression="none")
    RangeHandler.files["t.parquet"] = sink.getvalue()
    spool("--by", "key", "--header", "--delimiter", "comma", "-o", tmp_path / "csv", f"{web}/a.csv.gz")
    got = local_rows(tmp_path / "csv")
    assert sorted(r[1] for v in got.values() for r in v) == sorted(str(i) for i in range(2000))
    RangeHandler.ranges.clear()
    spool("--by", "key", "--format", "parquet", "-o", tmp_path / "pq", f"{web}/t.parquet")
    # Ranged reads, none of the whole object.
    assert RangeHandler.ranges and all(b - a < len(sink.getvalue()) for a, b in RangeHandler.ranges)
    out = ds.dataset(tmp_path / "pq", format="parquet", partitioning="hive").to_table()
    assert sorted(out["seq"].to_pylist()) == list(range(n))
    r = spool("--by", "key", "-o", tmp_path / "none", f"{web}/missing.csv", check=False)
    assert r.returncode == 2 and f"{web}/missing.csv: cannot be read" in r.stderr, r.stderr
