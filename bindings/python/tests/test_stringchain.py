"""spool.StringChain: every method, its stringchain semantics, object
identity where no copy is promised, and random operation sequences checked
against foolscap's pure-Python StringChain."""

import random

import pytest

from spool import StringChain

from foolscap.stringchain import StringChain as Reference


def chain_of(*parts):
    c = StringChain()
    for p in parts:
        c.append(p)
    return c


def test_append_len_and_empty_chunks():
    c = StringChain()
    c.append(b"ab")
    c.append(b"")
    c.append(b"c")
    assert len(c) == 3
    assert c.chunk_count() == 2
    assert bytes(c) == b"abc"


def test_appendleft_before_partly_consumed_front():
    c = chain_of(b"abcd")
    assert c.popleft(1) == b"a"
    c.appendleft(b"ef")
    assert c.copy().as_bytes() == b"efbcd"
    assert c.popleft(1) == b"e"
    assert c.popleft(2) == b"fb"
    assert c.popleft(3) == b"cd"
    assert len(c) == 0


def test_popleft_cuts_counts_to_length():
    c = chain_of(b"ab", b"c")
    assert c.popleft(2) == b"ab"
    assert c.popleft(5) == b"c"
    assert c.popleft(1) == b""
    assert c.popleft(0) == b""


def test_popleft_of_one_whole_chunk_returns_that_object():
    big = b"x" * 1000
    c = chain_of(big, b"tail")
    out = c.popleft(1000)
    assert out is big
    assert c.popall() == b"tail"


def test_popall_of_single_chunk_is_the_same_object():
    data = b"hello world"
    c = chain_of(data)
    assert c.popall() is data
    assert len(c) == 0


def test_popleft_new_stringchain_shares_and_keeps_boundaries():
    c = chain_of(b"abcde")
    head = c.popleft_new_stringchain(2)
    assert bytes(head.copy()) == b"ab"
    head.append(b"f")
    assert bytes(head) == b"abf"
    assert bytes(c) == b"cde"
    c = chain_of(b"a", b"bc", b"def")
    head = c.popleft_new_stringchain(4)
    assert head.chunk_count() == 3 and len(head) == 4
    assert c.popall() == b"ef"


def test_popleft_at_least_returns_whole_leading_chunks():
    first, second = b"abc", b"defg"
    c = chain_of(first, second, b"hi")
    assert c.popleft_at_least(1) is first
    assert c.popleft_at_least(5) == b"defghi"
    assert c.popleft_at_least(3) == b""
    c = chain_of(b"ab", b"cd", b"ef")
    rest = c.popleft_at_least_new_stringchain(3)
    assert rest.chunk_count() == 2 and bytes(rest) == b"abcd"
    assert bytes(c) == b"ef"


def test_popall_new_stringchain_moves_everything():
    c = chain_of(b"ab", b"cd")
    moved = c.popall_new_stringchain()
    assert len(c) == 0 and moved.chunk_count() == 2 and bytes(moved) == b"abcd"


def test_trim_clear_copy():
    c = chain_of(b"ab", b"c")
    c.trim(1)
    assert bytes(c.copy()) == b"bc"
    c.trim(10)
    assert len(c) == 0
    c = chain_of(b"abc")
    d = c.copy()
    c.clear()
    assert len(c) == 0 and bytes(d) == b"abc"


def test_as_bytes_merges_in_place():
    c = chain_of(b"ab", b"cd", b"e")
    c.trim(1)
    merged = c.as_bytes()
    assert merged == b"bcde"
    assert c.chunk_count() == 1
    assert c.as_bytes() is merged, "a merged chain hands out its one chunk"
    assert bytes(StringChain()) == b""


@pytest.mark.parametrize(
    "method",
    ["popleft", "popleft_new_stringchain", "popleft_at_least", "popleft_at_least_new_stringchain", "trim"],
)
def test_negative_counts_raise(method):
    with pytest.raises(ValueError):
        getattr(chain_of(b"abc"), method)(-1)


@pytest.mark.parametrize("bad", ["text", bytearray(b"x"), 3, None, memoryview(b"x")])
def test_non_bytes_raise(bad):
    c = StringChain()
    with pytest.raises(TypeError):
        c.append(bad)
    with pytest.raises(TypeError):
        c.appendleft(bad)


@pytest.mark.parametrize("seed", range(40))
def test_random_operations_match_foolscap(seed):
    rng = random.Random(seed)
    ours, theirs = StringChain(), Reference()
    for _ in range(300):
        op = rng.randrange(7)
        n = rng.randrange(0, 40)
        if op == 0:
            s = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 30)))
            ours.append(s)
            theirs.append(s)
        elif op == 1:
            s = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 10)))
            ours.appendleft(s)
            theirs.appendleft(s)
        elif op == 2:
            assert ours.popleft(n) == theirs.popleft(n)
        elif op == 3:
            a, b = ours.popleft_new_stringchain(n), theirs.popleft_new_stringchain(n)
            assert len(a) == len(b)
            assert bytes(a) == b.as_bytes()
        elif op == 4:
            ours.trim(n)
            theirs.trim(n)
        elif op == 5:
            assert ours.copy().as_bytes() == theirs.copy().as_bytes()
        else:
            assert ours.as_bytes() == theirs.as_bytes()
        assert len(ours) == len(theirs)
