"""Run awaitables together, failing fast with the first error itself."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import Any, TypeVar

__all__ = ["cancel_and_wait", "gather_or_raise"]

T = TypeVar("T")


async def gather_or_raise(awaitables: Iterable[Awaitable[T]]) -> list[T]:
    """Run ``awaitables`` concurrently and return their results in order.

    On the first failure the others are cancelled (and awaited) and that failure is raised as
    itself, not inside an ``ExceptionGroup`` as ``asyncio.TaskGroup`` would, so callers see the
    ``HmyframeError`` that happened first. Work finished before the failure (chunks already
    written to the cache) stays done.
    """
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    if not tasks:
        return []
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            if not task.cancelled() and (exc := task.exception()) is not None:
                raise exc
        return [task.result() for task in tasks]
    finally:
        await cancel_and_wait(tasks)


async def cancel_and_wait(futures: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel those of ``futures`` not done yet and wait for all of them, their errors retrieved
    and dropped (work no longer wanted: nobody reads its result)."""
    futures = list(futures)
    for future in futures:
        if not future.done():
            future.cancel()
    await asyncio.gather(*futures, return_exceptions=True)
