"""The shape of ``spool.partition``'s result: plain dicts, typed.

A summary is a ``dict`` rather than a class so that a Spark, Dask or Ray
task can return it and the driver receive it (pickled like any dict).
"""

from typing import List, TypedDict

__all__ = ["PartitionGroup", "PartitionSummary"]


class PartitionGroup(TypedDict):
    """One output file of a run (with Parquet, the first of its parts)."""

    column: str
    """The ``by`` column it belongs to (its header name or number)."""
    key: bytes
    """The key, as it appeared in the input (unquoted)."""
    path: str
    """The file written, under the published output."""
    records: int
    """Records written to it (the header not counted)."""
    files: int
    """Files written for the key: 1, or with Parquet the number of parts."""


class PartitionSummary(TypedDict):
    """What a run of ``spool.partition`` did."""

    records: int
    """Records written (read, less filtered and skipped ones)."""
    records_in: int
    """Records read (headers excluded)."""
    filtered: int
    """Records dropped by ``where``."""
    skipped_invalid: int
    """Records skipped for too few fields (``skip_invalid=True``)."""
    bytes_in: int
    """Decompressed bytes read."""
    bytes_out: int
    """Bytes written (after compression)."""
    files: int
    """Output files written."""
    reopened: int
    """Times a closed output file was opened again (``max_open`` reached)."""
    finishing: float
    """Seconds from the last byte read to the dataset visible (the commit;
    for ``s3://`` output, the uploads and their completion)."""
    groups: List[PartitionGroup]
    """One entry per output key, in the order keys first appeared."""
    stale_removed: List[str]
    """Staging directories of killed earlier runs, removed at the start."""
