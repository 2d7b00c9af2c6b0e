"""Third-party clients of the Pwned Passwords range API against `spool
pwned serve` on loopback: pyhibp (a maintained client of the official API,
pointed at the server through its base URL) must get every count right,
with and without padding; and the reference XXH3 implementation must give
each range's ETag from the body alone, as docs/pwned.md defines it.

Run by scripts/test-pwned-clients.sh, which installs the clients and sets
SPOOL_BIN.
"""

import hashlib
import os
import re
import subprocess
import threading

import pyhibp
import pyhibp.pwnedpasswords as pw
import pytest
import requests
import xxhash

SPOOL = os.environ["SPOOL_BIN"]
LINES = 20_000
SEED = 3


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A sample index served on an ephemeral port; yields (base URL,
    {HASH: count})."""
    work = tmp_path_factory.mktemp("pwned")
    text, index = work / "sample.txt", work / "pwned.idx"
    subprocess.run([SPOOL, "pwned", "sample", "--lines", str(LINES), "--seed", str(SEED),
                    "-o", str(text)], check=True)
    subprocess.run([SPOOL, "pwned", "build", "-o", str(index), str(text)], check=True,
                   stderr=subprocess.DEVNULL)
    counts = dict(line.strip().split(":") for line in text.open())
    proc = subprocess.Popen([SPOOL, "pwned", "serve", "--listen", "127.0.0.1:0",
                             "--sha1", str(index)], stderr=subprocess.PIPE, text=True)
    base = None
    for line in proc.stderr:
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            base = found.group(1)
            break
    assert base, "the server did not start"
    # Keep reading standard error so the server never blocks on it.
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    try:
        yield base, {h: int(c) for h, c in counts.items()}
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def passwords():
    """Sample passwords present in the index (below LINES) and absent."""
    present = [f"sample-{SEED}-{i}" for i in range(0, LINES, 97)]
    absent = [f"sample-{SEED}-{LINES + i}" for i in range(0, 5000, 97)]
    return present, absent


@pytest.mark.parametrize("padding", [False, True])
def test_pyhibp_gets_every_count(server, padding, monkeypatch):
    base, counts = server
    monkeypatch.setattr(pw, "PWNED_PASSWORDS_API_BASE_URI", base + "/")
    pyhibp.set_user_agent(ua="spool-tests")
    present, absent = passwords()
    for password in present:
        digest = hashlib.sha1(password.encode()).hexdigest().upper()
        assert pw.is_password_breached(password=password, add_padding=padding) == counts[digest]
    for password in absent:
        assert pw.is_password_breached(password=password, add_padding=padding) == 0
    # The padding is there when asked for, and only then.
    suffixes = pw.suffix_search(hash_prefix="00000", add_padding=padding)
    zero = [s for s in suffixes if s.endswith(":0")]
    assert (10 <= len(zero) <= 209) if padding else not zero


def test_range_etags_are_xxh3_of_the_body(server):
    base, counts = server
    session = requests.Session()
    for digest in list(counts)[:200]:
        response = session.get(f"{base}/range/{digest[:5]}")
        assert response.status_code == 200
        # requests asks for gzip and decodes it: a compressed copy is a
        # representation of its own, its ETag marked by the coding.
        coding = {"gzip": "-gz", "br": "-br"}.get(response.headers.get("Content-Encoding"), "")
        assert response.headers["ETag"] == f'"{xxhash.xxh3_64_hexdigest(response.content)}{coding}"'
        again = session.get(f"{base}/range/{digest[:5]}",
                            headers={"If-None-Match": response.headers["ETag"]})
        assert again.status_code == 304 and again.content == b""
