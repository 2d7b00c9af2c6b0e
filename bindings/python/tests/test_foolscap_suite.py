"""foolscap's own StringChain test suite, run against spool.StringChain.

The suite ships inside the foolscap package; it is loaded from there with its
import of foolscap's class pointed at ours, and runs on twisted.trial as it
does in foolscap."""

import pathlib

import foolscap

SUITE = pathlib.Path(foolscap.__file__).parent / "test" / "test_stringchain.py"
ORIGINAL_IMPORT = "from foolscap.stringchain import StringChain as BufClass"


def _load_suite():
    source = SUITE.read_text()
    assert ORIGINAL_IMPORT in source, "foolscap's suite changed shape"
    source = source.replace(ORIGINAL_IMPORT, "from spool import StringChain as BufClass")
    namespace = {"__name__": "foolscap_stringchain_suite"}
    exec(compile(source, str(SUITE), "exec"), namespace)
    return namespace["T"]


FoolscapStringChainSuite = _load_suite()


def test_suite_has_tests():
    names = [n for n in dir(FoolscapStringChainSuite) if n.startswith("test_")]
    assert len(names) >= 8, names
