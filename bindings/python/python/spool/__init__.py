"""spool: byte chains without quadratic copies.

``StringChain`` is a queue of ``bytes`` chunks with O(1) append and cheap
pops at the front, a drop-in for the ``stringchain`` package and foolscap's
copy of it. ``BananaDecoder`` decodes a stream of Banana tokens fed in
chunks of any size. ``partition`` writes every record of delimited-text
inputs to the file of its key (``spool partition`` in-process, for a script
or each task of Spark, Dask or Ray). All are implemented in Rust
(``spool._spool``).
"""

from ._spool import BananaDecoder, PartitionError, StringChain, __version__, partition
from ._summary import PartitionGroup, PartitionSummary

__all__ = [
    "BananaDecoder",
    "PartitionError",
    "PartitionGroup",
    "PartitionSummary",
    "StringChain",
    "__version__",
    "partition",
]
