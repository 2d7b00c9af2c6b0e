"""`spool.partition`: the run in-process, checked by reading its files back.

- Round trip: a CSV written by Python's `csv` module (quoted keys and
  fields with commas, quotes and line breaks) partitioned by a column; every
  file read back with `csv` holds, in input order, exactly the input's rows
  of its key, and the returned summary agrees with the files.
- Parquet: the same rows read back with PyArrow; NDJSON into Parquet keeps
  JSON's types (an empty string is not NULL; nested values are their text).
- Errors: the type each failure raises, and a message naming the path,
  line and byte offset; no output left behind.
- The GIL: the input is a named pipe that a Python thread fills while
  `partition` reads it, which can only finish if the GIL is released; and
  Ctrl-C stops a run (KeyboardInterrupt, no output). Both run in a
  subprocess with a timeout, so a held GIL fails the test instead of
  hanging it.
"""
import collections
import csv
import os
import pathlib
import pickle
import random
import subprocess
import sys

import pytest

import spool

KEYS = ["Paris", "New York, NY", 'say "hi"', "two\nlines", "a=b", "", "ü"]
NOTES = ["x", "y,z", 'q"q', "r\r\ns", "", "plain"]


@pytest.fixture(scope="module")
def cities(tmp_path_factory):
    """Two CSV inputs with a header; returns their paths and each key's rows."""
    rng = random.Random(7)
    folder = tmp_path_factory.mktemp("in")
    by_key = collections.defaultdict(list)
    paths = []
    for n in range(2):
        path = folder / f"cities-{n}.csv"
        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "city", "note"])
            for i in range(2_000):
                row = [f"{n}-{i}", rng.choice(KEYS), rng.choice(NOTES)]
                w.writerow(row)
                by_key[row[1]].append(row)
        paths.append(path)
    return paths, by_key


def read_groups(summary, header=("id", "city", "note")):
    got = {}
    for group in summary["groups"]:
        with open(group["path"], encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        assert tuple(rows[0]) == header, group["path"]
        assert len(rows) - 1 == group["records"]
        got[group["key"].decode()] = rows[1:]
    return got


def test_round_trip_by_name(cities, tmp_path):
    paths, by_key = cities
    out = tmp_path / "out"
    summary = spool.partition(paths, out, by="city", header=True, delimiter="comma", threads=2)
    assert read_groups(summary) == dict(by_key)
    assert summary["records"] == summary["records_in"] == 4_000
    assert summary["files"] == len(by_key) == len(summary["groups"])
    assert summary["bytes_in"] == sum(p.stat().st_size for p in paths)
    assert summary["bytes_out"] == sum(pathlib.Path(g["path"]).stat().st_size for g in summary["groups"])
    assert {g["column"] for g in summary["groups"]} == {"city"}
    assert all(pathlib.Path(g["path"]).parent.parent == out for g in summary["groups"])
    assert (out / "_partitions.tsv").is_file()
    assert 0 <= summary["finishing"] < 60
    # Plain data: a Spark task can hand it back to the driver.
    assert pickle.loads(pickle.dumps(summary)) == summary


def test_column_number_one_path_and_options(cities, tmp_path):
    paths, by_key = cities
    summary = spool.partition(
        str(paths[0]), tmp_path / "out", by=[2], header=True, delimiter=",",
        where=["note!~^$"], compress="gzip", level=9, layout="flat", memory="64M", max_open=2,
    )
    assert all(g["path"].endswith(".csv.gz") for g in summary["groups"])
    first = [r for rows in by_key.values() for r in rows if r[0].startswith("0-")]
    assert summary["records_in"] == len(first)
    assert summary["filtered"] == sum(1 for r in first if r[2] == "")
    assert summary["records"] == summary["records_in"] - summary["filtered"]


def test_parquet_read_back_by_pyarrow(cities, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    paths, by_key = cities
    out = tmp_path / "out"
    summary = spool.partition(paths, out, by="city", header=True, delimiter="comma", format="parquet")
    for group in summary["groups"]:
        table = pq.read_table(group["path"])
        assert table.column_names == ["id", "note"]
        rows = by_key[group["key"].decode()]
        assert table.column("id").to_pylist() == [r[0] for r in rows]
        # An empty field is NULL in Parquet.
        assert table.column("note").to_pylist() == [r[2] or None for r in rows]


def test_runs_append_into_one_dataset(cities, tmp_path):
    paths, by_key = cities
    out = tmp_path / "out"
    common = dict(by="city", header=True, delimiter="comma", append=True)
    first = spool.partition(paths[0], out, run_id="task-0", **common)
    second = spool.partition(paths[1], out, run_id="task-1", **common)
    assert sorted(p.name for p in out.glob("_partitions-*")) == ["_partitions-task-0.tsv", "_partitions-task-1.tsv"]
    got = collections.defaultdict(list)
    for summary, run_id in [(first, "task-0"), (second, "task-1")]:
        assert all(run_id in pathlib.Path(g["path"]).name for g in summary["groups"])
        for key, rows in read_groups(summary).items():
            got[key] += rows
    assert dict(got) == dict(by_key)
    # An id that already wrote its files is refused, and nothing changes.
    with pytest.raises(FileExistsError, match="task-0"):
        spool.partition(paths[0], out, run_id="task-0", **common)
    assert read_groups(first).keys() == {k for k, rows in by_key.items() if any(r[0].startswith("0-") for r in rows)}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(delimiter="ab"), "is not a delimiter"),
        (dict(compress="gzip", level=13), "gzip levels are 1-12"),
        (dict(compress="lz4"), "is not a compression"),
        (dict(compress="snappy"), "needs format parquet"),
        (dict(format="orc"), "use text or parquet"),
        (dict(schema="id:int64"), "schema needs format parquet"),
        (dict(memory="1M"), "too small"),
        (dict(memory="lots"), "memory:"),
        (dict(where=["nope"]), "COLUMN~REGEX"),
        (dict(max_open=0), "max_open must be at least 1"),
        (dict(threads=0), "threads must be at least 1"),
        (dict(by=[]), "by is empty"),
        (dict(by=0), "column number from 1"),
        (dict(append=True), "needs --run-id"),
        (dict(run_id="../up", append=True), "run id"),
        (dict(input_format="xml"), "is not an input format"),
    ],
)
def test_bad_options_are_value_errors(cities, tmp_path, kwargs, message):
    kwargs = {"by": "city", "header": True, "delimiter": "comma", **kwargs}
    with pytest.raises(ValueError, match=message) as raised:
        spool.partition(cities[0], tmp_path / "out", **kwargs)
    assert not isinstance(raised.value, spool.PartitionError)
    assert not (tmp_path / "out").exists()


def test_ndjson_from_a_glob_spool_expands(tmp_path):
    (tmp_path / "in" / "b").mkdir(parents=True)
    (tmp_path / "in" / "a").mkdir()
    (tmp_path / "in" / "b" / "1.log").write_text('{"k": "x", "n": 2}\n')
    (tmp_path / "in" / "a" / "1.log").write_text('{"k": "x", "n": 1}\n{"k": "y", "n": {"deep": [1]}}\n')
    summary = spool.partition(
        str(tmp_path / "in" / "*" / "*.log"), tmp_path / "out", by="k",
        input_format="ndjson", delimiter="comma",
    )
    got = {g["key"]: pathlib.Path(g["path"]).read_text() for g in summary["groups"]}
    # Files in path order (a/ before b/); a nested value as its JSON text.
    assert got == {b"x": "k,n\nx,1\nx,2\n", b"y": 'k,n\ny,"{""deep"": [1]}"\n'}


def test_missing_input_is_file_not_found_naming_it(tmp_path):
    missing = tmp_path / "nosuch.csv"
    with pytest.raises(FileNotFoundError, match="nosuch.csv"):
        spool.partition([missing], tmp_path / "out", by=1)
    assert not (tmp_path / "out").exists()


def test_a_used_output_is_an_os_error(cities, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep").write_text("mine")
    with pytest.raises(OSError):
        spool.partition(cities[0], out, by="city", header=True, delimiter="comma")
    assert (out / "keep").read_text() == "mine"


def test_bad_record_is_partition_error_with_its_place(tmp_path):
    path = tmp_path / "short.tsv"
    path.write_bytes(b"a\tb\tc\nd\te\tf\ng\n")
    with pytest.raises(spool.PartitionError) as raised:
        spool.partition(path, tmp_path / "out", by=3)
    err = raised.value
    assert (err.path, err.line, err.offset) == (str(path), 3, 12)
    assert str(err).startswith(f"{path}:3: byte offset 12: ")
    assert isinstance(err, ValueError)
    assert not (tmp_path / "out").exists()
    summary = spool.partition(path, tmp_path / "out", by=3, skip_invalid=True)
    assert (summary["records"], summary["skipped_invalid"]) == (2, 1)


# The start of a script reading a named pipe that a Python thread fills.
FIFO = """
import os, signal, sys, threading, time, spool
tmp = sys.argv[1]
fifo = os.path.join(tmp, "in.fifo")
os.mkfifo(fifo)
"""


def run_script_done(script, tmp_path, timeout=60):
    """Runs FIFO + `script` with `tmp_path` as argv[1]; returns the
    finished process (its output and error output)."""
    done = subprocess.run(
        [sys.executable, "-c", FIFO + script, str(tmp_path)],
        capture_output=True, text=True, timeout=timeout,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def run_script(script, tmp_path, timeout=60):
    """Runs FIFO + `script` with `tmp_path` as argv[1]; returns its output."""
    return run_script_done(script, tmp_path, timeout).stdout


def test_gil_is_released_while_reading_a_pipe_python_fills(tmp_path):
    """The writer thread needs the GIL for every line it writes while
    `partition` is still reading: with the GIL held the run would wait for
    input forever (and the timeout fail the test)."""
    out = run_script(
        """
def fill():
    with open(fifo, "w") as f:
        for i in range(200_000):
            f.write(f"{i}\\tkey{i % 7}\\n")
threading.Thread(target=fill).start()
summary = spool.partition(fifo, os.path.join(tmp, "out"), by=2, threads=1)
print(summary["records"], summary["files"])
""",
        tmp_path,
    )
    assert out.split() == ["200000", "7"]


def test_ctrl_c_stops_the_run_and_removes_its_output(tmp_path):
    # Python installs its SIGINT handler only where SIGINT is not ignored,
    # and a shell starts background jobs with it ignored: set it here.
    done = run_script_done(
        """
signal.signal(signal.SIGINT, signal.default_int_handler)
def fill_then_interrupt():
    with open(fifo, "w") as f:
        f.write("1\\ta\\n" * 1000)
        f.flush()
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)
threading.Thread(target=fill_then_interrupt).start()
try:
    spool.partition(fifo, os.path.join(tmp, "out"), by=2)
except KeyboardInterrupt:
    print("interrupted", os.path.exists(os.path.join(tmp, "out")))
""",
        tmp_path,
    )
    assert done.stdout.split() == ["interrupted", "False"], done.stderr


# 1,500 keys under an open-file limit of 128 (soft and hard): the run fits
# its open output files to the limit; a `max_open` the caller gave that
# does not fit is lowered with a RuntimeWarning.
LOW_LIMIT = """
import json, sys, warnings, spool
tmp, fmt, max_open = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
keywords = {} if max_open is None else {"max_open": max_open}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    summary = spool.partition(f"{tmp}/in.tsv", f"{tmp}/out-{fmt}", by="key", header=True,
                              format=fmt, memory="1G" if fmt == "parquet" else "48M", **keywords)
print(json.dumps([str(w.message) for w in caught]))
print(json.dumps([[g["key"].decode(), g["path"], g["records"]] for g in summary["groups"]]))
"""


@pytest.mark.parametrize("fmt, max_open", [("text", None), ("parquet", 1000)])
def test_many_keys_within_a_low_open_file_limit(tmp_path, fmt, max_open):
    import json
    import resource

    want = collections.defaultdict(list)
    with open(tmp_path / "in.tsv", "w") as f:
        f.write("key\tn\tnote\n")
        for n in range(60_000 if fmt == "text" else 30_000):
            key = f"k{n * 7 % 1_500:04}"
            f.write(f"{key}\t{n}\t{'x' * (200 if fmt == 'text' else 0)}\n")
            want[key].append(str(n))

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    done = subprocess.run(
        [sys.executable, "-c", LOW_LIMIT, str(tmp_path), fmt, json.dumps(max_open)],
        capture_output=True, text=True, timeout=120, preexec_fn=low_limit,
    )
    assert done.returncode == 0, done.stderr
    warned, groups = map(json.loads, done.stdout.splitlines())
    if max_open is None:
        assert warned == []
    else:
        assert len(warned) == 1 and "max_open=1000 does not fit the open-file limit (128)" in warned[0]
    got = {}
    for key, path, records in groups:
        if fmt == "text":
            with open(path) as f:
                rows = [line.split("\t")[1] for line in f.read().splitlines()[1:]]
        else:
            import pyarrow.parquet as pq

            rows = pq.read_table(path).column("n").to_pylist()
        assert len(rows) == records, path
        got[key] = rows
    assert got == want


def test_ndjson_into_parquet_keeps_json_types(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import json

    rows = [
        {"k": "a", "n": 1, "s": "", "o": {"x": [1, 2]}},
        {"k": "a", "n": "2", "s": None},
        {"k": "b", "s": "é", "n": -3},
    ]
    path = tmp_path / "in.ndjson"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    summary = spool.partition([path], tmp_path / "out", by="k", format="parquet", schema="n:int64")
    assert summary["records"] == 3
    tables = {g["key"].decode(): pq.read_table(g["path"]) for g in summary["groups"]}
    assert tables["a"].column_names == ["n", "s", "o"]
    assert str(tables["a"].schema.field("n").type) == "int64"
    assert tables["a"].column("n").to_pylist() == [1, 2]
    # JSON tells an empty string from null; a nested value is its JSON text.
    assert tables["a"].column("s").to_pylist() == ["", None]
    assert tables["a"].column("o").to_pylist() == ['{"x": [1, 2]}', None]
    assert tables["b"].column("s").to_pylist() == ["é"]
