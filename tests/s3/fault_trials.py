"""Fault trials for `spool partition --out s3://…`, against the loopback
server of scripts/s3-server.sh through a small fault proxy (in this
process) that can delay requests, answer 503 SlowDown, or stop listening.

One bucket per kind holds a committed dataset, input A's (1,500 records)
or input B's (2,000); each trial replaces it with the other input
(--force), disturbed. The inputs are local files, or for the last two
kinds below objects in a bucket of their own, read through the proxy as
well (each input cut into INPUT_OBJECTS objects under a/ or b/, the last
one gzip; spool reads each twice by ranged GETs, its first bytes then
all of it). Then, at every moment we look and after `clean`:
  - every data object under the prefix is listed by the committed
    manifest, or named by a journal under _staging-*/ (never part of an
    uncommitted run without its journal);
after `clean`:
  - no _staging-* object and no pending multipart upload is left;
  - the dataset is exactly A's or exactly B's (manifest and objects
    agree, record counts equal the input's); the next trial starts from
    it.

Trials are kept cheap (small inputs, one bucket per kind, short delays)
so that 20 of each fit in CI (scripts/test-s3.sh gives the slowest and
the S3-input kinds fewer).

Kinds (TRIALS each, default 20):
  kill-upload   kill -9 as the proxy receives the run's Nth request, N
                drawn from 1 to about the requests before its commit
  kill-commit   kill -9 once the run's `committing` marker appears
  outage        the server stops answering for 0.6 s mid-run, then returns
                (made by the proxy: moto keeps its buckets in memory, so a
                real restart would lose them)
  slowdown      25% of requests answered 503 SlowDown; the run must succeed
  kill-commit-403
                kill-commit against a store that answers 403 AccessDenied,
                not 404 NoSuchUpload, to completing an upload completed
                before (as s3s-fs does): `clean` settles each by looking
  kill-upload-nolist
                kill-upload against a store without ListMultipartUploads
                (501, as s3s-fs): `clean` still aborts what the journals
                name and says it could not list; uploads begun by a run
                killed before it named them may stay (counted)
  lost-object   one completion of each run answered 200 by the proxy and
                never sent (a store that says it wrote an object it did
                not, as versitygw does after a crash): the run must fail
                naming the object, and leave no data object (a fresh
                prefix, or with --force over a committed dataset, every
                other trial)
  kill-input    S3 inputs; kill -9 in a phase drawn per trial: reading (as
                the proxy receives the Nth request to the input bucket, N
                from 1 to INPUT_REQUESTS: the listing and every ranged
                read), uploading (the Nth to the output bucket, as
                kill-upload) or committing (as kill-commit); counts the
                phases killed in and the runs that ended first
  input-overwritten
                S3 inputs; as the Nth ranged GET of an input object
                arrives (N drawn over the run's reads, after the listing),
                that object is written again with a record more before
                the GET goes on: the run must fail naming the object
                ("changed during the run"), and leave the dataset as it
                was with no staging object and no pending upload before
                `clean` (then the object is put back). Beside the
                non-fault test in test_partition_s3_input.py (a fresh
                prefix; the object written again before it is opened),
                this one hits every read of the run (the format probe and
                the whole read, plain and gzip), over a committed dataset
                replaced with --force

Not among the default kinds, each on a fresh prefix per trial and run
alone (it stops the server for every client):
  restart       the server killed (-9) at a drawn moment of a run of 300
                keys in 807 files (--max-rows-per-file 300) and started
                again on its data 0.5 s or 3 s later
                (`scripts/s3-server.sh restart`: SeaweedFS and versitygw).
                The run may fail (spool gives up on a server that refuses
                connections for more than a few seconds). After `clean`
                either no data object is left, or the manifest names
                exactly the objects present, each holding the records the
                manifest gives; no staging object, no pending upload.

Prints the outcomes per kind and `N passed, N failed in S s`.
"""
import gzip
import http.client
import http.server
import os
import pathlib
import random
import signal
import socketserver
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

import boto3

from spool_journal import s3_uploads

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
UPSTREAM = os.environ["AWS_ENDPOINT_URL"].split("://", 1)[1]
TRIALS = int(os.environ.get("TRIALS", "20"))
# A run's requests up to its `committing` marker, about: the prefix
# listed, 41 uploads begun, their ids written, 41 parts, the manifest and
# the journal staged. kill-upload kills at a request drawn from 1 to this.
UPLOAD_REQUESTS = 90
# The input objects a remote input is cut into (the last one gzip), and
# a run's requests to them: the prefix listed, then each object read
# twice (its first bytes, to tell its format, then the whole of it, each
# one ranged GET). kill-input kills at a request to them drawn from 1 to
# this when it kills while reading.
INPUT_OBJECTS = 4
INPUT_REQUESTS = 1 + 2 * INPUT_OBJECTS


class Faults:
    delay = 0.0
    slowdown = 0.0
    down_until = 0.0
    # answer 403 where the store answers 404 to completing an upload
    refuse_as_403 = False
    # answer 501 to ListMultipartUploads
    no_list_uploads = False
    # answer the `lie_at`-th completion 200 without sending it
    completions = 0
    lie_at = 0
    rng = random.Random(1)
    # kill -9 `victim` as its `kill_at`-th request whose path starts with
    # `kill_path` arrives (counted from 1)
    lock = threading.Lock()
    requests = 0
    kill_at = 0
    kill_path = "/"
    victim = None
    # called with each request's method, path and headers before it is
    # forwarded (input-overwritten writes an input object again there)
    before = None


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        with Faults.lock:
            if self.path.startswith(Faults.kill_path):
                Faults.requests += 1
                if Faults.victim and Faults.requests == Faults.kill_at:
                    Faults.victim.send_signal(signal.SIGKILL)
        if Faults.before:
            Faults.before(self.command, self.path, self.headers)
        if time.time() < Faults.down_until:
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if Faults.delay:
            time.sleep(Faults.rng.uniform(0, Faults.delay))
        query = self.path.partition("?")[2]
        completing = self.command == "POST" and "uploadId=" in query
        if Faults.no_list_uploads and self.command == "GET" and query.split("&")[0] in ("uploads", "uploads="):
            return self.answer(501, "NotImplemented", "ListMultipartUploads is not implemented")
        if completing and Faults.lie_at:
            with Faults.lock:
                Faults.completions += 1
                lie = Faults.completions == Faults.lie_at
            if lie:
                key = self.path.partition("?")[0].split("/", 2)[2]
                answer = ("<CompleteMultipartUploadResult><Bucket>b</Bucket>"
                          f"<Key>{key}</Key><ETag>&quot;0123456789abcdef0123456789abcdef-1&quot;</ETag>"
                          "</CompleteMultipartUploadResult>").encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                return
        if Faults.slowdown and Faults.rng.random() < Faults.slowdown:
            answer = b"<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>"
            self.send_response(503)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
            return
        upstream = http.client.HTTPConnection(UPSTREAM, timeout=60)
        upstream.request(self.command, self.path, body=body, headers=dict(self.headers))
        response = upstream.getresponse()
        data = response.read()
        if completing and Faults.refuse_as_403 and response.status == 404:
            upstream.close()
            return self.answer(403, "AccessDenied", "Access Denied.")
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "server", "date"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

    def answer(self, status, code, message):
        body = f"<Error><Code>{code}</Code><Message>{message}</Message></Error>".encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client killed mid-request


def start_proxy():
    server = Server(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def write_input(path, seed, records):
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("key,seq,pad\n")
        for i in range(records):
            f.write(f"k{rng.randint(0, 40)},{i},{'p' * rng.randint(0, 300)}\n")


def upload_input(s3, bucket, prefix, path):
    """The records of the CSV file `path` cut into INPUT_OBJECTS objects
    under `prefix`, each with the header, the last one gzip; their
    bodies by key."""
    header, *rows = path.read_text().splitlines(keepends=True)
    bodies = {}
    for n in range(INPUT_OBJECTS):
        key, body = f"{prefix}part-{n}.csv", (header + "".join(rows[n::INPUT_OBJECTS])).encode()
        if n == INPUT_OBJECTS - 1:
            key, body = key + ".gz", gzip.compress(body)
        s3.put_object(Bucket=bucket, Key=key, Body=body)
        bodies[key] = body
    return bodies


def spool_env(endpoint):
    env = dict(os.environ, AWS_ENDPOINT_URL=endpoint)
    return env


def run_spool(out, path, endpoint, extra=(), memory="64M"):
    args = [SPOOL, "partition", "--by", "key", "--header", "--delimiter", "comma", "--memory", memory,
            "-o", out, *extra, str(path)]
    return subprocess.Popen(args, env=spool_env(endpoint), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


class Checker:
    def __init__(self, s3, bucket):
        self.s3, self.bucket = s3, bucket

    def keys(self):
        pages = self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
        return {o["Key"] for page in pages for o in page.get("Contents", [])}

    def manifest(self, keys):
        if "ds/_partitions.tsv" not in keys:
            return None
        try:
            text = self.s3.get_object(Bucket=self.bucket, Key="ds/_partitions.tsv")["Body"].read().decode()
        except self.s3.exceptions.NoSuchKey:
            return None
        rows = [line.split("\t") for line in text.splitlines()[1:]]
        return {f"ds/{r[2]}": int(r[3]) for r in rows}

    def journaled(self, keys):
        named = set()
        for key in keys:
            if key.endswith("/journal") and "_staging-" in key:
                try:
                    data = self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read()
                except self.s3.exceptions.NoSuchKey:
                    continue
                named |= {key for key, _ in s3_uploads(data)}
        return named

    def invariant(self):
        """Every data object is the committed manifest's or a journal's."""
        keys = self.keys()
        data = {k for k in keys if not k.split("/")[-1].startswith("_") and "_staging-" not in k}
        listed = set((self.manifest(keys) or {}).keys())
        # A journal read after the listing may be gone (its run committed):
        # read the manifest again then.
        stray = data - listed - self.journaled(keys)
        if stray:
            listed = set((self.manifest(self.keys()) or {}).keys())
            stray -= listed
        return stray

    def pending(self):
        return self.s3.list_multipart_uploads(Bucket=self.bucket).get("Uploads") or []

    def committed_state(self, inputs, pending_allowed=False):
        keys = self.keys()
        if any("_staging-" in k for k in keys):
            return None, "staging objects left"
        if self.pending() and not pending_allowed:
            return None, "pending uploads left"
        manifest = self.manifest(keys)
        data = {k for k in keys if not k.endswith("_partitions.tsv")}
        if manifest is None or set(manifest) != data:
            return None, f"manifest and objects disagree: {sorted(set(manifest or {}) ^ data)[:3]}"
        total = sum(manifest.values())
        for name, records in inputs.items():
            if total == records and all("part-00000" in k for k in manifest):
                return name, None
        return None, f"{total} records match no committed run"


class Outcomes:
    seen = {}


def clean(endpoint, bucket, prefix="ds/"):
    return subprocess.run([SPOOL, "partition", "clean", f"s3://{bucket}/{prefix}"], env=spool_env(endpoint),
                          capture_output=True, text=True)


class Dataset:
    """One bucket per kind: its committed input ("a" or "b"), which each
    trial replaces with the other one (--force), disturbed. With `remote`,
    the inputs are objects in a bucket of their own (upload_input, under
    a/ and b/), read through the proxy too; `bodies` holds them by key."""

    def __init__(self, s3, proxy, tmp, remote=False):
        self.bucket = f"trial-{uuid.uuid4().hex[:10]}"
        s3.create_bucket(Bucket=self.bucket)
        self.checker = Checker(s3, self.bucket)
        self.out = f"s3://{self.bucket}/ds/"
        self.inputs = {"a": (tmp / "a.csv", 1_500), "b": (tmp / "b.csv", 2_000)}
        for seed, (path, records) in enumerate(self.inputs.values()):
            if not path.exists():
                write_input(path, seed, records)
        # Two inputs read ahead need more than 64M (spool says how much).
        self.memory, self.in_bucket, self.bodies = "64M", None, {}
        if remote:
            self.memory, self.in_bucket = "96M", f"input-{uuid.uuid4().hex[:10]}"
            s3.create_bucket(Bucket=self.in_bucket)
            for name, (path, records) in list(self.inputs.items()):
                self.bodies.update(upload_input(s3, self.in_bucket, f"{name}/", path))
                self.inputs[name] = (f"s3://{self.in_bucket}/{name}/", records)
        first = run_spool(self.out, self.inputs["a"][0], proxy, memory=self.memory)
        first.wait()
        assert first.returncode == 0, first.stderr.read()
        self.committed = "a"

    def counts(self):
        return {name: records for name, (_, records) in self.inputs.items()}


def count(outcome):
    Outcomes.seen[outcome] = Outcomes.seen.get(outcome, 0) + 1


class Overwrite:
    """input-overwritten: as the `at`-th ranged GET of an input object
    arrives (the prefix listed before), writes that object again with a
    record more, then lets the GET through; `outcome` checks the run and
    puts the object back."""

    def __init__(self, s3, dataset, at):
        self.s3, self.bucket, self.at = s3, dataset.in_bucket, at
        self.bodies, self.reads, self.key = dataset.bodies, 0, None

    def __call__(self, method, path, headers):
        if method != "GET" or "Range" not in headers or not path.startswith(f"/{self.bucket}/"):
            return
        with Faults.lock:
            self.reads += 1
            if self.reads != self.at:
                return
        self.key = urllib.parse.unquote(path.partition("?")[0].split("/", 2)[2])
        body, record = self.bodies[self.key], b"k0,-1,written again\n"
        body = gzip.compress(gzip.decompress(body) + record) if self.key.endswith(".gz") else body + record
        self.s3.put_object(Bucket=self.bucket, Key=self.key, Body=body)

    def outcome(self, proc, dataset):
        """The run must fail naming the object, and leave the dataset as
        it was, nothing staged or pending (before any `clean`)."""
        err = proc.stderr.read().decode()
        if self.key is None:
            return f"no ranged read numbered {self.at} (exit {proc.returncode}): {err[-300:]!r}"
        self.s3.put_object(Bucket=self.bucket, Key=self.key, Body=self.bodies[self.key])
        url = f"s3://{self.bucket}/{self.key}"
        if proc.returncode != 2 or url not in err or "changed during the run" not in err:
            return f"{url} written again: exit {proc.returncode}, said {err[-300:]!r}"
        state, problem = dataset.checker.committed_state(dataset.counts())
        if problem is None and state != dataset.committed:
            problem = f"the dataset is {state}'s, not {dataset.committed}'s"
        if problem:
            return f"{url} written again: before clean, {problem}"
        count("run failed naming the object, dataset and bucket as before")
        return None


def trial(kind, n, dataset, proxy):
    checker = dataset.checker
    other = "b" if dataset.committed == "a" else "a"
    Faults.delay = 0.01 if kind.startswith("kill") else 0.0
    Faults.slowdown = 0.25 if kind == "slowdown" else 0.0
    Faults.refuse_as_403 = kind == "kill-commit-403"
    Faults.no_list_uploads = kind == "kill-upload-nolist"
    # kill-input: kill while reading the inputs, while uploading, or at
    # the commit, one drawn per trial
    phase = Faults.rng.choice(["reading", "uploading", "committing"]) if kind == "kill-input" else ""
    kind, variant = {"kill-commit-403": ("kill-commit", "403"),
                     "kill-upload-nolist": ("kill-upload", "nolist"),
                     "kill-input": ("kill-commit" if phase == "committing" else "kill-upload", phase),
                     }.get(kind, (kind, ""))
    if kind == "kill-upload":
        # The Nth request to the input bucket, or to the output bucket.
        bucket, last = dataset.bucket, UPLOAD_REQUESTS
        if variant == "reading":
            bucket, last = dataset.in_bucket, INPUT_REQUESTS
        with Faults.lock:
            Faults.requests, Faults.kill_path = 0, (f"/{bucket}/", f"/{bucket}?")
            Faults.kill_at = Faults.rng.randint(1, last)
    overwrite = None
    if kind == "input-overwritten":
        overwrite = Faults.before = Overwrite(checker.s3, dataset, Faults.rng.randint(1, 2 * INPUT_OBJECTS))
    proc = run_spool(dataset.out, dataset.inputs[other][0], proxy, ["--force"], dataset.memory)
    with Faults.lock:
        Faults.victim = proc if kind == "kill-upload" else None
    strays = set()
    start = time.time()
    outage_at = Faults.rng.uniform(0.05, 0.4)
    while proc.poll() is None and time.time() - start < 60:
        strays |= checker.invariant()
        elapsed = time.time() - start
        if kind == "kill-commit" and any(k.endswith("/committing") for k in checker.keys()):
            proc.send_signal(signal.SIGKILL)
        if kind == "outage" and outage_at and elapsed > outage_at:
            Faults.down_until = time.time() + 0.6
            outage_at = 0
        time.sleep(0.01)
    if proc.poll() is None:
        proc.kill()
        return f"{kind} {n}: run did not end in 60 s"
    Faults.delay = Faults.slowdown = 0.0
    Faults.down_until = 0.0
    with Faults.lock:
        Faults.victim, Faults.kill_path, Faults.before = None, "/", None
    strays |= checker.invariant()
    if kind == "slowdown" and proc.returncode != 0:
        return f"slowdown {n}: run failed: {proc.stderr.read().decode()[-300:]}"
    if variant in ("reading", "uploading", "committing"):
        count(f"killed {variant}" if proc.returncode == -signal.SIGKILL else f"{variant}: ended before the kill")
    if overwrite:
        problem = overwrite.outcome(proc, dataset)
        if problem:
            return f"{kind} {n}: {problem}"
    cleaned = clean(proxy, dataset.bucket)
    Faults.refuse_as_403 = Faults.no_list_uploads = False
    for word in ("committed run", "rolled back run", "aborted upload"):
        if word in cleaned.stdout:
            count(f"clean: {word}")
    if cleaned.returncode != 0:
        return f"{kind} {n}: clean failed: {cleaned.stderr[-300:]}"
    if variant == "nolist" and "pending uploads not listed" not in cleaned.stderr:
        return f"{kind} {n}: clean did not say it could not list the uploads: {cleaned.stderr[-300:]}"
    if strays:
        return f"{kind} {n}: objects of an uncommitted run without a journal: {sorted(strays)[:3]}"
    state, problem = checker.committed_state(dataset.counts(), pending_allowed=variant == "nolist")
    if problem:
        return f"{kind} {n}: after clean: {problem}"
    # Uploads begun by a run killed before it named them: only a listing
    # finds them, and this store has none (they are counted, then
    # aborted so that the next trial starts from none).
    for upload in checker.pending():
        count("pending upload left (not listable)")
        checker.s3.abort_multipart_upload(Bucket=dataset.bucket, Key=upload["Key"], UploadId=upload["UploadId"])
    if overwrite and state != dataset.committed:
        return f"{kind} {n}: after clean, the dataset is {state}'s, not {dataset.committed}'s"
    count(state)
    count("kept" if state == dataset.committed else "replaced")
    dataset.committed = state
    return None


def data_keys(keys):
    return {k for k in keys if "_staging-" not in k and not k.split("/")[-1].startswith("_")}


def exact_or_empty(checker, prefix):
    """After clean: no staging object, no pending upload; either no data
    object, or a manifest naming exactly the data objects, each holding
    the records (header aside) the manifest says. The state's name, or a
    problem."""
    keys = {k for k in checker.keys() if k.startswith(prefix)}
    if any("_staging-" in k for k in keys):
        return None, "staging objects left"
    pending = [u for u in checker.pending() if u["Key"].startswith(prefix)]
    if pending:
        return None, f"{len(pending)} pending upload(s) left"
    data = data_keys(keys)
    manifest_key = f"{prefix}_partitions.tsv"
    if manifest_key not in keys:
        return ("empty", None) if not data else (None, f"{len(data)} data objects and no manifest")
    text = checker.s3.get_object(Bucket=checker.bucket, Key=manifest_key)["Body"].read().decode()
    rows = {f"{prefix}{r[2]}": int(r[3]) for r in (line.split("\t") for line in text.splitlines()[1:])}
    if set(rows) != data:
        return None, f"manifest and objects disagree: {sorted(set(rows) ^ data)[:3]}"
    for key, records in rows.items():
        body = checker.s3.get_object(Bucket=checker.bucket, Key=key)["Body"].read()
        held = body.count(b"\n") - 1  # the header aside
        if held != records:
            return None, f"{key} holds {held} records, the manifest says {records}"
    return "committed", None


def lost_object_trials(s3, proxy, tmp):
    """lost-object: see the module docs."""
    bucket = f"trial-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    checker = Checker(s3, bucket)
    a, b = tmp / "a.csv", tmp / "b.csv"
    write_input(a, 0, 1_500)
    write_input(b, 1, 2_000)
    problems = []
    for n in range(TRIALS):
        prefix = f"lost-{n}/"
        out = f"s3://{bucket}/{prefix}"
        extra = []
        if n % 2:
            # A committed dataset of other records (an object the proxy
            # does not send keeps the old one's bytes: another size).
            first = run_spool(out, b, proxy)
            first.wait()
            assert first.returncode == 0, first.stderr.read()
            extra = ["--force"]
        with Faults.lock:
            Faults.completions, Faults.lie_at = 0, Faults.rng.randint(1, 30)
        proc = run_spool(out, a, proxy, extra)
        _, err = proc.communicate(timeout=60)
        Faults.lie_at = 0
        err = err.decode()
        if proc.returncode == 0 or "does not hold" not in err:
            problems.append(f"lost-object {n}: exit {proc.returncode}, said {err[-300:]!r}")
            continue
        count("run failed naming the object" + (" (--force)" if extra else ""))
        cleaned = clean(proxy, bucket, prefix)
        state, problem = exact_or_empty(checker, prefix)
        if cleaned.returncode != 0 or problem or state != "empty":
            problems.append(f"lost-object {n}: clean exit {cleaned.returncode}, {state or problem}")
    return problems


def restart_trials(s3, proxy, tmp):
    """restart: see the module docs."""
    bucket = f"trial-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    checker = Checker(s3, bucket)
    path = tmp / "restart.csv"
    rng = random.Random(7)
    with open(path, "w") as f:
        f.write("key,seq,pad\n")
        for i in range(200_000):
            f.write(f"k{rng.randint(0, 299)},{i},{'p' * rng.randint(0, 60)}\n")
    extra = ["--max-rows-per-file", "300"]
    started = time.time()
    baseline = run_spool(f"s3://{bucket}/baseline/", path, proxy, extra)
    _, err = baseline.communicate(timeout=300)
    assert baseline.returncode == 0, err
    length = time.time() - started
    state, problem = exact_or_empty(checker, "baseline/")
    assert state == "committed", problem
    problems = []
    for n in range(TRIALS):
        prefix = f"restart-{n}/"
        proc = run_spool(f"s3://{bucket}/{prefix}", path, proxy, extra)
        time.sleep(Faults.rng.uniform(0, length))
        pause = Faults.rng.choice([0.5, 3.0])
        subprocess.run([ROOT / "scripts" / "s3-server.sh", "restart", str(pause)], check=True)
        try:
            _, err = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            problems.append(f"restart {n}: run did not end in 300 s")
            continue
        count("run failed" if proc.returncode else "run succeeded")
        if proc.returncode and "does not hold" in err.decode():
            count("run failed: store lost an object")
        cleaned = clean(proxy, bucket, prefix)
        for word in ("committed run", "rolled back run", "commit could not be finished", "aborted upload"):
            if word in cleaned.stdout:
                count(f"clean: {word}")
        if cleaned.returncode not in (0, 1) or cleaned.returncode == 1 and "not committed" not in cleaned.stderr:
            problems.append(f"restart {n}: clean failed: {cleaned.stderr[-300:]}")
            continue
        state, problem = exact_or_empty(checker, prefix)
        if problem:
            problems.append(f"restart {n} (pause {pause} s): after clean: {problem}; the run said "
                            f"{err.decode()[-300:]!r}; clean said {cleaned.stdout[-300:]!r} {cleaned.stderr[-300:]!r}")
            continue
        if state == "committed" and proc.returncode == 0:
            count("committed by the run")
        count(f"after clean: {state}")
    return problems


def main():
    s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    proxy = start_proxy()
    tmp = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"spool-fault-trials-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    kinds = sys.argv[1:] or ["kill-upload", "kill-commit", "outage", "slowdown"]
    passed = failed = 0
    started = time.time()
    for kind in kinds:
        kind_started = time.time()
        if kind in ("lost-object", "restart"):
            trials = lost_object_trials if kind == "lost-object" else restart_trials
            problems = trials(s3, proxy, tmp)
            for problem in problems:
                print("FAILED", problem, flush=True)
            failed += len(problems)
            passed += TRIALS - len(problems)
            ended = ", ".join(f"{k}: {v}" for k, v in sorted(Outcomes.seen.items()))
            print(f"{kind}: {TRIALS} trials in {time.time() - kind_started:.0f} s; {ended}", flush=True)
            Outcomes.seen = {}
            continue
        dataset = Dataset(s3, proxy, tmp, remote=kind in ("kill-input", "input-overwritten"))
        for n in range(TRIALS):
            problem = trial(kind, n, dataset, proxy)
            if problem:
                failed += 1
                print("FAILED", problem, flush=True)
            else:
                passed += 1
        ended = ", ".join(f"{k}: {v}" for k, v in sorted(Outcomes.seen.items()))
        print(f"{kind}: {TRIALS} trials in {time.time() - kind_started:.0f} s; "
              f"dataset after clean and what clean did: {ended}", flush=True)
        Outcomes.seen = {}
    print(f"{passed} passed, {failed} failed in {time.time() - started:.0f} s")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
