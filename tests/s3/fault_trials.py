"""Fault trials for `spool partition --out s3://…`, against the loopback
server of scripts/s3-server.sh through a small fault proxy (in this
process) that can delay requests, answer 503 SlowDown, or stop listening.

One bucket per kind holds a committed dataset, input A's (1,500 records)
or input B's (2,000); each trial replaces it with the other input
(--force), disturbed; then, at every moment we look and after `clean`:
  - every data object under the prefix is listed by the committed
    manifest, or named by a journal under _staging-*/ (never part of an
    uncommitted run without its journal);
after `clean`:
  - no _staging-* object and no pending multipart upload is left;
  - the dataset is exactly A's or exactly B's (manifest and objects
    agree, record counts equal the input's); the next trial starts from
    it.

Trials are kept cheap (small inputs, one bucket per kind, short delays)
so that 20 of each fit in CI.

Kinds (TRIALS each, default 20):
  kill-upload   kill -9 as the proxy receives the run's Nth request, N
                drawn from 1 to about the requests before its commit
  kill-commit   kill -9 once the run's `committing` marker appears
  outage        the server stops answering for 0.6 s mid-run, then returns
                (made by the proxy: moto keeps its buckets in memory, so a
                real restart would lose them)
  slowdown      25% of requests answered 503 SlowDown; the run must succeed
  restart       the server killed (-9) mid-run and started again on its
                data (`scripts/s3-server.sh restart`: SeaweedFS only). The
                run may fail (spool gives up on a server that refuses
                connections for more than a few seconds); whether it did is
                counted. Not among the default kinds: it stops the server
                for every client, so it runs alone.

Prints the outcomes per kind and `N passed, N failed in S s`.
"""
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
import uuid

import boto3

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPOOL = os.environ.get("SPOOL_BIN", str(ROOT / "target" / "release" / "spool"))
UPSTREAM = os.environ["AWS_ENDPOINT_URL"].split("://", 1)[1]
TRIALS = int(os.environ.get("TRIALS", "20"))
# A run's requests up to its `committing` marker, about: the prefix
# listed, 41 uploads begun, their ids written, 41 parts, the manifest and
# the journal staged. kill-upload kills at a request drawn from 1 to this.
UPLOAD_REQUESTS = 90


class Faults:
    delay = 0.0
    slowdown = 0.0
    down_until = 0.0
    rng = random.Random(1)
    # kill -9 `victim` as its `kill_at`-th request arrives (counted from 1)
    lock = threading.Lock()
    requests = 0
    kill_at = 0
    victim = None


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        with Faults.lock:
            Faults.requests += 1
            if Faults.victim and Faults.requests == Faults.kill_at:
                Faults.victim.send_signal(signal.SIGKILL)
        if time.time() < Faults.down_until:
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if Faults.delay:
            time.sleep(Faults.rng.uniform(0, Faults.delay))
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
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "server", "date"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

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


def spool_env(endpoint):
    env = dict(os.environ, AWS_ENDPOINT_URL=endpoint)
    return env


def run_spool(out, path, endpoint, extra=()):
    args = [SPOOL, "partition", "--by", "key", "--header", "--delimiter", "comma", "--memory", "64M",
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
            if key.endswith("/journal.tsv") and "_staging-" in key:
                try:
                    text = self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read().decode()
                except self.s3.exceptions.NoSuchKey:
                    continue
                named |= {line.split("\t")[1] for line in text.splitlines() if line.startswith("upload\t")}
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

    def committed_state(self, inputs):
        keys = self.keys()
        if any("_staging-" in k for k in keys):
            return None, "staging objects left"
        if self.s3.list_multipart_uploads(Bucket=self.bucket).get("Uploads"):
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


def clean(endpoint, bucket):
    return subprocess.run([SPOOL, "partition", "clean", f"s3://{bucket}/ds/"], env=spool_env(endpoint),
                          capture_output=True, text=True)


class Dataset:
    """One bucket per kind: its committed input ("a" or "b"), which each
    trial replaces with the other one (--force), disturbed."""

    def __init__(self, s3, proxy, tmp):
        self.bucket = f"trial-{uuid.uuid4().hex[:10]}"
        s3.create_bucket(Bucket=self.bucket)
        self.checker = Checker(s3, self.bucket)
        self.out = f"s3://{self.bucket}/ds/"
        self.inputs = {"a": (tmp / "a.csv", 1_500), "b": (tmp / "b.csv", 2_000)}
        for seed, (path, records) in enumerate(self.inputs.values()):
            if not path.exists():
                write_input(path, seed, records)
        first = run_spool(self.out, self.inputs["a"][0], proxy)
        first.wait()
        assert first.returncode == 0, first.stderr.read()
        self.committed = "a"

    def counts(self):
        return {name: records for name, (_, records) in self.inputs.items()}


def trial(kind, n, dataset, proxy):
    checker = dataset.checker
    other = "b" if dataset.committed == "a" else "a"
    Faults.delay = 0.01 if kind.startswith("kill") else 0.0
    Faults.slowdown = 0.25 if kind == "slowdown" else 0.0
    proc = run_spool(dataset.out, dataset.inputs[other][0], proxy, ["--force"])
    if kind == "kill-upload":
        with Faults.lock:
            Faults.requests, Faults.victim = 0, proc
            Faults.kill_at = Faults.rng.randint(1, UPLOAD_REQUESTS)
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
        if kind == "restart" and outage_at and elapsed > outage_at:
            subprocess.run([ROOT / "scripts" / "s3-server.sh", "restart"], check=True)
            outage_at = 0
        time.sleep(0.01)
    if proc.poll() is None:
        proc.kill()
        return f"{kind} {n}: run did not end in 60 s"
    Faults.delay = Faults.slowdown = 0.0
    Faults.down_until = 0.0
    with Faults.lock:
        Faults.victim = None
    strays |= checker.invariant()
    if kind == "slowdown" and proc.returncode != 0:
        return f"slowdown {n}: run failed: {proc.stderr.read().decode()[-300:]}"
    if kind == "restart":
        ran = "run: failed" if proc.returncode else "run: succeeded"
        Outcomes.seen[ran] = Outcomes.seen.get(ran, 0) + 1
    cleaned = clean(proxy, dataset.bucket)
    for word in ("committed run", "rolled back run", "aborted upload"):
        if word in cleaned.stdout:
            Outcomes.seen[f"clean: {word}"] = Outcomes.seen.get(f"clean: {word}", 0) + 1
    if cleaned.returncode != 0:
        return f"{kind} {n}: clean failed: {cleaned.stderr[-300:]}"
    if strays:
        return f"{kind} {n}: objects of an uncommitted run without a journal: {sorted(strays)[:3]}"
    state, problem = checker.committed_state(dataset.counts())
    if problem:
        return f"{kind} {n}: after clean: {problem}"
    Outcomes.seen[state] = Outcomes.seen.get(state, 0) + 1
    Outcomes.seen[f"{'kept' if state == dataset.committed else 'replaced'}"] = \
        Outcomes.seen.get('kept' if state == dataset.committed else 'replaced', 0) + 1
    dataset.committed = state
    return None


def main():
    s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    proxy = start_proxy()
    tmp = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"spool-s3-faults-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    kinds = sys.argv[1:] or ["kill-upload", "kill-commit", "outage", "slowdown"]
    passed = failed = 0
    started = time.time()
    for kind in kinds:
        kind_started = time.time()
        dataset = Dataset(s3, proxy, tmp)
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
