"""spool.BananaDecoder: tokens decoded the same under every chunking, and
clear errors for malformed input."""

import random
import struct

import pytest

from spool import BananaDecoder

TYPES = {
    "LIST": 0x80, "INT": 0x81, "STRING": 0x82, "NEG": 0x83, "FLOAT": 0x84,
    "LONGINT": 0x85, "LONGNEG": 0x86, "VOCAB": 0x87, "OPEN": 0x88,
    "CLOSE": 0x89, "ABORT": 0x8A, "ERROR": 0x8D, "PING": 0x8E, "PONG": 0x8F,
}


def header(n):
    out = bytearray()
    while True:
        out.append(n & 0x7F)
        n >>= 7
        if not n:
            return bytes(out)


def encode(kind, value):
    t = bytes([TYPES[kind]])
    if kind in ("STRING", "ERROR"):
        return header(len(value)) + t + value
    if kind == "FLOAT":
        return t + struct.pack("!d", value)
    if kind in ("LONGINT", "LONGNEG"):
        mag = abs(value).to_bytes((abs(value).bit_length() + 7) // 8 or 1, "big")
        return header(len(mag)) + t + mag
    if kind == "NEG":
        return header(-value) + t
    return header(value) + t


TOKENS = [
    ("OPEN", 0), ("STRING", b"list"), ("LIST", 3), ("INT", 42), ("NEG", -7),
    ("FLOAT", 1.5), ("LONGINT", 2**100 + 3), ("LONGNEG", -(2**90)),
    ("STRING", b"x" * 5000), ("VOCAB", 12), ("CLOSE", 0), ("ABORT", 9),
    ("ERROR", b"boom"), ("PING", 1), ("PONG", 1),
]


def decode(wire, cuts):
    d = BananaDecoder()
    out, at, k = [], 0, 0
    while at < len(wire):
        step = cuts[k % len(cuts)]
        k += 1
        d.feed(wire[at:at + step])
        at += step
        out.extend(d)
    assert d.buffered() == 0
    return out


@pytest.mark.parametrize("cuts", [[1], [3], [7], [65], [100000]])
def test_tokens_under_every_split(cuts):
    wire = b"".join(encode(k, v) for k, v in TOKENS)
    assert decode(wire, cuts) == TOKENS


def test_random_splits():
    wire = b"".join(encode(k, v) for k, v in TOKENS)
    rng = random.Random(5)
    for _ in range(20):
        cuts = [rng.randrange(1, 40) for _ in range(10)]
        assert decode(wire, cuts) == TOKENS


def test_incomplete_token_waits():
    d = BananaDecoder()
    d.feed(encode("STRING", b"hello")[:4])
    assert d.next_token() is None
    d.feed(b"llo")
    assert d.next_token() == ("STRING", b"hello")


def test_errors_name_problem_and_offset():
    d = BananaDecoder()
    d.feed(encode("INT", 1) + b"\x01\x8b")
    assert d.next_token() == ("INT", 1)
    with pytest.raises(ValueError, match="unknown token type byte 0x8b at stream offset 2"):
        d.next_token()
    d = BananaDecoder()
    d.feed(b"\x00" * 65 + b"\x81")
    with pytest.raises(ValueError, match="longer than 64 bytes"):
        d.next_token()
    d = BananaDecoder(max_body=10)
    d.feed(encode("STRING", b"y" * 11))
    with pytest.raises(ValueError, match="STRING token at stream offset 0 has a 11-byte body"):
        d.next_token()
    with pytest.raises(TypeError):
        BananaDecoder().feed("text")
