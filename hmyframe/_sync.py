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
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

__all__ = ["blocking_twin", "run"]

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


def blocking_twin(coroutine_function: Callable[P, Coroutine[Any, Any, T]], name: str) -> Callable[P, T]:
    """The blocking function ``name`` that runs ``coroutine_function`` with :func:`run`.

    Same signature and documentation (plus a line naming the coroutine), so a public coroutine is
    written once and its sync twin is one line.
    """

    @functools.wraps(coroutine_function)
    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return run(coroutine_function(*args, **kwargs))

    twin.__name__ = twin.__qualname__ = name
    twin.__doc__ = (coroutine_function.__doc__ or "") + (
        f"\n    Blocking twin of ``await {coroutine_function.__module__}.{coroutine_function.__name__}(...)``"
        " (works inside Jupyter's running loop too).\n"
    )
    return twin
