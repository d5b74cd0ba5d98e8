"""The fetch engine and the async fetchers: the async functions behind ``hmyframe.blocks()``, ``hmyframe.validators()``...

Every function here is a coroutine returning a pandas DataFrame (``pd.ArrowDtype`` columns,
exact decimals). ``hmyframe`` exposes a synchronous twin of each under the same name; use these
directly from async code::

    from hmyframe import aio
    df = await aio.transactions(1000, 1999, rpc="devnet")

Common keyword arguments
------------------------
rpc
    A node URL, ``"devnet"`` (the embedded devnet), a running ``Devnet``, an open ``Client``
    or an open :class:`Session`. Default: ``$HMYFRAME_RPC``, else the public mainnet
    shard-0 endpoint ``https://api.s0.t.hmny.io``.
trace_rpc
    URL serving ``trace_*`` (only for traces). Default: ``$HMYFRAME_TRACE_RPC``; the devnet's
    trace ports; the public archival endpoint for mainnet.
cache
    ``True`` (``data/`` or ``$HMYFRAME_CACHE``), a folder, a ``Cache``, or ``False``.
options
    :class:`FetchOptions` (chunk size, request shape, concurrency, rate limit, retries).
progress
    Show a progress bar (blocks/s and ETA) while fetching.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Sequence

import pandas as pd

from hmyframe import datasets as ds
from hmyframe.cache import Cache
from hmyframe.engine._history import StakingHistory, fetch_staking_history
from hmyframe.engine._lookups import (
    MissingPolicy,
    NotFoundWarning,
    fetch_pending_cx_receipts,
    fetch_shards,
    fetch_traces_by_hash,
    fetch_transactions_by_hash,
    fetch_tx_counts,
)
from hmyframe.engine._progress import Progress
from hmyframe.engine._ranges import RANGE_DATASETS, fetch_range
from hmyframe.engine._session import DEFAULT_RPC, DEFAULT_TRACE_RPC, FetchOptions, Session, default_devnet
from hmyframe.engine._snapshots import SNAPSHOT_DATASETS, fetch_snapshot
from hmyframe.errors import ConfigError

__all__ = [
    "DEFAULT_RPC",
    "DEFAULT_TRACE_RPC",
    "RANGE_DATASETS",
    "SNAPSHOT_DATASETS",
    "FetchOptions",
    "NotFoundWarning",
    "Session",
    "StakingHistory",
    "blocks",
    "default_devnet",
    "delegations",
    "fetch",
    "head",
    "pending_cx_receipts",
    "shards",
    "signers",
    "staking_history",
    "staking_transactions",
    "traces",
    "traces_by_hash",
    "transactions",
    "transactions_by_hash",
    "tx_counts",
    "undelegations",
    "validators",
    "voting_power",
]

CacheArg = bool | str | os.PathLike[str] | Cache


@contextlib.asynccontextmanager
async def _session(
    rpc: object, trace_rpc: str | dict[int, str] | None, cache: CacheArg, options: FetchOptions | None
) -> AsyncIterator[Session]:
    if isinstance(rpc, Session):
        yield rpc
        return
    async with Session(rpc, trace_rpc=trace_rpc, cache=cache, options=options) as session:
        yield session


async def _range(
    name: str,
    start: int,
    end: int | None,
    shard: int,
    rpc: object,
    trace_rpc: str | dict[int, str] | None,
    cache: CacheArg,
    options: FetchOptions | None,
    progress: bool | Callable[[int], None],
) -> pd.DataFrame:
    async with _session(rpc, trace_rpc, cache, options) as session:
        with Progress.make(progress, f"{name} shard {shard}") as bar:
            tables = await fetch_range(
                session, [name], start, end, shard, progress=bar.update, on_plan=bar.plan
            )
    return ds.to_pandas(tables[name])


async def blocks(
    start: int,
    end: int | None = None,
    shard: int = 0,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> pd.DataFrame:
    """Blocks ``start..end`` (inclusive) of ``shard``: one row per block.

    Parameters
    ----------
    start, end
        Inclusive block range; ``end=None`` means the shard's head.
    shard
        Shard id.
    rpc, cache, options, progress
        See the module documentation.

    Returns
    -------
    pandas.DataFrame
        Columns of the ``blocks`` dataset (``hmyframe schema blocks``), sorted by block.

    Examples
    --------
    >>> import hmyframe
    >>> df = hmyframe.blocks(0, 99, rpc="devnet")          # doctest: +SKIP
    """
    return await _range("blocks", start, end, shard, rpc, None, cache, options, progress)


async def transactions(
    start: int,
    end: int | None = None,
    shard: int = 0,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> pd.DataFrame:
    """Plain transactions of blocks ``start..end`` of ``shard`` (exact ``value`` in atto).

    Parameters and return value as :func:`blocks`; columns of the ``transactions`` dataset.
    """
    return await _range("transactions", start, end, shard, rpc, None, cache, options, progress)


async def staking_transactions(
    start: int,
    end: int | None = None,
    shard: int = 0,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> pd.DataFrame:
    """Staking transactions of blocks ``start..end`` (they exist on shard 0 only).

    Parameters and return value as :func:`blocks`; columns of the ``staking_transactions`` dataset.
    """
    return await _range("staking_transactions", start, end, shard, rpc, None, cache, options, progress)


async def signers(
    start: int,
    end: int | None = None,
    shard: int = 0,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> pd.DataFrame:
    """Signers of blocks ``start..end``: one row per (block, signer).

    Block N's signers come from block N+1, so ``end`` is at most ``head - 1`` (the default).
    """
    return await _range("signers", start, end, shard, rpc, None, cache, options, progress)


async def traces(
    start: int,
    end: int | None = None,
    shard: int = 0,
    *,
    rpc: object = None,
    trace_rpc: str | dict[int, str] | None = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> pd.DataFrame:
    """Execution traces (Parity style) of every transaction of blocks ``start..end``.

    Traces come from ``trace_block`` on the trace endpoint; each row carries the transaction's
    Harmony hash (resolved from the block's transactions, whatever hash the node reports).
    """
    return await _range("traces", start, end, shard, rpc, trace_rpc, cache, options, progress)


async def _snapshot(
    name: str, block: int | None, rpc: object, cache: CacheArg, options: FetchOptions | None
) -> pd.DataFrame:
    async with _session(rpc, None, cache, options) as session:
        at, tables = await fetch_snapshot(session, [name], block)
    df = ds.to_pandas(tables[name])
    df.attrs["snapshot_block"] = at
    return df


async def validators(
    block: int | None = None,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
) -> pd.DataFrame:
    """Every validator at ``block`` (default: the head): one row per validator.

    All pages of ``getAllValidatorInformationByBlockNumber`` at that one block, paced so the
    node's limiter is never tripped. ``df.attrs["snapshot_block"]`` holds the block.
    """
    return await _snapshot("validators", block, rpc, cache, options)


async def voting_power(
    block: int | None = None,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
) -> pd.DataFrame:
    """Voting power per validator, shard and BLS key at ``block`` (default: the head)."""
    return await _snapshot("voting_power", block, rpc, cache, options)


async def delegations(
    block: int | None = None,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
) -> pd.DataFrame:
    """Every delegation (exact amounts and rewards) at ``block`` (default: the head)."""
    return await _snapshot("delegations", block, rpc, cache, options)


async def undelegations(
    block: int | None = None,
    *,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
) -> pd.DataFrame:
    """Every pending undelegation at ``block`` (default: the head)."""
    return await _snapshot("undelegations", block, rpc, cache, options)


async def staking_history(
    start_epoch: int | None = None,
    end_epoch: int | None = None,
    every: int = 1,
    *,
    validator: str | None = None,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> StakingHistory:
    """Validator snapshots at the last block of each epoch ``start_epoch..end_epoch``, and the
    network's figures per epoch.

    Each epoch's last block comes from ``epochLastBlock`` (or, from a node without it, from the
    blocks' ``epoch`` field); the epoch in progress is taken at the head. Snapshots are cached
    like any snapshot and paced to the node's validator limiter.

    Parameters
    ----------
    start_epoch, end_epoch
        Inclusive epochs; ``end_epoch=None`` is the current epoch; a negative ``start_epoch``
        counts back from the end (``staking_history(-5)``: the last five epochs).
    every
        Take every ``every``-th epoch.
    validator
        A ``one1``/``0x`` address: one validator's history, one cheap
        ``getValidatorInformationByBlockNumber`` call per epoch (``network`` then has only
        ``epoch``, ``block``, ``timestamp``, ``complete``).
    rpc, cache, options, progress
        See the module documentation (``progress`` counts epochs).

    Returns
    -------
    StakingHistory
        ``.network`` (one row per epoch: Nakamoto per shard, Gini, elected count, total stake,
        median signing...), ``.validators`` (per validator and epoch: stake, status, signing...),
        ``.voting_power``, ``.delegations``; ``.validator(address)`` selects one validator.

    Examples
    --------
    >>> h = hmyframe.staking_history(-5, rpc="devnet")             # doctest: +SKIP
    >>> h.network[["epoch", "nakamoto", "gini", "total_stake_one"]]  # doctest: +SKIP
    """
    async with _session(rpc, None, cache, options) as session:
        return await fetch_staking_history(
            session, start_epoch, end_epoch, every, validator=validator, progress=progress
        )


async def fetch(
    dataset: str,
    start: int | None = None,
    end: int | None = None,
    shard: int = 0,
    *,
    block: int | None = None,
    rpc: object = None,
    trace_rpc: str | dict[int, str] | None = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> pd.DataFrame:
    """Any range or snapshot dataset by name (``hmyframe.fetch("traces", 0, 99)``).

    Range datasets take ``start``/``end``/``shard``; snapshot datasets take ``block``.
    """
    ds.get(dataset)  # ConfigError listing the names if unknown
    if dataset in RANGE_DATASETS:
        if start is None:
            raise ConfigError(f"dataset {dataset!r} needs a start block")
        if block is not None:
            raise ConfigError(
                f"dataset {dataset!r} is fetched by block range: give start/end, not block={block!r}"
            )
        return await _range(dataset, start, end, shard, rpc, trace_rpc, cache, options, progress)
    if dataset in SNAPSHOT_DATASETS:
        if start is not None or end is not None:
            raise ConfigError(
                f"dataset {dataset!r} is a snapshot at one block: give block=, not a start/end range "
                f"(got start={start!r}, end={end!r})"
            )
        return await _snapshot(dataset, block, rpc, cache, options)
    lookup = "pending_cx_receipts" if dataset == "cx_receipts" else dataset
    raise ConfigError(
        f"dataset {dataset!r} is a point lookup, not fetched by range or snapshot: use hmyframe.{lookup}()"
    )


async def head(shard: int = 0, *, rpc: object = None) -> int:
    """The number of the latest block of ``shard``."""
    async with _session(rpc, None, False, None) as session:
        return await session.head(shard, refresh=True)


async def shards(*, rpc: object = None) -> pd.DataFrame:
    """The network's shards and their endpoints (``hmy_getShardingStructure``)."""
    async with _session(rpc, None, False, None) as session:
        return ds.to_pandas(await fetch_shards(session))


async def pending_cx_receipts(shard: int = 0, *, rpc: object = None) -> pd.DataFrame:
    """Cross-shard transfers sent to ``shard`` and not yet received (its pool's pending receipts)."""
    async with _session(rpc, None, False, None) as session:
        return ds.to_pandas(await fetch_pending_cx_receipts(session, shard))


async def tx_counts(
    addresses: Sequence[str], block: int | None = None, shard: int = 0, *, rpc: object = None
) -> pd.DataFrame:
    """Each address's transaction count (nonce) on ``shard`` at ``block`` (default: the head)."""
    async with _session(rpc, None, False, None) as session:
        return ds.to_pandas(await fetch_tx_counts(session, addresses, block, shard))


async def transactions_by_hash(
    hashes: Sequence[str],
    shard: int = 0,
    *,
    on_missing: MissingPolicy = "warn",
    rpc: object = None,
    options: FetchOptions | None = None,
) -> pd.DataFrame:
    """Transactions by Harmony hash, fetched concurrently.

    Unknown hashes are listed in ``df.attrs["not_found"]`` and, by default, reported with a
    :class:`NotFoundWarning` (``on_missing="raise"`` raises ``NotFoundError``; ``"ignore"``).
    """
    async with _session(rpc, None, False, options) as session:
        table, missing = await fetch_transactions_by_hash(session, hashes, shard, on_missing=on_missing)
    df = ds.to_pandas(table)
    df.attrs["not_found"] = missing
    return df


async def traces_by_hash(
    hashes: Sequence[str],
    shard: int = 0,
    *,
    on_missing: MissingPolicy = "warn",
    rpc: object = None,
    trace_rpc: str | dict[int, str] | None = None,
    options: FetchOptions | None = None,
) -> pd.DataFrame:
    """Traces of transactions by Harmony hash (``trace_transaction``); unknown hashes as in
    :func:`transactions_by_hash`."""
    async with _session(rpc, trace_rpc, False, options) as session:
        table, missing = await fetch_traces_by_hash(session, hashes, shard, on_missing=on_missing)
    df = ds.to_pandas(table)
    df.attrs["not_found"] = missing
    return df
