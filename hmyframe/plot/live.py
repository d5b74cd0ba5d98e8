"""A live view for Jupyter: transactions and gas per minute per shard, updating in place.

:func:`live` starts a task on the running event loop (Jupyter's) that follows the chain's
``blocks`` (:func:`hmyframe.aio.follow`), keeps the last ``minutes`` of chain time and redraws
one figure (the :func:`~hmyframe.plot.transactions` and :func:`~hmyframe.plot.gas` plots,
stacked one above the other) at most every ``every`` seconds into one IPython display handle:
the output of the cell updates in place while other cells run. The figure is a plain
:class:`matplotlib.figure.Figure` (not pyplot's: no stray second copy at the end of the cell)
rendered to PNG in a worker thread, so the kernel stays responsive; nothing polls in a loop:
the task sleeps until the follower yields a batch.

The returned :class:`LiveView` stops with ``.stop()``, after ``seconds`` when given, or when
a cell awaiting it (``await view``) is interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from typing import TYPE_CHECKING, Any

from hmyframe.errors import ConfigError, short_repr

if TYPE_CHECKING:
    from collections.abc import Generator

    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["LiveView", "live"]

#: Seconds between two blocks on Harmony: how many blocks the first ``minutes`` hold.
BLOCK_SECONDS = 2


def _seconds(value: object, name: str, *, optional: bool = False) -> float | None:
    if optional and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(f"plot.live {name} must be a number > 0, got {short_repr(value)}")
    return float(value)


class LiveView:
    """A running live view (see :func:`live`).

    Attributes
    ----------
    blocks
        The blocks of the last frame: the window (the last ``minutes`` of chain time), all shards.
    frames
        Redraws so far.
    png
        The last frame, PNG bytes (``b""`` before the first).
    figure
        The figure redrawn.
    error
        What ended the view, if it failed (also raised by ``await view``).
    """

    def __init__(
        self,
        follow: Any,
        *,
        minutes: float,
        freq: str,
        every: float,
        seconds: float | None,
        size: tuple[float, float],
        show: bool,
    ) -> None:
        from matplotlib.figure import Figure

        self.blocks: pd.DataFrame | None = None
        self.frames = 0
        self.png = b""
        self.error: BaseException | None = None
        self.figure: Figure = Figure(figsize=size, layout="constrained")
        self._follow = follow
        self._minutes = minutes
        self._freq = freq
        self._every = every
        self._seconds = seconds
        self._handle: Any = _display_handle() if show else None
        self._job: tuple[asyncio.Future[bytes], pd.DataFrame] | None = None  # the frame being rendered
        self._task = asyncio.get_running_loop().create_task(self._run(), name="hmyframe.plot.live")

    # ------------------------------------------------------------------ control

    @property
    def done(self) -> bool:
        """Whether the view has stopped (stopped, timed out or failed)."""
        return self._task.done()

    def stop(self) -> None:
        """Stop following and redrawing (the last frame stays); ``await view`` waits for the end."""
        self._task.cancel()

    async def wait(self) -> None:
        """Wait until the view stops; interrupting (cancelling) the wait stops the view.

        Raises
        ------
        HmyframeError
            What made the view fail (the node, a bad argument found late).
        """
        try:
            await asyncio.wait({self._task})  # the view's own end (stopped, failed) is not raised here
        finally:
            if not self._task.done():  # the waiting cell was interrupted: stop the view too
                self.stop()
                with contextlib.suppress(BaseException):
                    await asyncio.wait({self._task})
        if self.error is not None:
            raise self.error

    def __await__(self) -> Generator[Any, None, None]:
        return self.wait().__await__()

    def _repr_png_(self) -> bytes | None:
        """The last frame, when the view is a cell's result (a notebook saved after it ran)."""
        return self.png or None

    def __repr__(self) -> str:
        state = "stopped" if self.done else "running"
        rows = 0 if self.blocks is None else len(self.blocks)
        return f"<LiveView {state}: {rows:,} blocks in the window, {self.frames} frames>"

    # ------------------------------------------------------------------ the task

    async def _run(self) -> None:
        import pandas as pd

        loop = asyncio.get_running_loop()
        ends = None if self._seconds is None else loop.time() + self._seconds
        drawn = -self._every
        window: pd.DataFrame | None = None  # the blocks followed, the last ``minutes`` of them
        pending = False  # batches not drawn yet (they came sooner than ``every`` after a redraw)
        batches = self._follow.__aiter__()
        # the next batch: one task waited on across timeouts (cancelling __anext__ would end the follow)
        nxt: asyncio.Future[Any] | None = None
        try:
            while True:
                deadlines = [t for t in (ends, drawn + self._every if pending else None) if t is not None]
                timeout = max(0.0, min(deadlines) - loop.time()) if deadlines else None
                if nxt is None:
                    nxt = asyncio.ensure_future(batches.__anext__())
                done, _ = await asyncio.wait({nxt}, timeout=timeout)
                if nxt in done:
                    got, nxt = nxt, None
                    try:
                        batch = got.result()
                    except StopAsyncIteration:
                        break
                    if len(batch):
                        parts = [batch] if window is None else [window, batch]
                        window = self._window(pd.concat(parts, ignore_index=True))
                        pending = True
                if window is not None and pending and loop.time() - drawn >= self._every:
                    await self._draw(window)
                    drawn, pending = loop.time(), False
                if ends is not None and loop.time() >= ends:
                    break
            if window is not None and pending:
                await self._draw(window)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - kept, shown and raised by wait()
            self.error = exc
            self._show_text(f"hmyframe.plot.live stopped: {exc}")
        finally:
            if self._job is not None:  # stopped while rendering: the frame is finished, then kept
                job = self._job[0]
                with contextlib.suppress(BaseException):
                    await asyncio.wait({job})
                if job.done() and not job.cancelled() and job.exception() is None:
                    self._commit()
            if nxt is not None:  # ends the follow inside the generator (its sessions, its tasks)
                nxt.cancel()
                with contextlib.suppress(BaseException):
                    await nxt
            with contextlib.suppress(BaseException):
                await batches.aclose()

    def _window(self, blocks: pd.DataFrame) -> pd.DataFrame:
        """The last ``minutes`` of chain time (block timestamps) from a bucket's start, each
        block once, in order."""
        import pandas as pd

        blocks = blocks.drop_duplicates(["shard_id", "block_number"], keep="last")
        cutoff = blocks["timestamp"].max() - pd.Timedelta(minutes=self._minutes)
        with contextlib.suppress(ValueError, TypeError):  # from a bucket's start: no cut first bar
            cutoff = cutoff.ceil(self._freq)
        kept = blocks[blocks["timestamp"] >= cutoff]
        return kept.sort_values(["timestamp", "shard_id"], ignore_index=True)

    async def _draw(self, window: pd.DataFrame) -> None:
        job = asyncio.ensure_future(asyncio.to_thread(self._render, window))
        self._job = (job, window)
        await asyncio.shield(job)  # a stop meanwhile lets the thread finish (one figure, one thread)
        self._commit()

    def _commit(self) -> None:
        """The rendered frame becomes the view's (its blocks, its PNG, the display)."""
        assert self._job is not None
        job, window = self._job
        self._job = None
        self.png, self.blocks = job.result(), window
        self.frames += 1
        if self._handle is not None:
            from IPython.display import Image

            self._handle.update(Image(data=self.png, format="png"))  # type: ignore[no-untyped-call]

    def _render(self, blocks: pd.DataFrame) -> bytes:
        """Draw the figure anew and render it to PNG (in a worker thread: one figure, one thread)."""
        from hmyframe.plot._style import fmt_count, style
        from hmyframe.plot.throughput import gas, transactions

        with style():
            self.figure.clear()
            top, bottom = self.figure.subplots(2, 1, sharex=True)
            transactions(blocks, self._freq, ax=top)
            gas(blocks, self._freq, ax=bottom)
            top.set_xlabel("")
            for ax in (top, bottom):  # the newest bucket, still filling, drawn lighter
                for container in ax.containers:
                    if len(container):
                        container[-1].set_alpha(0.45)
            newest = blocks["timestamp"].max()
            heads = ", ".join(
                f"shard {s}: {fmt_count(int(n))}"
                for s, n in blocks.groupby("shard_id")["block_number"].max().items()
            )
            self.figure.suptitle(
                f"Live: the last {self._minutes:g} minutes to {newest:%H:%M:%S} UTC "
                f"(newest block: {heads}; the lighter last bar is still filling)",
                x=0.01,
                ha="left",
                fontsize=10,
                color="#444444",
            )
            out = io.BytesIO()
            self.figure.savefig(out, format="png", dpi=90)
        return out.getvalue()

    def _show_text(self, text: str) -> None:
        if self._handle is not None:
            self._handle.update({"text/plain": text}, raw=True)


def _display_handle() -> Any:
    """An IPython display handle to update in place (``None`` outside IPython)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return None
    if get_ipython() is None:
        return None
    waiting = {"text/plain": "hmyframe.plot.live: waiting for the first blocks..."}
    return display(waiting, raw=True, display_id=True)  # type: ignore[no-untyped-call]


def _check_arguments(
    minutes: object, every: object, seconds: object, freq: object, size: object
) -> tuple[float, float, float | None]:
    """:func:`live`'s window, redraw interval and time limit in seconds, its other sizes checked."""
    width = _seconds(minutes, "minutes")
    assert width is not None
    redraw = _seconds(every, "every")
    assert redraw is not None
    limit = _seconds(seconds, "seconds", optional=True)
    if not isinstance(freq, str) or not freq:
        raise ConfigError(f"plot.live freq must be a pandas frequency such as 'min', got {short_repr(freq)}")
    if not isinstance(size, tuple) or len(size) != 2:
        raise ConfigError(f"plot.live size must be (width, height) in inches, got {short_repr(size)}")
    return width, redraw, limit


def live(
    rpc: object = None,
    shard: object = "all",
    *,
    minutes: float = 10,
    freq: str = "min",
    every: float = 2.0,
    seconds: float | None = None,
    start: object = None,
    cache: Any = False,
    heads: Any = "auto",
    poll: float = 1.0,
    size: tuple[float, float] = (10, 6.5),
    display: bool = True,
) -> LiveView:
    """Show transactions and gas per minute per shard over the last ``minutes``, updating live.

    Must be called with an event loop running (a Jupyter cell: the view runs as a task on the
    kernel's loop and the cell returns at once; other cells keep running).

    Parameters
    ----------
    rpc
        The node (as for the fetchers; default the devnet or ``HMYFRAME_RPC``).
    shard
        A shard id, a list of ids or ``"all"`` (default).
    minutes
        Width of the window, in minutes of chain time (block timestamps).
    freq
        Bucket width (a pandas frequency: ``"min"`` for per minute, ``"10s"``...).
    every
        Least seconds between two redraws (batches arriving sooner are drawn together).
    seconds
        Stop by itself after this many seconds (``None``: until ``.stop()``).
    start
        First block shown (any form the fetchers take); default: the blocks of the last
        ``minutes`` at Harmony's 2-second blocks.
    cache
        As for the fetchers (default ``False``: the blocks are not kept on disk).
    heads, poll
        How new heads are learnt (see :func:`hmyframe.follow`).
    size
        Figure size in inches.
    display
        Show the figure in the notebook (an IPython display handle updated in place); ``False``:
        only keep it (``view.figure``, ``view.png``).

    Returns
    -------
    LiveView
        ``.stop()`` stops it; ``await view`` waits for it to stop (and stops it when that
        cell is interrupted); ``.blocks``, ``.frames``, ``.png`` and ``.figure`` show its state.

    Raises
    ------
    ConfigError
        No running event loop, or a bad argument (the message names it).

    Examples
    --------
    >>> view = hmyframe.plot.live(rpc="https://api.s0.t.hmny.io", minutes=15)   # doctest: +SKIP
    >>> view.stop()                                                             # doctest: +SKIP
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise ConfigError(
            "plot.live runs as a task on a running event loop (a Jupyter cell, or a coroutine); "
            "in a script, call it inside asyncio.run(...) and await the view"
        ) from None
    width, redraw, limit = _check_arguments(minutes, every, seconds, freq, size)
    from hmyframe._public import follow
    from hmyframe.rpc import check_heads

    check_heads(heads, poll)
    first = start if start is not None else -max(1, int(width * 60 / BLOCK_SECONDS))
    batches = follow("blocks", first, shard, rpc=rpc, cache=cache, output="pandas", poll=poll, heads=heads)
    return LiveView(batches, minutes=width, freq=freq, every=redraw, seconds=limit, size=size, show=display)
