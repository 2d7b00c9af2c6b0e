"""Type stubs of the extension module behind ``spool`` (written in Rust)."""

import os
from typing import Any, Iterable, Optional, Sequence, SupportsIndex, Tuple, Union

from ._summary import PartitionSummary

from typing_extensions import Self, TypeAlias, disjoint_base, final

__all__ = ["StringChain", "BananaDecoder", "PartitionError", "partition", "__version__"]

__version__: str

_Token: TypeAlias = Tuple[str, Union[bytes, int, float]]
_Path: TypeAlias = Union[str, "os.PathLike[str]"]
_Column: TypeAlias = Union[str, int]

@disjoint_base
class StringChain:
    """A queue of ``bytes`` chunks with O(1) append and cheap pops at the front."""

    def __init__(self) -> None: ...
    def append(self, s: bytes) -> None:
        """Adds ``s`` to the end of the chain, without copying it."""
    def appendleft(self, s: bytes) -> None:
        """Adds ``s`` to the beginning of the chain, without copying it."""
    def popleft(self, n: SupportsIndex) -> bytes:
        """Removes and returns the first ``n`` bytes (all of them if ``n`` is larger)."""
    def popleft_new_stringchain(self, n: SupportsIndex) -> Self:
        """Removes the first ``n`` bytes and returns them as a new chain (no copy)."""
    def popleft_at_least(self, n: SupportsIndex) -> bytes:
        """Removes whole leading chunks until at least ``n`` bytes are removed."""
    def popleft_at_least_new_stringchain(self, n: SupportsIndex) -> Self:
        """Like ``popleft_at_least``, returning a new chain (no copy)."""
    def popall(self) -> bytes:
        """Removes and returns everything."""
    def popall_new_stringchain(self) -> Self:
        """Removes everything and returns it as a new chain (no copy)."""
    def trim(self, n: SupportsIndex) -> None:
        """Drops the first ``n`` bytes (all of them if ``n`` is larger)."""
    def clear(self) -> None:
        """Empties the chain."""
    def copy(self) -> Self:
        """A new chain with the same contents, sharing the chunk objects."""
    def as_bytes(self) -> bytes:
        """The whole contents as one ``bytes``, merging the chain in place."""
    def chunk_count(self) -> int:
        """Number of chunks."""
    def __bytes__(self) -> bytes: ...
    def __len__(self) -> int: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...
    def __setstate__(
        self, state: Tuple[list[bytes], Optional[dict[str, Any]]]
    ) -> None: ...

@final
class BananaDecoder:
    """Decodes a stream of Banana tokens fed in chunks of any size.

    Tokens are ``(kind, value)`` tuples: ``("STRING", b"...")``, ``("INT", 5)``,
    ``("FLOAT", 1.5)``, ... Malformed input raises ``ValueError``.
    """

    def __new__(cls, max_body: int = ...) -> Self:
        """A decoder accepting bodies up to ``max_body`` bytes (64 MiB by default)."""
    def feed(self, data: bytes) -> None:
        """Appends ``data`` to the input."""
    def buffered(self) -> int:
        """Bytes fed but not yet decoded."""
    def next_token(self) -> Optional[_Token]:
        """The next complete token as ``(kind, value)``, or ``None``."""
    def __iter__(self) -> Self: ...
    def __next__(self) -> _Token: ...

class PartitionError(ValueError):
    """An input holds a record or header that cannot be used.

    The message reads ``path:line: byte offset N: what is wrong``; the
    attributes say the same. The run's partial output was removed.
    """

    path: str
    line: int
    offset: int

def partition(
    inputs: Union[_Path, Iterable[_Path]],
    out: _Path,
    by: Union[_Column, Sequence[_Column]],
    *,
    header: bool = False,
    delimiter: Optional[str] = None,
    quote: Optional[str] = None,
    input_format: Optional[str] = None,
    where: Sequence[str] = ...,
    format: str = "text",
    compress: Optional[str] = None,
    level: Optional[int] = None,
    schema: Optional[str] = None,
    row_group_size: int = ...,
    encodings: Optional[str] = None,
    memory: Union[int, str, None] = None,
    threads: Optional[int] = None,
    max_open: Optional[int] = None,
    layout: str = "hive",
    skip_invalid: bool = False,
    force: bool = False,
    fsync: bool = False,
    run_id: Optional[str] = None,
    append: bool = False,
    max_rows_per_file: Optional[int] = None,
    max_bytes_per_file: Union[int, str, None] = None,
) -> PartitionSummary:
    """Writes every record of ``inputs`` to the file of its key under ``out``.

    ``spool partition`` in-process, with the GIL released: the keywords are
    its flags. Raises ``ValueError`` for options that cannot work,
    ``OSError`` for I/O, ``PartitionError`` for bad input data.
    """
