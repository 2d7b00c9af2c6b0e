"""`spool partition --out s3://…` against the S3-compatible server that
scripts/s3-server.sh started (AWS_ENDPOINT_URL and keys in the
environment): round trips per format, compression and layout read back
with boto3, PyArrow's S3FileSystem and Polars, each key's records equal to
the input's in input order; file limits; --append runs; --force; clean.

The spool binary is taken from $SPOOL_BIN (default target/release/spool).
"""
import collections
import gzip
import io
import os
import pathlib
import random
import resource
import subprocess
import time
import uuid

import boto3
import polars as pl
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pytest
import zstandard

from spool_journal import s3_journal, s3_uploads

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
ENDPOINT = os.environ["AWS_ENDPOINT_URL"]
KEYS = ["alpha", "beta", "gamma", "a b", "ü", "k1", "k2"]


@pytest.fixture(scope="module")
def s3():
    return boto3.client("s3", endpoint_url=ENDPOINT)


@pytest.fixture
def bucket(s3):
    name = f"spool-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """A CSV with a header; each key's lines (as written) and seq numbers."""
    rng = random.Random(5)
    path = tmp_path_factory.mktemp("in") / "in.csv"
    lines = collections.defaultdict(list)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("key,seq,shop,note\n")
        for i in range(20_000):
            key = rng.choice(KEYS)
            shop = f"s{rng.randint(0, 3)}"
            line = f"{key},{i},{shop},\"note {i} {'x' * (i % 13)}\"\n"
            f.write(line)
            lines[key].append(line)
    return path, lines


def spool(*args, check=True):
    return subprocess.run([SPOOL, "partition", *map(str, args)], capture_output=True, text=True, check=check)


def csv_args(path, out, *extra):
    return ["--by", "key", "--header", "--delimiter", "comma", "-o", out, *extra, path]


def objects(s3, bucket, prefix=""):
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return sorted(o["Key"] for page in pages for o in page.get("Contents", []))


def manifest_rows(s3, bucket, key):
    text = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode()
    return [line.split("\t") for line in text.splitlines()[1:]]


def decode(raw, compress):
    if compress == "gzip":
        return gzip.decompress(raw)
    if compress == "zstd":
        return zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)).read()
    return raw


def unescape(key):
    return bytes.fromhex("".join(key.split("%")[1:])).decode() if key.startswith("%") else key


@pytest.mark.parametrize("compress", [None, "gzip", "zstd"])
@pytest.mark.parametrize("layout", ["hive", "flat"])
def test_text_round_trip(s3, bucket, sample, compress, layout):
    path, lines = sample
    extra = ["--layout", layout] + (["--compress", compress] if compress else [])
    spool(*csv_args(path, f"s3://{bucket}/data/", *extra))
    rows = manifest_rows(s3, bucket, "data/_partitions.tsv")
    listed = sorted(f"data/{r[2]}" for r in rows)
    assert listed == [k for k in objects(s3, bucket, "data/") if not k.endswith("_partitions.tsv")]
    assert not any("_staging-" in k for k in objects(s3, bucket))
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads") is None
    assert len(rows) == len(KEYS)
    for column, key, relative, records in rows:
        raw = s3.get_object(Bucket=bucket, Key=f"data/{relative}")["Body"].read()
        text = decode(raw, compress).decode()
        assert text.startswith("key,seq,shop,note\n")
        body = text.split("\n", 1)[1].splitlines(keepends=True)
        original = [k for k in KEYS if body and body[0].startswith(k + ",")]
        assert original, relative
        assert body == lines[original[0]], relative
        assert int(records) == len(body)


@pytest.mark.parametrize("compress", ["zstd", "snappy"])
def test_parquet_round_trip_read_by_pyarrow_and_polars(s3, bucket, sample, compress):
    path, lines = sample
    spool(*csv_args(path, f"s3://{bucket}/pq/", "--format", "parquet", "--compress", compress,
                    "--row-group-size", "1000", "--max-rows-per-file", "1500"))
    host = ENDPOINT.split("://", 1)[1]
    fs = pafs.S3FileSystem(endpoint_override=host, scheme="http", access_key="test",
                           secret_key="test", region="us-east-1")
    table = ds.dataset(f"{bucket}/pq", filesystem=fs, format="parquet", partitioning="hive").to_table()
    assert table.num_rows == sum(len(v) for v in lines.values())
    storage = {"aws_endpoint_url": ENDPOINT, "aws_access_key_id": "test",
               "aws_secret_access_key": "test", "aws_region": "us-east-1", "aws_allow_http": "true"}
    rows = manifest_rows(s3, bucket, "pq/_partitions.tsv")
    by_key = collections.defaultdict(list)
    for _, _, relative, records in rows:
        by_key[relative.split("/")[0]].append((relative, int(records)))
    for key, want in lines.items():
        seqs = [int(line.split(",")[1]) for line in want]
        parts = by_key[[d for d in by_key if unescape(d.split("=", 1)[1]) == key or d.split("=", 1)[1] == key][0]]
        assert all(r <= 1500 for _, r in parts)
        # Parts in the manifest's order, rows in file order: the input's order.
        got = []
        for relative, records in parts:
            frame = pl.scan_parquet(f"s3://{bucket}/pq/{relative}", storage_options=storage).collect()
            assert frame.height == records
            got.extend(int(s) for s in frame["seq"].to_list())
        assert got == seqs, key
        pa_seqs = fs.open_input_file(f"{bucket}/pq/{parts[0][0]}")
        assert pa_seqs.size() > 0


def test_append_runs_and_force(s3, bucket, sample):
    path, lines = sample
    out = f"s3://{bucket}/shared/"
    spool(*csv_args(path, out, "--run-id", "task-1", "--append"))
    spool(*csv_args(path, out, "--run-id", "task-2", "--append"))
    keys = objects(s3, bucket, "shared/")
    assert "shared/_partitions-task-1.tsv" in keys and "shared/_partitions-task-2.tsv" in keys
    assert sum(1 for k in keys if "part-task-2-" in k) == len(KEYS)
    again = spool(*csv_args(path, out, "--run-id", "task-1", "--append"), check=False)
    assert again.returncode == 2 and "already in" in again.stderr
    refused = spool(*csv_args(path, out), check=False)
    assert refused.returncode == 2 and "not empty" in refused.stderr
    spool(*csv_args(path, out, "--force", "--max-rows-per-file", "1000"))
    after = objects(s3, bucket, "shared/")
    assert not any("task-" in k for k in after), "--force removed the old runs' files"
    rows = manifest_rows(s3, bucket, "shared/_partitions.tsv")
    assert sorted(f"shared/{r[2]}" for r in rows) == [k for k in after if not k.endswith(".tsv")]
    assert sum(int(r[3]) for r in rows) == sum(len(v) for v in lines.values())


def test_clean_aborts_dangling_uploads_and_rolls_back(s3, bucket, sample):
    s3.create_multipart_upload(Bucket=bucket, Key="ds/key=x/part-00000.csv")
    s3.put_object(Bucket=bucket, Key="ds/_staging-dead/journal", Body=s3_journal("_partitions.tsv", False))
    out = subprocess.run([SPOOL, "partition", "clean", f"s3://{bucket}/ds/"], capture_output=True, text=True, check=True)
    assert "rolled back run dead" in out.stdout and "aborted upload ds/key=x/part-00000.csv" in out.stdout
    assert objects(s3, bucket) == []
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads") is None


def test_python_binding_writes_to_s3(s3, bucket, sample):
    spool_module = pytest.importorskip("spool")
    path, lines = sample
    summary = spool_module.partition([str(path)], f"s3://{bucket}/py/", ["key"], header=True,
                                     delimiter="comma", run_id="py-1", append=True)
    assert summary["records_in"] == sum(len(v) for v in lines.values())
    assert "py/_partitions-py-1.tsv" in objects(s3, bucket, "py/")


def test_parts_leave_while_the_input_is_read(s3, bucket, tmp_path):
    """The input comes through a pipe that stalls once each key's file has
    more than one part: before the input ends, each upload is named under
    _staging-*/begun-*, has a part in S3, and that part's bytes are
    punched out of the local staging file; the dataset then reads back
    whole and in order."""
    fifo = tmp_path / "in.csv"
    os.mkfifo(fifo)
    local = tmp_path / "tmp"
    local.mkdir()
    pad = "p" * 100
    merged = [f"{'kb' if i % 2 else 'ka'},{i},{pad}\n" for i in range(240_000)]
    lines = {k: [line for line in merged if line.startswith(k + ",")] for k in ("ka", "kb")}
    half = len(merged) * 3 // 4  # about 9.5 MiB of each key's file before the stall
    env = dict(os.environ, TMPDIR=str(local))
    proc = subprocess.Popen([SPOOL, "partition", "--by", "1", "--delimiter", "comma", "--memory", "64M",
                             "-o", f"s3://{bucket}/big/", str(fifo)], env=env, stderr=subprocess.PIPE)
    with open(fifo, "w") as pipe:
        pipe.writelines(merged[:half])
        pipe.flush()
        seen = None
        for _ in range(200):
            uploads = s3.list_multipart_uploads(Bucket=bucket).get("Uploads") or []
            parts = {u["Key"]: s3.list_parts(Bucket=bucket, Key=u["Key"], UploadId=u["UploadId"]).get("Parts", [])
                     for u in uploads}
            if len(parts) == 2 and all(parts.values()):
                seen = uploads
                break
            time.sleep(0.05)
        assert seen, "no part left while the input was read"
        begun = [k for k in objects(s3, bucket, "big/_staging-") if "/begun-" in k]
        named = {upload_id for k in begun for _, upload_id in s3_uploads(s3.get_object(Bucket=bucket, Key=k)["Body"].read())}
        assert all(u["UploadId"] in named for u in seen), "an upload's id was not written before its parts"
        staged = [p for p in local.rglob("part-*") if p.is_file()]
        assert staged and all(p.stat().st_blocks * 512 < p.stat().st_size - (4 << 20) for p in staged), \
            "sent parts still take local disk"
        pipe.writelines(merged[half:])
    assert proc.wait() == 0, proc.stderr.read()
    assert list(local.iterdir()) == [], "the local staging directory was left"
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads") is None
    for key, want in lines.items():
        got = s3.get_object(Bucket=bucket, Key=f"big/col1={key}/part-00000.csv")["Body"].read().decode()
        assert got == "".join(want), key


@pytest.mark.parametrize("limit", [1024, 128])
def test_many_keys_within_a_low_open_file_limit(s3, bucket, tmp_path, limit):
    """1,500 keys with at most 1,024 descriptors: the commit sends every
    file's upload, but opens a file only while one of its parts is in
    flight (it used to open all of them at once: EMFILE at 100,000 keys).
    With at most 128, the run's --max-open (256 by default) is fitted to
    the limit too (it used to fail staging the files: EMFILE)."""
    path = tmp_path / "many.csv"
    with open(path, "w") as f:
        f.write("key,seq\n")
        for i in range(6_000):
            f.write(f"k{i % 1_500},{i}\n")

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    out = subprocess.run([SPOOL, "partition", *map(str, csv_args(path, f"s3://{bucket}/many/"))],
                         capture_output=True, text=True, preexec_fn=low_limit)
    assert out.returncode == 0, out.stderr
    keys = objects(s3, bucket, "many/")
    assert len([k for k in keys if not k.endswith("_partitions.tsv")]) == 1_500
    rows = manifest_rows(s3, bucket, "many/_partitions.tsv")
    assert sum(int(r[3]) for r in rows) == 6_000


def test_files_crossing_a_part_at_the_end_of_input(s3, bucket, tmp_path):
    """Every key's file passes a whole part (8 MiB) as the input ends, so
    the upload thread finds parts due while the run publishes its local
    staging directory: it must be stopped before that rename, never open
    a staged file by its old path after it. Repeated, since the race was
    one of timing; each run must succeed and read back whole."""
    rng = random.Random(11)
    keys = [f"k{i}" for i in range(8)]
    path = tmp_path / "in.csv"
    per_key = collections.Counter()
    with open(path, "w") as f:
        f.write("key,seq,pad\n")
        # 8 keys of about 9.5 MB each: every file crosses 8 MiB in the
        # last sixth of the input.
        for i in range(8 * 9_500):
            key = keys[i % 8]
            f.write(f"{key},{i},{'x' * rng.randint(950, 1050)}\n")
            per_key[key] += 1
    for attempt in range(4):
        out = f"s3://{bucket}/cross-{attempt}/"
        run = spool(*csv_args(path, out, "--memory", "128M"), check=False)
        assert run.returncode == 0, run.stderr
        rows = manifest_rows(s3, bucket, f"cross-{attempt}/_partitions.tsv")
        assert {r[1]: int(r[3]) for r in rows} == per_key


def test_a_killed_runs_local_staging_is_reclaimed(s3, bucket, sample, tmp_path):
    """A run killed with kill -9 cannot remove its local staging folder
    (TMPDIR/spool-s3-RUNID-PID/): `clean`, and the next S3 run in the same
    TMPDIR, remove every such folder whose run is dead, and leave a live
    run's alone."""
    local = tmp_path / "tmp"
    local.mkdir()
    env = dict(os.environ, TMPDIR=str(local))
    path, _ = sample

    def staging():
        return sorted(p.name for p in local.iterdir() if p.name.startswith("spool-s3-"))

    def killed_run(out):
        # Fed through a pipe that is never closed: the run is alive, its
        # folder made, until it is killed.
        fifo = tmp_path / f"in-{uuid.uuid4().hex[:6]}.csv"
        os.mkfifo(fifo)
        proc = subprocess.Popen([SPOOL, "partition", "--by", "1", "--delimiter", "comma", "-o", out, str(fifo)],
                                env=env, stderr=subprocess.PIPE)
        pipe = open(fifo, "w")
        pipe.write("k,1\n" * 1000)
        pipe.flush()
        for _ in range(100):
            if any(not name.endswith(".lock") for name in staging()):
                break
            time.sleep(0.05)
        return proc, pipe

    live, live_pipe = killed_run(f"s3://{bucket}/live/")
    dead, dead_pipe = killed_run(f"s3://{bucket}/dead/")
    dead.kill()
    dead.wait()
    dead_pipe.close()
    assert len([n for n in staging() if not n.endswith(".lock")]) == 2, staging()
    cleaned = subprocess.run([SPOOL, "partition", "clean", f"s3://{bucket}/dead/"], env=env,
                             capture_output=True, text=True, check=True)
    assert "1 local staging folder(s) removed" in cleaned.stderr, cleaned.stderr
    left = [n for n in staging() if not n.endswith(".lock")]
    assert len(left) == 1 and left[0].endswith(f"-{live.pid}"), left  # the live run's

    live.kill()
    live.wait()
    live_pipe.close()
    run = subprocess.run([SPOOL, "partition", *csv_args(path, f"s3://{bucket}/next/")], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert staging() == [], staging()
