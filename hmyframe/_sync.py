"""Run hmyframe's coroutines from synchronous code, including inside a running event loop.

Every fetcher is written once, as a coroutine. The sync twin is ``run(coroutine)``:

* with no event loop running in this thread (scripts, the CLI), it is ``asyncio.run``;
* inside a running loop (Jupyter, IPython with autoawait, an async web app calling sync
  code), blocking that loop on itself would dead-lock, so the coroutine runs on a private
  background event loop in a daemon thread and this thread waits for the result.

Everything a coroutine creates (aiohttp sessions, tasks) lives and dies on the loop that ran
it, so objects never cross loops.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, ParamSpec, TypeVar

__all__ = ["blocking_twin", "iterate", "iterating_twin", "run"]

T = TypeVar("T")
P = ParamSpec("P")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _background_loop() -> asyncio.AbstractEventLoop:
    """Return the private background loop, starting its thread on first use."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="hmyframe-sync-loop", daemon=True)
            thread.start()
            _loop = loop
        return _loop


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result, from any synchronous context.

    Parameters
    ----------
    coro
        The coroutine to run.

    Returns
    -------
    T
        Whatever the coroutine returns; its exceptions propagate unchanged.

    Notes
    -----
    A ``KeyboardInterrupt`` while waiting (Ctrl-C, or Jupyter's interrupt button) cancels
    the coroutine on the background loop before propagating.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(coro, _background_loop())
    try:
        return future.result()
    except KeyboardInterrupt:
        future.cancel()
        raise


def iterate(items: AsyncIterator[T]) -> Iterator[T]:
    """Iterate an async iterator from synchronous code, including inside a running event loop.

    Each item is awaited on the private background loop (as :func:`run` does inside a running
    loop), so the iterator, its tasks and sessions live on one loop from start to end, and this
    thread (a Jupyter cell) only waits for the next item.

    Parameters
    ----------
    items
        The async iterator (an async generator is closed when this generator is: a ``break``,
        its garbage collection, or an exception).

    Notes
    -----
    A ``KeyboardInterrupt`` while waiting cancels the pending step, closes the iterator on its
    loop and propagates.
    """
    loop = _background_loop()

    async def step() -> T:
        return await items.__anext__()

    try:
        while True:
            future = asyncio.run_coroutine_threadsafe(step(), loop)
            try:
                item = future.result()
            except StopAsyncIteration:
                return
            except KeyboardInterrupt:
                future.cancel()
                raise
            yield item
    finally:
        asyncio.run_coroutine_threadsafe(_aclose(items), loop).result()


async def _aclose(items: AsyncIterator[Any]) -> None:
    """Close an async generator once a cancelled step has left it (other iterators: nothing)."""
    close = getattr(items, "aclose", None)
    if close is None:
        return
    while getattr(items, "ag_running", False):  # noqa: ASYNC110 - no event tells when it leaves
        await asyncio.sleep(0.01)
    await close()


def blocking_twin(
    coroutine_function: Callable[P, Coroutine[Any, Any, T]], name: str, *, module: str = "hmyframe"
) -> Callable[P, T]:
    """The blocking function ``module.name`` that runs ``coroutine_function`` with :func:`run`.

    Same signature and documentation (plus a line naming its async door, ``hmyframe.aio.<name>``),
    so a public coroutine is written once and its sync twin is made from it: the one maker of
    sync twins (``hmyframe`` makes those of :mod:`hmyframe.aio`'s functions, ``hmyframe.report``
    those of the reports). ``twin.__wrapped__`` is the coroutine function.
    """

    @functools.wraps(coroutine_function)
    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return run(coroutine_function(*args, **kwargs))

    twin.__module__ = module
    twin.__name__ = twin.__qualname__ = name
    twin.__doc__ = (coroutine_function.__doc__ or "") + (
        f"\n    Blocking twin of ``await hmyframe.aio.{name}(...)`` (works inside Jupyter's running loop too).\n"
    )
    return twin


def iterating_twin(
    function: Callable[P, AsyncIterator[T]], name: str, *, module: str = "hmyframe"
) -> Callable[P, Iterator[T]]:
    """The generator ``module.name`` that iterates ``function``'s async iterator with :func:`iterate`.

    Same signature and documentation (plus a line naming its async door, ``hmyframe.aio.<name>``).
    """

    @functools.wraps(function)
    def twin(*args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        yield from iterate(function(*args, **kwargs))

    twin.__module__ = module
    twin.__name__ = twin.__qualname__ = name
    twin.__doc__ = (function.__doc__ or "") + (
        f"\n    Generator twin of ``async for ... in hmyframe.aio.{name}(...)`` (works inside Jupyter's "
        "running loop too).\n"
    )
    return twin
