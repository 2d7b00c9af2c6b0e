"""spool: byte chains without quadratic copies.

``StringChain`` is a queue of ``bytes`` chunks with O(1) append and cheap
pops at the front, a drop-in for the ``stringchain`` package and foolscap's
copy of it. ``BananaDecoder`` decodes a stream of Banana tokens fed in
chunks of any size. Both are implemented in Rust (``spool._spool``).
"""

from ._spool import BananaDecoder, StringChain, __version__

__all__ = ["BananaDecoder", "StringChain", "__version__"]
