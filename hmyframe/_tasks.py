"""Run awaitables together, failing fast with the first error itself."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

__all__ = ["gather_or_raise"]

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
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
