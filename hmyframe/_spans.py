"""Inclusive block ranges ``(start, end)``: merged, their gaps, a non-overlapping cover, and
the rows of a table in one.

One copy of this arithmetic for the cache (what its files hold, what is missing, overlaps to
repair), the reader (each block read from one file), exports and the engine (the gaps of
several datasets, the chunks not fetched, the part of a chunk to write).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from pathlib import PurePath
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["block_slice", "cover", "gaps", "merge", "overlapping", "rows_between"]

_P = TypeVar("_P", bound=PurePath)


def merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``ranges`` sorted, with ranges that overlap or touch merged into one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def gaps(
    held: list[tuple[int, int]] | list[tuple[int, int, PurePath]], start: int, end: int
) -> list[tuple[int, int]]:
    """Sub-ranges of ``start..end`` that no range of ``held`` covers."""
    gaps: list[tuple[int, int]] = []
    cursor = start
    for c_start, c_end in sorted((item[0], item[1]) for item in held):
        if c_end < cursor:
            continue
        if c_start > end:
            break
        if c_start > cursor:
            gaps.append((cursor, min(end, c_start - 1)))
        cursor = max(cursor, c_end + 1)
        if cursor > end:
            break
    if cursor <= end:
        gaps.append((cursor, end))
    return gaps


def cover(candidates: list[tuple[int, int, _P]]) -> list[tuple[int, int, _P]]:
    """Range files ``(start, end, path)`` as a non-overlapping cover sorted by block.

    Where files overlap (two processes wrote the same blocks) the widest file wins; a file that
    only partly overlaps the one before it is used from the block after that one (its start is
    clipped), so each block is read from exactly one file.
    """
    out: list[tuple[int, int, _P]] = []
    for start, end, path in sorted(candidates, key=lambda c: (c[0], -(c[1] - c[0]))):
        if out and start <= out[-1][1]:
            if end <= out[-1][1]:
                continue  # contained in the previous file
            start = out[-1][1] + 1
        out.append((start, end, path))
    return out


def overlapping(ranges: list[tuple[int, int, PurePath]]) -> bool:
    """Whether two of ``ranges`` share a block."""
    ordered = sorted(ranges)
    return any(b[0] <= a[1] for a, b in itertools.pairwise(ordered))


def rows_between(table: pa.Table, lo: int, hi: int) -> pa.Table:
    """Rows of blocks ``lo..hi`` (by the ``block_number`` column)."""
    import pyarrow.compute as pc

    column = table["block_number"]
    return table.filter(pc.and_(pc.greater_equal(column, lo), pc.less_equal(column, hi)))


def block_slice(table: pa.Table, lo: int, hi: int) -> pa.Table:
    """Rows of blocks ``lo..hi``, as :func:`rows_between`, but a zero-copy slice where the table
    is in block order (no null ``block_number``): what a conversion reads of a chunk's tables,
    so its pieces do not each hold a copy of their rows."""
    import numpy as np

    column = table["block_number"]
    if column.null_count:
        return rows_between(table, lo, hi)
    numbers = column.to_numpy()
    if len(numbers) > 1 and (np.diff(numbers) < 0).any():
        return rows_between(table, lo, hi)
    first = int(np.searchsorted(numbers, lo, side="left"))
    last = int(np.searchsorted(numbers, hi, side="right"))
    return table.slice(first, last - first)
