"""The sync bridge runs coroutines from plain code and from inside a running loop."""

from __future__ import annotations

import asyncio
import threading

import pytest

from hmyframe._sync import run


async def _whoami(value: int) -> tuple[int, str]:
    await asyncio.sleep(0)
    return value * 2, threading.current_thread().name


def test_run_without_loop_uses_this_thread() -> None:
    result, thread = run(_whoami(21))
    assert result == 42
    assert thread == threading.current_thread().name


async def test_run_inside_running_loop_uses_background_loop() -> None:
    # Like a Jupyter cell calling a sync hmyframe function: a loop is already running here.
    result, thread = run(_whoami(5))
    assert result == 10
    assert thread == "hmyframe-sync-loop"


async def test_exceptions_propagate_unchanged() -> None:
    async def boom() -> None:
        raise LookupError("from the coroutine")

    with pytest.raises(LookupError, match="from the coroutine"):
        run(boom())
