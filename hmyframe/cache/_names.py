"""The names of cache files, in one place (the cache, the reader and temporary files use them).

In a ``<root>/<chain>/<dataset>/shard<S>`` folder:

* ``<dataset>__<start:010d>_<end:010d>.parquet``: the rows of blocks ``start..end``;
* ``<dataset>__<start:010d>_tail.parquet``: a *tail*, the newest blocks of a chunk a follower
  is filling (``hmyframe export --follow``): blocks ``start..end`` where ``end`` is the one
  its footer records (``hmyframe.end``). A tail is replaced in place, under the same name,
  as blocks arrive and renamed to its range name once its chunk is complete, so a listing of
  the folder holds each block once at every instant;
* ``<dataset>__at_<block:010d>.parquet``: a snapshot taken at ``block``.

Exports written as CSV use the range names with ``.csv``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from hmyframe.errors import CacheError
from hmyframe.storage import Storage

__all__ = ["TAIL", "CacheName", "parse_name", "range_name", "snapshot_name", "tail_end", "tail_name"]

#: What a tail's name has where a range name has its last block.
TAIL = "tail"

_NAME = re.compile(
    r"^(?P<dataset>[a-z_]+)__"
    r"(?:(?P<start>\d{10})_(?:(?P<end>\d{10})|(?P<tail>" + TAIL + r"))|at_(?P<block>\d{10}))"
    r"\.(?P<ext>parquet|csv)$"
)


@dataclass(frozen=True)
class CacheName:
    """What a file's name says it holds.

    Attributes
    ----------
    dataset
        The dataset it names.
    kind
        ``"range"``, ``"tail"`` or ``"snapshot"``.
    start, end
        Its blocks (``end`` is ``None`` for a tail: its footer records it; both the snapshot's
        block for a snapshot).
    ext
        ``"parquet"`` or ``"csv"``.
    """

    dataset: str
    kind: Literal["range", "tail", "snapshot"]
    start: int
    end: int | None
    ext: str


def parse_name(name: str) -> CacheName | None:
    """What the file name ``name`` says (``None``: not a cache file's name).

    >>> parse_name("blocks__0000000100_0000000199.parquet").end
    199
    >>> parse_name("blocks__0000000200_tail.parquet").kind
    'tail'
    >>> parse_name("notes.txt") is None
    True
    """
    m = _NAME.match(name)
    if m is None:
        return None
    if m["block"] is not None:
        block = int(m["block"])
        return CacheName(m["dataset"], "snapshot", block, block, m["ext"])
    if m["tail"] is not None:
        if m["ext"] != "parquet":
            return None
        return CacheName(m["dataset"], "tail", int(m["start"]), None, m["ext"])
    return CacheName(m["dataset"], "range", int(m["start"]), int(m["end"]), m["ext"])


def range_name(dataset: str, start: int, end: int, ext: str = "parquet") -> str:
    """The name of the file of ``dataset``'s blocks ``start..end``."""
    return f"{dataset}__{start:010d}_{end:010d}.{ext}"


def tail_name(dataset: str, start: int) -> str:
    """The name of the tail of ``dataset`` that starts at block ``start``."""
    return f"{dataset}__{start:010d}_{TAIL}.parquet"


def snapshot_name(dataset: str, block: int) -> str:
    """The name of the snapshot of ``dataset`` taken at ``block``."""
    return f"{dataset}__at_{block:010d}.parquet"


def tail_end(files: Storage, path: PurePath) -> int:
    """The last block of the tail ``path``, from its footer.

    Raises
    ------
    FileNotFoundError
        The tail is gone (renamed to its range name since it was listed).
    CacheError
        Its footer is unreadable or records no last block.
    """
    try:
        meta = files.read_metadata(path)
    except FileNotFoundError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow's and the filesystem's errors alike
        raise CacheError(f"cannot read the footer of {files.url(path)}: {exc}") from None
    value = (meta.metadata or {}).get(b"hmyframe.end", b"")
    if not value.isdigit():
        raise CacheError(f"{files.url(path)} records no last block (hmyframe.end = {value!r})")
    return int(value)
