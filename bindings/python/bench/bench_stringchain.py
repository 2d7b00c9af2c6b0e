"""StringChain benchmarks: spool.StringChain next to foolscap's pure-Python
StringChain and a plain bytearray, on the stringchain package's benchmark
shapes and on Banana's pop-65-push-back-the-rest header loop.

Run (after scripts/test-python.sh has built the extension):
    bindings/python/.venv/bin/python bindings/python/bench/bench_stringchain.py
Prints one line per case: seconds (best of up to 5) and spool's speed-up.
"""

import sys
import time

from foolscap.stringchain import StringChain as FoolscapChain
from spool import StringChain as SpoolChain


class ByteArrayChain:
    """The flat-buffer way: one bytearray, appended to and cut from the front."""

    def __init__(self):
        self.b = bytearray()

    def append(self, s):
        self.b += s

    def appendleft(self, s):
        self.b[0:0] = s

    def popleft(self, n):
        out = bytes(self.b[:n])
        del self.b[:n]
        return out

    def __len__(self):
        return len(self.b)


def best(fn, runs=5, budget=3.0):
    """Best of `runs` timings, stopping early once `budget` seconds are spent
    (the quadratic peers take tens of seconds per run on the larger cases)."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
        if sum(times) > budget:
            break
    return min(times), result


def one_gulp(cls, total=8 << 20, pop=100):
    data = b"x" * total

    def run():
        c = cls()
        c.append(data)
        n = 0
        while len(c):
            n += len(c.popleft(pop))
        return n

    return run


def many_gulps(cls, total=8 << 20, gulp=4096, pop=100):
    pieces = [b"y" * gulp for _ in range(total // gulp)]

    def run():
        c = cls()
        for p in pieces:
            c.append(p)
        n = 0
        while len(c):
            n += len(c.popleft(pop))
        return n

    return run


def produce_consume(cls, total=8 << 20, gulp=4096, pop=1000):
    pieces = [b"z" * gulp for _ in range(total // gulp)]

    def run():
        c = cls()
        n = 0
        for p in pieces:
            c.append(p)
            while len(c) >= pop:
                n += len(c.popleft(pop))
        return n + len(c.popleft(len(c)))

    return run


def whole_chunks(cls, total=64 << 20, gulp=64 << 10):
    # Reads handed on whole: each pop is exactly one appended chunk, which
    # spool and foolscap return as the very object appended (no copy).
    pieces = [bytes([i % 256]) * gulp for i in range(total // gulp)]

    def run():
        c = cls()
        n = 0
        for p in pieces:
            c.append(p)
            n += len(c.popleft(gulp))
        return n

    return run


def pop65_push_back(cls, chunk, tokens=20000, token_len=3):
    # Like banana's receive loop: pop a 65-byte window, use a short header,
    # push the rest back.
    data = (b"\x05\x81" + b"\x00" * (token_len - 2)) * (chunk // token_len)

    def run():
        c = cls()
        c.append(data[:chunk])
        n = 0
        for _ in range(min(tokens, chunk // token_len)):
            first65 = c.popleft(65)
            c.appendleft(first65[token_len:])
            n += 1
        return n

    return run


def main():
    cases = [
        ("one gulp 8 MiB, pops of 100 B", one_gulp),
        ("many gulps of 4 KiB, pops of 100 B", many_gulps),
        ("produce 4 KiB / consume 1000 B", produce_consume),
        ("64 MiB as 64 KiB chunks, whole-chunk pops", whole_chunks),
    ]
    for kb in (16, 64, 256, 1024):
        cases.append((f"pop 65 + push back rest, {kb} KiB chunk",
                      lambda cls, kb=kb: pop65_push_back(cls, kb << 10)))
    print(f"{'case':44} {'spool':>10} {'foolscap':>10} {'bytearray':>10}  speed-up vs foolscap / bytearray")
    for name, make in cases:
        results = {}
        for label, cls in (("spool", SpoolChain), ("foolscap", FoolscapChain), ("bytearray", ByteArrayChain)):
            results[label] = best(make(cls))
        answers = {r[1] for r in results.values()}
        if len(answers) != 1:
            sys.exit(f"{name}: peers disagree: {results}")
        s, f, b = (results[k][0] for k in ("spool", "foolscap", "bytearray"))
        print(f"{name:44} {s:10.4f} {f:10.4f} {b:10.4f}  {f / s:6.1f}x / {b / s:6.1f}x")


if __name__ == "__main__":
    main()
