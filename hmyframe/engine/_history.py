"""Staking history: validator snapshots at the last block of each epoch, and what they add up to.

The last block of an epoch comes from ``hmy(v2)_epochLastBlock`` where the node serves it
(today's node and the early-2020 node both do, on shard 0); from a node that does not
(-32601), it is found by bisecting the blocks' ``epoch`` header field. The epoch still in
progress is taken at the head (``complete`` is False for it).

Each epoch's full snapshot goes through :func:`~hmyframe.engine._snapshots.fetch_snapshot`,
so it is cached like any snapshot and its pages keep to the node's validator limiter (paced once
the node refuses one: ``validator_pacing``). A
single validator's history asks ``getValidatorInformationByBlockNumber`` (one call per epoch,
not limited by the node), unless the full snapshot at that block is already cached.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe._tasks import gather_or_raise
from hmyframe.cache import Cache
from hmyframe.engine._progress import Progress
from hmyframe.engine._session import Session, block_arg
from hmyframe.engine._snapshots import SNAPSHOT_DATASETS, fetch_snapshot
from hmyframe.errors import ConfigError, MethodNotFoundError, ResponseShapeError, RpcError, short_repr
from hmyframe.rpc.methods import address_param

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    from hmyframe import metrics
else:  # loaded when a history is fetched (see hmyframe._lazy)
    np = lazy_module("numpy")
    pd = lazy_module("pandas")
    pa = lazy_module("pyarrow")
    metrics = lazy_module("hmyframe.metrics")

CacheArg = bool | str | os.PathLike[str] | Cache

__all__ = [
    "StakingHistory",
    "current_epoch",
    "epoch_last_blocks",
    "epoch_of_block",
    "fetch_staking_history",
]


@dataclass(frozen=True)
class StakingHistory:
    """Validator snapshots at the last block of a series of epochs.

    Attributes
    ----------
    network : pandas.DataFrame
        One row per epoch: ``epoch``, ``block`` (the snapshot block), ``timestamp`` (UTC),
        ``complete`` (False for the epoch in progress, taken at the head), and from full
        snapshots ``validators``, ``elected``, ``total_stake`` (exact atto),
        ``total_stake_one``, ``elected_stake``, ``gini`` (of the elected validators' stakes),
        ``nakamoto`` (the weakest shard's, at 1/3), ``nakamoto_shard_<k>`` per shard,
        ``median_signing`` and ``below_threshold`` (see :func:`hmyframe.metrics.staking_summary`).
        A single validator's history has the first four columns only.
    validators : pandas.DataFrame
        The ``validators`` dataset of every snapshot, stacked (``snapshot_epoch`` is the epoch,
        also for the early-2020 format whose headers lack it), with ``stake`` (exact atto),
        ``stake_one`` and ``elected`` added (:func:`hmyframe.metrics.annotate`).
    voting_power, delegations : pandas.DataFrame
        The ``voting_power`` and ``delegations`` datasets of every snapshot, stacked.
    """

    network: pd.DataFrame
    validators: pd.DataFrame
    voting_power: pd.DataFrame
    delegations: pd.DataFrame

    def validator(self, address: str) -> pd.DataFrame:
        """One validator's rows of :attr:`validators`, by epoch (``one1`` or ``0x`` address)."""
        if not isinstance(address, str):
            raise ConfigError(f"address must be a one1 or 0x string, got {short_repr(address)}")
        column = "validator_address_hex" if address.lower().startswith("0x") else "validator_address"
        rows = self.validators[self.validators[column].astype(object) == address.lower()]
        return rows.sort_values("snapshot_epoch").reset_index(drop=True)


async def _header(session: Session, block: int) -> dict[str, Any]:
    header = await session.methods.get_block_by_number(block, full_tx=False, incl_staking=True, shard=0)
    if not isinstance(header, dict):
        raise ResponseShapeError("getBlockByNumber", "result", header, f"the header of block {block}")
    return header


def _header_int(header: dict[str, Any], key: str) -> int | None:
    value = header.get(key)
    if value is None:
        return None
    try:
        return ds.parse_int(value)
    except ds.Bad:
        raise ResponseShapeError("getBlockByNumber", key, value, f"a block {key}") from None


async def current_epoch(session: Session) -> int:
    """The beacon chain's current epoch (``getEpoch``)."""
    raw = await session.client.request(session.methods.method("getEpoch"), [], shard=0)
    try:
        return ds.parse_int(raw)
    except ds.Bad:
        raise ResponseShapeError("getEpoch", "result", raw, "an epoch number") from None


def _block_number(raw: Any) -> int:
    """An ``epochLastBlock`` answer as an int (a JSON number; hex text accepted)."""
    try:
        return ds.parse_int(raw)
    except ds.Bad:
        raise ResponseShapeError("epochLastBlock", "result", raw, "a block number") from None


async def epoch_of_block(session: Session, block: int) -> int:
    """The epoch of shard-0 ``block``: its header's ``epoch``, or (early-2020 headers lack it)
    the first epoch whose ``epochLastBlock`` is at or after the block."""
    found = _header_int(await _header(session, block), "epoch")
    if found is not None:
        return found
    lo, hi = 0, await current_epoch(session)
    while lo < hi:
        mid = (lo + hi) // 2
        last = _block_number(await session.methods.epoch_last_block(mid))
        if last >= block:
            hi = mid
        else:
            lo = mid + 1
    return lo


async def _bisect_last_block(session: Session, epoch: int, head: int, epochs: dict[int, int]) -> int:
    """The last block of ``epoch`` from the headers' ``epoch`` field (``epochs`` memoises)."""

    async def epoch_at(block: int) -> int:
        if block not in epochs:
            found = _header_int(await _header(session, block), "epoch")
            if found is None:
                raise ConfigError(
                    "the node serves neither epochLastBlock nor an epoch field in its block headers "
                    "(an early-2020 node without epochLastBlock): the epochs' last blocks cannot be found"
                )
            epochs[block] = found
        return epochs[block]

    if await epoch_at(head) <= epoch:
        return head
    lo, hi = 0, head  # invariant: epoch_at(hi) > epoch; the answer is in lo-1 .. hi-1
    known = [b for b, e in epochs.items() if e <= epoch]
    if known:
        lo = max(known)
    known_hi = [b for b, e in epochs.items() if e > epoch]
    if known_hi:
        hi = min(known_hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if await epoch_at(mid) > epoch:
            hi = mid
        else:
            lo = mid + 1
    return lo - 1


async def epoch_last_blocks(session: Session, epochs: Sequence[int]) -> dict[int, tuple[int, bool]]:
    """``{epoch: (snapshot block, complete)}``: each epoch's last block, or the head for the
    epoch in progress (``complete`` False).

    Asks ``epochLastBlock``; a node without it (-32601) is bisected on its headers' epoch field.
    """
    head = await session.head(0, refresh=True)
    out: dict[int, tuple[int, bool]] = {}
    try:
        answers = await gather_or_raise(session.methods.epoch_last_block(e) for e in epochs)
    except MethodNotFoundError:
        memo: dict[int, int] = {}
        for epoch in sorted(epochs):
            last = await _bisect_last_block(session, epoch, head, memo)
            out[epoch] = (last, last < head)
        return out
    for epoch, raw in zip(epochs, answers, strict=True):
        last = _block_number(raw)
        out[epoch] = (min(last, head), last <= head)
    return out


def _concat(frames: list[pd.DataFrame], name: str) -> pd.DataFrame:
    if frames:
        return pd.concat(frames, ignore_index=True)
    return ds.to_pandas(ds.get(name).schema.empty_table())


def _with_epoch(frame: pd.DataFrame, epoch: int) -> pd.DataFrame:
    frame = frame.copy()
    frame["snapshot_epoch"] = pd.array([epoch] * len(frame), dtype=pd.ArrowDtype(pa.int64()))
    return frame


async def _validator_tables(
    session: Session, address: str, block: int, epoch: int
) -> dict[str, pd.DataFrame] | None:
    """One validator's snapshot tables at ``block`` (``None`` if it did not exist then)."""
    cache = session.cache
    if cache is not None:
        chain_id = await session.chain_id()
        cached = {name: cache.read_snapshot(chain_id, ds.get(name), 0, block) for name in SNAPSHOT_DATASETS}
        if all(t is not None for t in cached.values()):
            key = address.lower()
            out: dict[str, pd.DataFrame] = {}
            for name, table in cached.items():
                frame = ds.to_pandas(table)
                column = "validator_address_hex" if key.startswith("0x") else "validator_address"
                out[name] = frame[frame[column].astype(object) == key].reset_index(drop=True)
            return out if len(out["validators"]) else None
    try:
        raw = await session.methods.get_validator_information_by_block_number_raw(address, block)
    except RpcError as exc:
        if exc.code == -32000 and "not present" in exc.rpc_message:
            return None
        raise
    ctx = ds.ConvertContext(shard_id=0, snapshot_block=block, snapshot_epoch=epoch)
    decoded = ds.decode_validators([raw])
    return {name: ds.to_pandas(ds.get(name).build(decoded, ctx)) for name in SNAPSHOT_DATASETS}


def _start_epoch(start_epoch: object, end: int) -> int:
    """``None`` -> ``end``; a negative number counts back from ``end`` (-1 is ``end`` itself)."""
    if start_epoch is None:
        return end
    if isinstance(start_epoch, int) and not isinstance(start_epoch, bool) and start_epoch < 0:
        return max(0, end + 1 + start_epoch)
    return block_arg(start_epoch, "start_epoch")


def _epoch_list(start: int, end: int, every: int) -> list[int]:
    return list(range(start, end + 1, every))


async def fetch_staking_history(
    session: Session,
    start_epoch: int | None = None,
    end_epoch: int | None = None,
    every: int = 1,
    *,
    validator: str | None = None,
    progress: bool | Callable[[int], None] = False,
) -> StakingHistory:
    """Snapshots at the last block of epochs ``start_epoch..end_epoch`` (every ``every``-th).

    Parameters
    ----------
    session
        An open :class:`~hmyframe.engine.Session`.
    start_epoch, end_epoch
        Inclusive epoch range. ``end_epoch=None``: the current epoch (taken at the head).
        ``start_epoch=None``: ``end_epoch``; a negative ``start_epoch`` counts back from the
        end (``-5``: the last five epochs).
    every
        Take every ``every``-th epoch from ``start_epoch``.
    validator
        A ``one1``/``0x`` address: that validator's history only, with the cheaper
        per-validator method.
    progress
        A bar counting epochs, or a callable given 1 per epoch done.

    Returns
    -------
    StakingHistory
    """
    step = block_arg(every, "every")
    if step < 1:
        raise ConfigError("every must be a positive integer (take every N-th epoch), got 0")
    now = await current_epoch(session)
    end = now if end_epoch is None else block_arg(end_epoch, "end_epoch")
    if end > now:
        raise ConfigError(f"end_epoch {end} is beyond the current epoch {now}")
    start = _start_epoch(start_epoch, end)
    if start > end:
        raise ConfigError(f"start_epoch {start} is after end_epoch {end}")
    epochs = _epoch_list(start, end, step)
    if validator is not None:
        address_param(validator)
    blocks = await epoch_last_blocks(session, epochs)
    headers = await gather_or_raise(_header(session, blocks[e][0]) for e in epochs)
    stamps = [_header_int(h, "timestamp") for h in headers]
    tables, summaries = await _epoch_tables(session, epochs, blocks, validator, progress)
    network = pd.DataFrame(
        {
            "epoch": np.array(epochs, dtype=np.int64),
            "block": np.array([blocks[e][0] for e in epochs], dtype=np.int64),
            "timestamp": pd.to_datetime(
                [math.nan if s is None else s for s in stamps], unit="s", utc=True
            ).astype("datetime64[ms, UTC]"),
            "complete": np.array([blocks[e][1] for e in epochs], dtype=bool),
        }
    )
    if validator is None:
        network = _add_summaries(network, summaries)
    validators_frame = (
        pd.concat(tables["validators"], ignore_index=True)
        if tables["validators"]
        else metrics.annotate(_concat([], "validators"))
    )
    return StakingHistory(
        network=network,
        validators=validators_frame,
        voting_power=_concat(tables["voting_power"], "voting_power"),
        delegations=_concat(tables["delegations"], "delegations"),
    )


async def _epoch_tables(
    session: Session,
    epochs: list[int],
    blocks: dict[int, tuple[int, bool]],
    validator: str | None,
    progress: bool | Callable[[int], None],
) -> tuple[dict[str, list[pd.DataFrame]], list[dict[str, Any]]]:
    """Each epoch's snapshot frames at its last block (one validator's, with ``validator``),
    annotated, and each full snapshot's summary."""
    tables: dict[str, list[pd.DataFrame]] = {
        name: [] for name in ("validators", "voting_power", "delegations")
    }
    summaries: list[dict[str, Any]] = []
    with Progress.make(progress, "staking history", unit="epochs") as bar:
        bar.plan(len(epochs))
        for epoch in epochs:
            block = blocks[epoch][0]
            if validator is None:
                _, fetched = await fetch_snapshot(
                    session, ["validators", "voting_power", "delegations"], block
                )
                frames = {name: _with_epoch(ds.to_pandas(t), epoch) for name, t in fetched.items()}
                summaries.append(
                    metrics.staking_summary(
                        frames["validators"], frames["voting_power"], frames["delegations"]
                    )
                )
            else:
                got = await _validator_tables(session, validator, block, epoch)
                if got is None:
                    bar.update(1)
                    continue
                frames = {name: _with_epoch(got[name], epoch) for name in tables}
            frames["validators"] = metrics.annotate(
                frames["validators"], frames["voting_power"], frames["delegations"]
            )
            for name in tables:
                tables[name].append(frames[name])
            bar.update(1)
    return tables, summaries


def _add_summaries(network: pd.DataFrame, summaries: list[dict[str, Any]]) -> pd.DataFrame:
    shards = sorted({s for summary in summaries for s in summary["nakamoto_by_shard"]})
    network = network.copy()
    network["validators"] = np.array([s["validators"] for s in summaries], dtype=np.int64)
    network["elected"] = np.array([s["elected"] for s in summaries], dtype=np.int64)
    network["total_stake"] = metrics.exact_series([s["total_stake"] for s in summaries]).array
    network["total_stake_one"] = np.array([s["total_stake_one"] for s in summaries], dtype=float)
    network["elected_stake"] = metrics.exact_series([s["elected_stake"] for s in summaries]).array
    network["gini"] = np.array([s["gini"] for s in summaries], dtype=float)
    integer = pd.ArrowDtype(pa.int64())
    network["nakamoto"] = pd.array([s["nakamoto"] for s in summaries], dtype=integer)
    for shard in shards:
        network[f"nakamoto_shard_{shard}"] = pd.array(
            [s["nakamoto_by_shard"].get(shard) for s in summaries], dtype=integer
        )
    network["median_signing"] = np.array([s["median_signing"] for s in summaries], dtype=float)
    network["below_threshold"] = np.array([s["below_threshold"] for s in summaries], dtype=np.int64)
    return network
