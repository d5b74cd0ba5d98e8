"""Following the chain live: exports and batches that keep up with the head.

:func:`follow_export` (``hmyframe export ... --follow``, ``hmyframe.export(..., follow=True)``)
catches up to the head, then exports each shard's new blocks as they appear, until
interrupted (or until ``end``). :func:`follow_shards` yields the new batches of several shards,
which ``hmyframe.aio.follow`` (and the sync ``hmyframe.follow``) turns into frames.

Heads
    New heads come from a :class:`~hmyframe.rpc.heads.HeadSource`: ``heads(shard)`` yields
    the shard's head each time it is observed. The built-in one is the head detector of
    :mod:`hmyframe.rpc.heads` (:class:`~hmyframe.rpc.heads.ShardHeads`: each shard through
    :func:`~hmyframe.rpc.heads.watch_heads`, WebSocket ``newHeads`` where the shard's
    sharding-structure entry lists a URL, re-opened with back-off and polled meanwhile, else
    polling, backing off while the node cannot answer); its reports become
    :class:`FollowWarning`. :func:`head_source` makes it: ``heads="auto"`` (default), ``"ws"``
    or ``"poll"``. What a source yields is judged here (:class:`_Watch`): a lower head or one
    that stops moving is reported, whichever source sent it.

Files
    A batch of new blocks is fetched through the ordinary range driver
    (:func:`~hmyframe.engine._ranges.fetch_range`, ``tails=True``). Blocks short of their
    chunk's end go to the chunk's *tail*, one file per chunk named by its first block
    (``blocks__0000005000_tail.parquet``, its last block recorded in its footer): each batch
    rewrites it whole, under the same name, with the new rows added (an atomic replace), and
    the batch that completes the chunk renames it to the chunk's range file
    (``blocks__0000005000_0000005999.parquet``, the file a plain export writes; an atomic
    rename). So at every instant each block is in exactly one file of the folder: readers that
    plan with the cache (:func:`hmyframe.read`, :func:`hmyframe.sql`, the fetchers) and raw
    readers of the folder (``pyarrow.dataset``, DuckDB's or polars' ``*.parquet``) alike never
    see a block twice nor miss one. (A reader that listed the tail and opens it after the
    rename gets ``FileNotFoundError``: hmyframe's readers list again, raw readers retry.)
    Stopped, the folder is the standard layout: complete chunks in their files, the head chunk
    in its tail (read by hmyframe like any range file; a later export that reaches the chunk's
    end, followed or plain, takes it in). The cost: each batch rewrites its chunk's tail, at
    most a chunk of rows (:mod:`hmyframe.cache._names`).

Lag
    A block is on disk at most ``poll`` (the interval between two head polls; with a
    WebSocket source, the notification delay, milliseconds) + one batch's fetch, conversion and
    write time after the node first reports it, plus the datasets' head offset (``signers``
    wait one block: block N's signers are known from block N+1). The write grows with the
    chunk's fill (the tail is rewritten whole: at most ``chunk_size`` blocks of rows). Shards
    are followed concurrently, each at its own pace. Measured: ``tests/engine/test_follow.py``
    and ``bench/follow_lag.py`` (docs/benchmarks.md, "Live lag").

Stopping and restarting
    Cancelling (Ctrl-C, SIGTERM in the command line) lets the in-flight write finish (a file
    is renamed into place whole or not at all: the writer thread is waited for); a process
    killed mid-write leaves only a hidden temporary file, removed later. A restart plans
    against the folder like any export: only the missing blocks are fetched and appended to
    the tail left behind, so nothing is skipped or written twice.

The node
    A head lower than one seen before, a head that stops moving for ``stall_after`` seconds,
    and a node that cannot serve the blocks it announced (unreachable, rate-limited, behind
    its own head) are reported with a :class:`FollowWarning` and waited out; the follower
    never stops for them.
"""

from __future__ import annotations

import asyncio
import time
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hmyframe.datasets import sources
from hmyframe.engine._blocks import resolve_range
from hmyframe.engine._ranges import fetch_range, split_aligned
from hmyframe.engine._session import Session
from hmyframe.errors import (
    ConfigError,
    FollowWarning,
    InvalidParamsError,
    MethodNotFoundError,
    RateLimitError,
    ResponseShapeError,
    RpcError,
    TransportError,
    short_repr,
)
from hmyframe.rpc.heads import HeadReport, HeadSource, ShardHeads, check_heads

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "MAX_BACKOFF",
    "Batch",
    "follow_export",
    "follow_shard",
    "follow_shards",
    "head_source",
]

#: Longest wait, in seconds, between two attempts at a node that does not answer.
MAX_BACKOFF = 30.0
#: Seconds without a new head after which the node is reported as stalled.
STALL_AFTER = 30.0


def _report(message: str) -> None:
    warnings.warn(message, FollowWarning, stacklevel=2)


def _waited_out(exc: BaseException) -> bool:
    """Whether a failure is the node's, to be reported and waited out (never a crash)."""
    if isinstance(exc, MethodNotFoundError | InvalidParamsError):
        return False  # the node will not serve this call: waiting does not help
    return isinstance(exc, TransportError | RateLimitError | RpcError | ResponseShapeError)


# --------------------------------------------------------------------------- heads


def _report_head(report: HeadReport) -> None:
    """A :func:`~hmyframe.rpc.heads.watch_heads` report as a :class:`FollowWarning`."""
    warnings.warn(str(report), FollowWarning, stacklevel=2)


def head_source(
    session: Session, poll: float, heads: object = "auto", *, stall_after: float = STALL_AFTER
) -> HeadSource:
    """The head source of a follow.

    Parameters
    ----------
    session
        The open session.
    poll
        Seconds between two polls of the head (when polling, and while a socket is down).
    heads
        ``"auto"`` (default): each shard's WebSocket ``newHeads`` where its sharding structure
        lists a URL, polling elsewhere; ``"ws"``: WebSocket, a shard without a URL is an error;
        ``"poll"``: polling only (all three: a :class:`~hmyframe.rpc.heads.ShardHeads` over the
        session's client, polling ``blockNumber`` of the session's generation as the session
        asks its heads: ``hmy_blockNumber`` with ``FetchOptions(version=1)``, else
        ``hmyv2_blockNumber``; its reports issued as :class:`FollowWarning`); or a
        :class:`HeadSource`, returned as is.
    stall_after
        Seconds without a new head before the node is reported stalled.

    Raises
    ------
    ConfigError
        ``poll`` is not a number of seconds > 0, or ``heads`` none of the above.
    """
    check_heads(heads, poll)
    if not isinstance(heads, str):
        return heads  # type: ignore[return-value]
    return ShardHeads(
        session.client,
        mode=heads,  # type: ignore[arg-type]
        every=float(poll),
        stall_after=stall_after,
        max_backoff=MAX_BACKOFF,
        poll_method="hmyv2_blockNumber" if session.options.version == 2 else "hmy_blockNumber",
        on_report=_report_head,
    )


# --------------------------------------------------------------------------- following


@dataclass
class Batch:
    """New blocks of one shard, on disk (and in ``tables`` when collected).

    Attributes
    ----------
    shard, first, last
        The blocks.
    head
        The head that announced them.
    seen, written
        Wall-clock times (``time.time()``) the head was seen and the batch was on disk.
    tables
        Each dataset's rows of the blocks (``{}`` unless collected).
    """

    shard: int
    first: int
    last: int
    head: int
    seen: float
    written: float
    tables: dict[str, pa.Table] = field(default_factory=dict)

    @property
    def lag(self) -> float:
        """Seconds from seeing the head to having its blocks on disk."""
        return self.written - self.seen


@dataclass
class _Watch:
    """What one shard's follower knows of its node."""

    shard: int
    stall_after: float
    best: int = -1
    moved: float = field(default_factory=time.monotonic)
    stalled: bool = False
    lower: bool = False

    def judge(self, head: int) -> bool:
        """Take an observed head; whether it is the highest yet (else report what is wrong)."""
        now = time.monotonic()
        if head < self.best:
            if not self.lower:
                _report(
                    f"shard {self.shard}: the node reports head {head}, lower than {self.best} seen "
                    "before; waiting for it to catch up"
                )
                self.lower = True
            return False
        if self.lower:
            _report(f"shard {self.shard}: the node is back at head {head}")
            self.lower = False
        if head > self.best:
            self.best = head
            self.moved = now
            if self.stalled:
                _report(f"shard {self.shard}: new head {head}, the node moves again")
                self.stalled = False
            return True
        if not self.stalled and now - self.moved > self.stall_after:
            _report(
                f"shard {self.shard}: no new block for {now - self.moved:.0f} s (head {head}); still waiting"
            )
            self.stalled = True
        return False


async def follow_shard(
    session: Session,
    names: Sequence[str],
    shard: int,
    after: int,
    heads: HeadSource,
    *,
    end: int | None = None,
    collect: bool = False,
    stall_after: float = STALL_AFTER,
    max_backoff: float = MAX_BACKOFF,
) -> AsyncIterator[Batch]:
    """Yield ``shard``'s new blocks after block ``after``, batch by batch, as heads announce them.

    Parameters
    ----------
    session
        An open session.
    names
        Range datasets.
    shard
        The shard.
    after
        Last block already done (the first batch starts at ``after + 1``).
    heads
        Where heads come from.
    end
        Stop once this block is done (``None``: never).
    collect
        Read each batch's tables back (for ``hmyframe.aio.follow``); else only write them.
    stall_after
        Seconds without a new head before the node is reported stalled.
    max_backoff
        Longest wait after a batch the node failed to serve.
    """
    offset, _ = sources.head_offset(names)
    watch = _Watch(shard, stall_after)
    done = after
    failures = 0
    async for head in heads.heads(shard):
        seen = time.time()
        if not watch.judge(head):
            continue
        target = head - offset if end is None else min(end, head - offset)
        if target <= done:
            continue
        session.saw_head(shard, head)  # the range check of the fetch knows the head as announced
        try:
            tables = await fetch_range(session, names, done + 1, target, shard, collect=collect, tails=True)
        except Exception as exc:
            if not _waited_out(exc):
                raise
            failures += 1
            wait = min(max_backoff, 0.5 * 2**failures)
            _report(
                f"shard {shard}: blocks {done + 1}..{target} announced by head {head} could not be "
                f"fetched ({exc}); trying again in {wait:.1f} s"
            )
            watch.best = done + offset  # ask again at the next head, even an unchanged one
            await asyncio.sleep(wait)
            continue
        failures = 0
        batch = Batch(shard, done + 1, target, head, seen, time.time(), tables)
        done = target
        yield batch
        if end is not None and done >= end:
            return


async def _start(
    session: Session, names: Sequence[str], start: object, end: int | None, shard: int
) -> tuple[int, int]:
    """``(first, last)``: the first block of the follow and the last one the catch-up reaches."""
    offset, reason = sources.head_offset(names)
    if start is None or (isinstance(start, int) and not isinstance(start, bool) and start >= 0):
        # None: after the head; a block number may also lie beyond the head (its blocks come later)
        last = await session.head(shard, refresh=True) - offset
        first = last + 1 if start is None else start
        return first, last if end is None else min(last, end)
    a, b = await resolve_range(session, start, None, shard, end_offset=offset, end_reason=reason)
    return a, b if end is None else min(b, end)


async def follow_shards(
    session: Session,
    names: Sequence[str],
    start: object,
    shards: Sequence[int],
    *,
    end: int | None = None,
    poll: float = 1.0,
    heads: HeadSource | str = "auto",
    collect: bool = False,
    catch_up: bool = True,
    stall_after: float = STALL_AFTER,
) -> AsyncGenerator[Batch, None]:
    """Catch every shard up from ``start``, then yield the shards' new batches as they come.

    Parameters
    ----------
    session, names
        As for :func:`follow_shard`.
    start
        First block (any form the fetchers take), or ``None``: the blocks after the head.
    shards
        Shards followed at once (batches of all of them, in the order they are done).
    end
        Stop once every shard has this block (``None``: never).
    poll
        Seconds between head polls (when polling).
    heads
        ``"auto"``, ``"ws"``, ``"poll"`` or a :class:`HeadSource` (see :func:`head_source`).
    collect
        Read the batches' tables back (else only write them).
    catch_up
        ``True``: the blocks from ``start`` to the head are fetched as one batch per shard
        (all chunks at once); ``False``: as one batch per chunk (bounded memory when
        collecting).
    stall_after
        Seconds without a new head before a node is reported stalled.
    """
    last_block: object = end
    if last_block is not None and (
        isinstance(last_block, bool) or not isinstance(last_block, int) or last_block < 0
    ):
        raise ConfigError(f"a follow's end must be a block number or None, got {short_repr(end)}")
    source = head_source(session, poll, heads, stall_after=stall_after)
    queue: asyncio.Queue[Batch | BaseException | None] = asyncio.Queue()

    async def run(shard: int) -> None:
        try:
            async for batch in _caught_up_then_followed(
                session, names, start, shard, source, end, collect, catch_up, stall_after
            ):
                await queue.put(batch)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            await queue.put(exc)
            return
        await queue.put(None)

    tasks = [asyncio.ensure_future(run(shard)) for shard in shards]
    running = len(tasks)
    try:
        while running:
            item = await queue.get()
            if item is None:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        for task in tasks:
            task.cancel()
        # the in-flight writes finish (their threads are waited for), then the tasks end
        await asyncio.gather(*tasks, return_exceptions=True)


async def _caught_up_then_followed(
    session: Session,
    names: Sequence[str],
    start: object,
    shard: int,
    source: HeadSource,
    end: int | None,
    collect: bool,
    catch_up: bool,
    stall_after: float,
) -> AsyncIterator[Batch]:
    """One shard of :func:`follow_shards`: the blocks from ``start`` to the head (one batch, or
    one per chunk without ``catch_up``), then the new ones as heads announce them."""
    first, last = await _start(session, names, start, end, shard)
    if first <= last:
        pieces = [(first, last)] if catch_up else split_aligned([(first, last)], session.options.chunk_size)
        for a, b in pieces:
            seen = time.time()
            tables = await fetch_range(session, names, a, b, shard, collect=collect, tails=True)
            yield Batch(shard, a, b, b, seen, time.time(), tables)
    if end is not None and last >= end:
        return
    async for batch in follow_shard(
        session, names, shard, max(last, first - 1), source, end=end, collect=collect, stall_after=stall_after
    ):
        yield batch


async def follow_export(
    session: Session,
    names: Sequence[str],
    start: object,
    end: object,
    shards: Sequence[int],
    *,
    poll: float = 1.0,
    on_batch: Callable[[Batch], None] | None = None,
    heads: HeadSource | str = "auto",
) -> dict[int, tuple[int, int]]:
    """Export ``names`` from ``start`` on every shard, then keep exporting new blocks.

    Returns (only when ``end`` is a block number) the range exported per shard; runs until
    cancelled otherwise.

    Raises
    ------
    ConfigError
        ``end`` not a block number or ``None``, or a bad ``start``, ``poll`` or ``heads``.
    """
    check_heads(heads, poll)
    if end is not None and (isinstance(end, bool) or not isinstance(end, int)):
        raise ConfigError(
            f"a follow's end must be a block number (stop there) or None (never stop), got {short_repr(end)}"
        )
    ranges: dict[int, tuple[int, int]] = {}
    async for batch in follow_shards(session, names, start, shards, end=end, poll=poll, heads=heads):
        low = ranges.get(batch.shard, (batch.first, batch.last))[0]
        ranges[batch.shard] = (low, batch.last)
        if on_batch is not None:
            on_batch(batch)
    return {shard: ranges[shard] for shard in shards if shard in ranges}
