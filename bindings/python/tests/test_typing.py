"""The type stubs: `mypy --strict` accepts the typed example (which also
runs), rejects misuse (so the stubs are read, not skipped as missing), and
`stubtest` finds the stubs and the compiled module in agreement."""

import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "typed_example.py"


def run(*args, **kwargs):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, **kwargs)


def test_typed_example_runs():
    done = run(str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert "typed example ok" in done.stdout


def test_mypy_strict_accepts_typed_example():
    done = run("-m", "mypy", "--strict", "--no-incremental", str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_rejects_misuse(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from spool import StringChain\n"
        "c = StringChain()\n"
        "c.append('text')\n"
        "n: str = c.popleft(1)\n"
    )
    done = run("-m", "mypy", "--strict", "--no-incremental", str(bad))
    assert done.returncode == 1, done.stdout
    assert 'Argument 1 to "append" of "StringChain" has incompatible type "str"' in done.stdout
    assert 'Incompatible types in assignment (expression has type "bytes"' in done.stdout
    assert "missing library stubs" not in done.stdout


def test_stubtest_finds_stubs_and_module_in_agreement():
    done = run("-m", "mypy.stubtest", "spool")
    assert done.returncode == 0, done.stdout + done.stderr
