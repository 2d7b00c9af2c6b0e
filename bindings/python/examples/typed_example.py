"""A typed program using spool, checked by `mypy --strict` and run by the
tests: a length-prefixed message reader over StringChain, a subclass that
keeps its own attribute through copies and pickles, Banana tokens, and a
partition run whose summary is read by key."""

from __future__ import annotations

import copy
import pathlib
import pickle
import tempfile
from typing import Dict, Iterator, Optional

from spool import BananaDecoder, PartitionError, PartitionSummary, StringChain, __version__, partition


class Inbox(StringChain):
    """A StringChain that remembers which peer its bytes came from."""

    def __init__(self, peer: str = "unknown") -> None:
        super().__init__()
        self.peer = peer

    def next_message(self) -> Optional[bytes]:
        """One message framed as a 1-byte length and a body, if complete."""
        if len(self) < 1:
            return None
        header = self.copy().popleft(1)
        if len(self) < 1 + header[0]:
            return None
        self.trim(1)
        return self.popleft(header[0])


def messages(chunks: list[bytes], peer: str) -> Iterator[bytes]:
    inbox = Inbox(peer)
    for chunk in chunks:
        inbox.append(chunk)
        while (message := inbox.next_message()) is not None:
            yield message


def records_per_key(folder: pathlib.Path) -> Dict[str, int]:
    """Partitions a small CSV by its `city` column; records of each key."""
    data = folder / "in.csv"
    data.write_text('id,city\n1,Paris\n2,"New York, NY"\n3,Paris\n')
    summary: PartitionSummary = partition(
        [data], folder / "out", by="city", header=True, delimiter="comma", run_id="r1"
    )
    assert summary["files"] == 2
    try:
        partition(data, folder / "bad", by=3, header=True, delimiter="comma")
    except PartitionError as e:
        assert e.line == 2 and e.path == str(data), e
    else:
        raise AssertionError("a record without column 3 was written")
    return {g["key"].decode(): g["records"] for g in summary["groups"]}


def main() -> None:
    wire = b"\x05hello\x01,\x05world"
    got = list(messages([wire[i : i + 3] for i in range(0, len(wire), 3)], "peer-a"))
    assert got == [b"hello", b",", b"world"], got

    inbox = Inbox("peer-b")
    inbox.append(b"abc")
    inbox.append(b"def")
    head: Inbox = inbox.popleft_new_stringchain(4)
    assert head.chunk_count() == 2 and bytes(head) == b"abcd"
    clone: Inbox = pickle.loads(pickle.dumps(inbox))
    assert clone.peer == "peer-b" and bytes(clone) == b"ef"
    deep: Inbox = copy.deepcopy(inbox)
    assert deep.peer == "peer-b" and len(deep) == 2
    assert inbox.popleft(2**70) == b"ef"

    decoder = BananaDecoder(max_body=1 << 10)
    decoder.feed(b"\x05\x82hel")
    decoder.feed(b"lo\x07\x81")
    kinds = [kind for kind, _value in decoder]
    assert kinds == ["STRING", "INT"], kinds
    assert decoder.next_token() is None
    with tempfile.TemporaryDirectory() as folder:
        counts = records_per_key(pathlib.Path(folder))
    assert counts == {"Paris": 2, "New York, NY": 1}, counts
    print(f"typed example ok (spool {__version__})")


if __name__ == "__main__":
    main()
