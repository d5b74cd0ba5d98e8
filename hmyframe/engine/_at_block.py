"""What the lookups read at a block share: the account lookups (:mod:`._accounts`: balances,
token balances, delegations) and the DEX pairs (:mod:`._dex`).

* :func:`resolve_blocks`: a caller's blocks checked against the head (blocks whose cache files
  exist need no look at the head: each was at most the head when it was written).
* :func:`call_namespace` / :func:`block_ref`: the method prefix and block argument of a call in
  the session's RPC generation.
* :func:`batched`: calls through the client's JSON-RPC batching, :data:`CALLS_PER_GROUP` at a
  time, the groups in flight together; :func:`contract_answers`: ``*_call`` answers where a
  revert is an answer (its error object), any other error raised.
* :func:`cached_per_block`: the rows of some keys at a block, from the block's cache file, the
  missing ones fetched and written back as the union.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe._tasks import gather_or_raise
from hmyframe.engine._session import Session, block_arg
from hmyframe.errors import ConfigError, RpcError, short_repr

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = lazy_module("pyarrow")

__all__ = [
    "CALLS_PER_GROUP",
    "REVERTED",
    "batched",
    "block_ref",
    "cached_per_block",
    "call_namespace",
    "contract_answers",
    "resolve_blocks",
    "revert_answer",
]

#: Calls handed to the client at once (it cuts them into JSON-RPC batches of its batch size).
CALLS_PER_GROUP = 2_000
#: JSON-RPC error code of a revert (``execution reverted[: reason]``).
REVERTED = 3

ProgressFn = Callable[[int], None]


# --------------------------------------------------------------------------- blocks


def _block_list(blocks: object) -> list[int] | None:
    if blocks is None:
        return None
    if isinstance(blocks, range):
        values: list[object] = list(blocks)
    elif isinstance(blocks, int) and not isinstance(blocks, bool):
        values = [blocks]
    elif isinstance(blocks, Sequence) and not isinstance(blocks, str):
        values = list(blocks)
    else:
        raise ConfigError(
            f'blocks must be a block number, a list, a range or "epochs", got {short_repr(blocks)}'
        )
    if not values:
        raise ConfigError("blocks is empty: give at least one block number")
    return sorted({block_arg(v, "block") for v in values})


async def _all_cached(session: Session, name: str, shard: int, blocks: list[int]) -> bool:
    """Whether ``name`` has a cache file at each of ``blocks`` (each was then at most the head)."""
    cache = session.cache
    if cache is None:
        return False
    chain_id = await session.chain_id()
    for block in blocks:
        try:
            cache.files.stat(cache.snapshot_path(chain_id, name, shard, block))
        except OSError:
            return False
    return True


async def resolve_blocks(
    session: Session, blocks: object, shard: int, cached: str | None = None
) -> list[int]:
    """Block numbers, each checked against the head (ConfigError naming the first past it);
    blocks ``cached`` (a dataset name) has files for need no look at the head."""
    if cached is not None and not isinstance(blocks, str) and blocks is not None:
        listed = _block_list(blocks)
        if listed is not None and await _all_cached(session, cached, shard, listed):
            return listed
    head = await session.head(shard, refresh=True)
    if isinstance(blocks, str):
        if blocks != "epochs":
            raise ConfigError(f'blocks must be a number, a list, a range or "epochs", got {blocks!r}')
        from hmyframe.engine._history import current_epoch, epoch_last_blocks

        epoch = await current_epoch(session)
        found = await epoch_last_blocks(session, list(range(epoch)))
        out = sorted(last for last, _ in found.values() if last <= head)
        if not out:
            raise ConfigError(f"no epoch of shard {shard} has ended yet (head {head})")
        return out
    listed = _block_list(blocks)
    if listed is None:
        return [head]
    if listed[-1] > head:
        raise ConfigError(f"block {listed[-1]} is beyond the head {head} of shard {shard}")
    return listed


# --------------------------------------------------------------------------- calls


def block_ref(session: Session, block: int) -> int | str:
    """``block`` as a call's block argument: a number for ``hmyv2_``, hex for ``hmy_``."""
    return block if session.options.version == 2 else hex(block)


def call_namespace(session: Session) -> str:
    """The method prefix of the session's RPC generation: ``hmyv2`` or ``hmy``."""
    return "hmyv2" if session.options.version == 2 else "hmy"


async def batched(
    session: Session, calls: list[tuple[str, list[object]]], shard: int, progress: ProgressFn | None
) -> list[bytes]:
    """Raw results of ``calls`` in order, through the client's batching, groups in flight together."""

    async def group(part: list[tuple[str, list[object]]]) -> list[bytes]:
        answers = await session.client.batch(part, shard=shard, raw=True)
        if progress is not None:
            progress(len(part))
        return list(answers)

    parts = [calls[i : i + CALLS_PER_GROUP] for i in range(0, len(calls), CALLS_PER_GROUP)]
    done = await gather_or_raise(group(p) for p in parts)
    return [payload for part in done for payload in part]


def revert_answer(error: RpcError) -> bytes:
    """The payload a revert stands for: ``{"error": {"code", "message"}}``, which the datasets'
    converters read as a null and a reason."""
    return msgspec.json.encode({"error": {"code": error.code, "message": error.rpc_message}})


async def contract_answers(
    session: Session, calls: list[tuple[str, list[object]]], shard: int
) -> list[bytes]:
    """One payload per ``*_call`` of ``calls`` (one batch through the client): the raw result, or
    :func:`revert_answer` for a revert; any other error is raised."""
    results = await session.client.batch(calls, shard=shard, raw=True, return_exceptions=True)
    payloads: list[bytes] = []
    for item in results:
        if isinstance(item, RpcError) and item.code == REVERTED:
            payloads.append(revert_answer(item))
        elif isinstance(item, BaseException):
            raise item
        else:
            payloads.append(item)
    return payloads


# --------------------------------------------------------------------------- per-block cache


async def cached_per_block(
    session: Session,
    dataset: ds.Dataset,
    shard: int,
    block: int,
    keys: list[Any],
    key_of: Callable[[pa.Table], list[Any]],
    fetch: Callable[[list[Any]], Any],
) -> pa.Table:
    """The rows of ``keys`` at ``block``: from the block's cache file, the missing ones fetched
    (``await fetch(missing)`` -> table) and written back as the union."""
    cache = session.cache
    cached: pa.Table | None = None
    if cache is not None:
        cached = cache.read_snapshot(await session.chain_id(), dataset, shard, block)
    have = set() if cached is None else set(key_of(cached))
    missing = [k for k in keys if k not in have]
    if missing:
        fetched = await fetch(missing)
        merged = fetched if cached is None else pa.concat_tables([cached, fetched])
        merged = merged.sort_by([(c, "ascending") for c in dataset.sort_by])
        if cache is not None:
            checked = await session.chain_id(verify=True)
            cache.write_snapshot(checked, dataset, shard, block, merged)
    else:
        assert cached is not None
        merged = cached
    wanted = set(keys)
    mask = [k in wanted for k in key_of(merged)]
    return merged.filter(pa.array(mask, type=pa.bool_()))
