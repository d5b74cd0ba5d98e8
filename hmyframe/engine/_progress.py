"""Progress reporting for fetches: a tqdm bar (blocks/s, ETA; a widget in Jupyter), a callback, or nothing."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any

from hmyframe.errors import ConfigError, short_repr

__all__ = ["Progress"]


class Progress:
    """Counts fetched units (blocks, validator pages, lookups); shows them on a bar and/or passes
    them to a callback.

    Use :meth:`make` to build one from a user's ``progress=`` argument.
    """

    def __init__(self, bar: Any = None, callback: Callable[[int], None] | None = None) -> None:
        self._bar = bar
        self._callback = callback

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
            self._bar.update(blocks)
        if self._callback is not None:
            self._callback(blocks)

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.close()
