"""Progress reporting for fetches: a tqdm bar (blocks/s, ETA; a widget in Jupyter), a callback, or nothing.

When the node's rate limit is what bounds the speed, the bar says so in its postfix
(``node rate limit ~5 calls/s``: :meth:`Progress.watch_node`), so a slow export under a
public endpoint's limit reads as the node's pace, not as a stall.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from hmyframe.errors import ConfigError, short_repr

if TYPE_CHECKING:
    from hmyframe.rpc import Client
    from hmyframe.rpc.pool import EndpointPool

__all__ = ["NOTE_EVERY", "Progress", "node_limit_note"]

#: Seconds between two refreshes of a watched note (:meth:`Progress.watch`).
NOTE_EVERY = 1.0


def node_limit_note(client: Client | EndpointPool) -> Callable[[], str | None]:
    """A note for :meth:`Progress.watch`: ``"node rate limit ~5 calls/s"`` while the node's rate
    limit bounds the speed of ``client``'s requests (:meth:`~hmyframe.rpc.Client.node_limit`),
    else ``None``."""

    def note() -> str | None:
        rate = client.node_limit()
        if rate is None:
            return None
        shown = f"{round(rate)}" if rate >= 1 else f"{rate:.1f}"
        return f"node rate limit ~{shown} calls/s"

    return note


class Progress:
    """Counts fetched units (blocks, validator pages, lookups); shows them on a bar and/or passes
    them to a callback.

    Use :meth:`make` to build one from a user's ``progress=`` argument.
    """

    def __init__(self, bar: Any = None, callback: Callable[[int], None] | None = None) -> None:
        self._bar = bar
        self._callback = callback
        self._note: Callable[[], str | None] | None = None
        self._shown = ""
        self._timer: asyncio.TimerHandle | None = None

    @classmethod
    def make(
        cls, progress: bool | Callable[[int], None] | None, description: str, unit: str = "blocks"
    ) -> Progress:
        """``True``: a bar (plain on a terminal, a widget in Jupyter; nothing when stderr is
        piped); a callable: called with each step's count of ``unit``; ``False``/``None``: silent.

        Raises
        ------
        ConfigError
            If ``progress`` is none of these.
        """
        if callable(progress):
            return cls(callback=progress)
        if progress is None or progress is False:
            return cls()
        if progress is not True:
            raise ConfigError(
                f"progress must be True, False or a callable taking a count, got {short_repr(progress)}"
            )
        if "ipykernel" in sys.modules:
            from tqdm.auto import tqdm
        elif sys.stderr is None or not sys.stderr.isatty():
            return cls()  # (tqdm's own rule below, decided without importing it: ~10 ms)
        else:
            from tqdm import tqdm
        bar = tqdm(
            total=0,
            unit=unit,
            unit_scale=True,
            desc=description,
            disable=None,  # tqdm's rule: off when the stream is not a terminal
            dynamic_ncols=True,
            leave=False,
        )
        return cls(bar=bar)

    def plan(self, total: int) -> None:
        """Add ``total`` to the number of units that will be fetched (once per shard, say)."""
        if self._bar is not None:
            self._bar.total = (self._bar.total or 0) + total
            self._bar.refresh()

    def update(self, blocks: int) -> None:
        """Record ``blocks`` more fetched blocks."""
        if self._bar is not None:
            self._show()
            self._bar.update(blocks)
        if self._callback is not None:
            self._callback(blocks)

    def watch(self, note: Callable[[], str | None], every: float = NOTE_EVERY) -> None:
        """Show ``note()`` in the bar's postfix (nothing when it is ``None``), looked at again on
        each update and, inside a running event loop, every ``every`` seconds (a chunk may take
        minutes under a low rate limit). No bar, nothing done."""
        if self._bar is None:
            return
        self._note = note
        self._show()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(every, self._tick, loop, every)

    def watch_node(self, client: Client | EndpointPool) -> None:
        """:meth:`watch` the node's rate limit as it bounds ``client`` (:func:`node_limit_note`)."""
        self.watch(node_limit_note(client))

    @property
    def note(self) -> str:
        """What the bar's postfix shows of the watched note (``""``: nothing)."""
        return self._shown

    def _tick(self, loop: asyncio.AbstractEventLoop, every: float) -> None:
        if self._note is None:
            return
        self._show()
        self._timer = loop.call_later(every, self._tick, loop, every)

    def _show(self) -> None:
        if self._note is None or self._bar is None:
            return
        text = self._note() or ""
        if text != self._shown:
            self._shown = text
            self._bar.set_postfix_str(text, refresh=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._note = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._bar is not None:
            self._bar.close()
