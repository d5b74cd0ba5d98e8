"""Running a range fetch's chunks so that a failure never costs the chunks that succeed.

:func:`run_chunks` fetches chunks ``limit`` at a time. A chunk that fails because the endpoint
misbehaved (HTTP errors, resets, timeouts, rate limits, after the client's retries) does not
stop the others: under persistent faults every chunk that can be fetched is fetched and
cached. Other failures (a malformed answer, a wrong chain, a full disk) stop new chunks from
starting while the running ones finish. Either way the error raised at the end names the block
ranges that were not fetched and says that running again resumes (what was fetched is in the
cache and is not asked for again).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from hmyframe._spans import merge
from hmyframe.errors import HmyframeError
from hmyframe.rpc import endpoint_fault

__all__ = ["run_chunks"]

#: Chunks failing in a row (none succeeding in between), per concurrent chunk, after which no
#: new chunk is started: the endpoint is down, not flaky.
_GIVE_UP_FACTOR = 3


async def run_chunks(
    chunks: Sequence[tuple[int, int]],
    fetch: Callable[[int, int], Awaitable[None]],
    limit: int,
    *,
    shard: int,
    cached: bool,
) -> None:
    """Run ``fetch(start, end)`` for every chunk, ``limit`` at a time, keeping what succeeds.

    Parameters
    ----------
    chunks
        Inclusive block ranges, in block order.
    fetch
        Fetches (and stores) one chunk.
    limit
        Chunks in flight at once.
    shard
        Shard of the blocks (named in the error).
    cached
        Whether finished chunks are kept in a cache (the error then says a rerun resumes).

    Raises
    ------
    HmyframeError
        The first failure that stopped the run (else the first failure), its message
        extended with the block ranges not fetched; the ranges are also in its
        ``unfetched`` attribute.
    """
    semaphore = asyncio.Semaphore(limit)
    failures: list[tuple[tuple[int, int], HmyframeError]] = []
    skipped: list[tuple[int, int]] = []
    state = {"stopped": False, "in_a_row": 0}

    async def one(chunk: tuple[int, int]) -> None:
        async with semaphore:
            if state["stopped"]:
                skipped.append(chunk)
                return
            try:
                await fetch(*chunk)
            except HmyframeError as exc:
                failures.append((chunk, exc))
                state["in_a_row"] += 1
                if not endpoint_fault(exc) or state["in_a_row"] >= _GIVE_UP_FACTOR * limit:
                    state["stopped"] = True
                return
            state["in_a_row"] = 0

    tasks = [asyncio.ensure_future(one(chunk)) for chunk in chunks]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if not failures:
        return
    stopping = [exc for _, exc in failures if not endpoint_fault(exc)]
    error = stopping[0] if stopping else failures[0][1]
    unfetched = merge([chunk for chunk, _ in failures] + skipped)
    blocks = sum(b - a + 1 for a, b in unfetched)
    ranges = ", ".join(f"{a}..{b}" for a, b in unfetched)
    done = len(chunks) - len(failures) - len(skipped)
    if cached:
        tail = (
            f"{done} of {len(chunks)} chunks were fetched and are kept in the cache; blocks not fetched "
            f"({blocks}): {ranges} of shard {shard}. Run the same command again to resume: only these "
            "blocks will be fetched"
        )
    else:
        tail = f"blocks not fetched ({blocks}): {ranges} of shard {shard} (no cache: nothing was kept)"
    error.args = (f"{error}; {tail}",)
    error.unfetched = unfetched  # type: ignore[attr-defined]
    raise error
