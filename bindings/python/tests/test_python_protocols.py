"""spool.StringChain as a Python class: subclassing, pickling, copy and
deepcopy, counts of any size, repr, docstrings, and the abi3 build."""

import copy
import pathlib
import pickle

import pytest

import spool
from spool import BananaDecoder, StringChain


class Tagged(StringChain):
    def __init__(self, tag="none"):
        super().__init__()
        self.tag = tag


def chain_of(cls, *parts):
    c = cls()
    for p in parts:
        c.append(p)
    return c


def test_subclass_keeps_its_type_and_methods():
    c = Tagged("a")
    c.append(b"abc")
    c.append(b"def")
    assert isinstance(c, StringChain) and c.tag == "a"
    for made in (c.copy(), c.popleft_new_stringchain(1), c.popleft_at_least_new_stringchain(1)):
        assert type(made) is Tagged and made.tag == "none"
    assert bytes(c) == b"def"
    moved = c.popall_new_stringchain()
    assert type(moved) is Tagged and bytes(moved) == b"def" and len(c) == 0
    assert repr(moved) == "<Tagged: 3 bytes in 1 chunk>"


def test_failing_subclass_constructor_takes_nothing_out():
    class NeedsArgument(StringChain):
        def __init__(self, required):
            super().__init__()

    c = NeedsArgument("given")
    c.append(b"abc")
    for method, args in [
        ("popleft_new_stringchain", (2,)),
        ("popleft_at_least_new_stringchain", (2,)),
        ("popall_new_stringchain", ()),
        ("copy", ()),
    ]:
        with pytest.raises(TypeError, match="required"):
            getattr(c, method)(*args)
        assert len(c) == 3 and c.chunk_count() == 1, method
    assert bytes(c) == b"abc"


def test_plain_chain_returns_plain_chains():
    c = chain_of(StringChain, b"ab")
    assert type(c.copy()) is StringChain
    assert type(c.popleft_new_stringchain(1)) is StringChain


def test_constructor_arguments_only_for_subclasses_that_take_them():
    with pytest.raises(TypeError, match=r"StringChain\(\) takes no arguments"):
        StringChain(b"abc")

    class Plain(StringChain):
        pass

    with pytest.raises(TypeError, match=r"Plain\(\) takes no arguments"):
        Plain(1)
    assert Tagged(tag="x").tag == "x"


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_keeps_contents_boundaries_and_subclass_state(protocol):
    c = chain_of(Tagged, b"abc", b"de", b"fgh")
    c.tag = "pickled"
    c.trim(1)  # a partly consumed first chunk
    back = pickle.loads(pickle.dumps(c, protocol))
    assert type(back) is Tagged and back.tag == "pickled"
    assert back.chunk_count() == 3 and len(back) == 7
    assert back.popleft_at_least(1) == b"bc"
    assert bytes(back) == b"defgh"
    plain = pickle.loads(pickle.dumps(chain_of(StringChain, b"x"), protocol))
    assert type(plain) is StringChain and bytes(plain) == b"x"


def test_copy_and_deepcopy_share_whole_chunks_and_copy_attributes():
    first = b"0123456789"
    c = chain_of(Tagged, first, b"tail")
    c.tag = ["mutable"]
    shallow, deep = copy.copy(c), copy.deepcopy(c)
    for other in (shallow, deep):
        assert type(other) is Tagged and other.chunk_count() == 2
        assert other.popleft(10) is first, "bytes are immutable: copies share them"
    assert shallow.tag is c.tag
    assert deep.tag == c.tag and deep.tag is not c.tag
    assert bytes(c) == b"0123456789tail", "the original is untouched"


@pytest.mark.parametrize("huge", [2**63, 2**64, 2**70, 10**100])
def test_huge_counts_are_cut_to_the_length(huge):
    c = chain_of(StringChain, b"ab", b"cd")
    assert c.popleft_new_stringchain(huge).chunk_count() == 2
    c = chain_of(StringChain, b"ab", b"cd")
    assert c.popleft_at_least(huge) == b"abcd"
    c = chain_of(StringChain, b"ab", b"cd")
    assert bytes(c.popleft_at_least_new_stringchain(huge)) == b"abcd"
    c = chain_of(StringChain, b"ab", b"cd")
    c.trim(huge)
    assert len(c) == 0
    assert chain_of(StringChain, b"ab", b"cd").popleft(huge) == b"abcd"


def test_negative_and_non_integer_counts_name_the_method():
    with pytest.raises(ValueError, match=r"popleft: count must be >= 0, not -1$"):
        chain_of(StringChain, b"x").popleft(-1)
    with pytest.raises(ValueError, match="trim: count must be >= 0"):
        chain_of(StringChain, b"x").trim(-(2**70))
    with pytest.raises(TypeError, match=r"popleft\(\) takes an int count, not float"):
        chain_of(StringChain, b"x").popleft(1.0)

    class Index:
        def __index__(self):
            return 1

    assert chain_of(StringChain, b"xy").popleft(Index()) == b"x"


@pytest.mark.parametrize(
    "parts, text",
    [
        ((), "<StringChain: 0 bytes in 0 chunks>"),
        ((b"a",), "<StringChain: 1 byte in 1 chunk>"),
        ((b"ab", b"c"), "<StringChain: 3 bytes in 2 chunks>"),
    ],
)
def test_repr_grammar(parts, text):
    assert repr(chain_of(StringChain, *parts)) == text


@pytest.mark.parametrize("cls", [StringChain, BananaDecoder])
def test_every_public_method_has_a_docstring(cls):
    assert cls.__doc__ and cls.__doc__.strip()
    public = [n for n in dir(cls) if not n.startswith("_")]
    assert public
    undocumented = [n for n in public if not (getattr(cls, n).__doc__ or "").strip()]
    assert undocumented == []


def test_one_abi3_extension_with_stubs_and_marker():
    package = pathlib.Path(spool.__file__).parent
    extensions = [p.name for p in package.iterdir() if p.name.startswith("_spool.")]
    extensions.remove("_spool.pyi")
    # One build for every CPython from 3.9 on: `_spool.abi3.so`, not
    # `_spool.cpython-311-x86_64-linux-gnu.so`.
    assert extensions == ["_spool.abi3.so"], extensions
    assert (package / "py.typed").is_file()
    assert (package / "_spool.pyi").is_file()
