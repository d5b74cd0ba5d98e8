"""Point lookups: chain head, shards, transaction counts, pending cross-shard receipts, and
transactions / traces by hash.

These are not cached: they describe the moment of the call (head, pool contents) or are cheap
point queries. Hash lookups are sent concurrently (the client batches them); unknown hashes are
reported, never dropped silently.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe._tasks import gather_or_raise
from hmyframe.engine._session import Session, block_arg
from hmyframe.errors import ConfigError, NotFoundError, NotFoundWarning, short_repr
from hmyframe.rpc.methods import tx_hash_param

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = lazy_module("pyarrow")

__all__ = [
    "MissingPolicy",
    "fetch_pending_cx_receipts",
    "fetch_sharding_structure",
    "fetch_traces_by_hash",
    "fetch_transactions_by_hash",
    "fetch_tx_counts",
]

MissingPolicy = Literal["warn", "raise", "ignore"]
ProgressFn = Callable[[int], None]
T = TypeVar("T")


async def _counted(awaitable: Awaitable[T], progress: ProgressFn | None) -> T:
    """``await awaitable``, then count one step of progress."""
    result = await awaitable
    if progress is not None:
        progress(1)
    return result


def _check_hashes(hashes: Sequence[str]) -> list[str]:
    if isinstance(hashes, str):
        hashes = [hashes]
    if not hashes:
        raise ConfigError("no transaction hash given")
    return list(dict.fromkeys(tx_hash_param(h).lower() for h in hashes))


def _report_missing(missing: list[str], policy: MissingPolicy, what: str) -> None:
    if policy not in ("warn", "raise", "ignore"):
        raise ConfigError(f"on_missing must be 'warn', 'raise' or 'ignore', got {short_repr(policy)}")
    if not missing:
        return
    message = f"{len(missing)} {what} not found on the node: {', '.join(missing[:5])}" + (
        " ..." if len(missing) > 5 else ""
    )
    if policy == "raise":
        raise NotFoundError(-32000, message, method=what)
    if policy == "warn":
        warnings.warn(message, NotFoundWarning, stacklevel=4)


async def fetch_transactions_by_hash(
    session: Session,
    hashes: Sequence[str],
    shard: int = 0,
    *,
    on_missing: MissingPolicy = "warn",
    progress: ProgressFn | None = None,
) -> tuple[pa.Table, list[str]]:
    """Transactions by Harmony hash, fetched concurrently; returns (table, unknown hashes)."""
    wanted = _check_hashes(hashes)
    payloads = await gather_or_raise(
        _counted(session.methods.get_transaction_by_hash_raw(h, shard=shard), progress) for h in wanted
    )
    found = [p for p in payloads if p.strip() != b"null"]
    missing = [h for h, p in zip(wanted, payloads, strict=True) if p.strip() == b"null"]
    _report_missing(missing, on_missing, "transactions")
    table = ds.get("transactions").build(ds.decode_blocks(found), ds.ConvertContext(shard_id=shard))
    return table, missing


async def fetch_traces_by_hash(
    session: Session,
    hashes: Sequence[str],
    shard: int = 0,
    *,
    on_missing: MissingPolicy = "warn",
    progress: ProgressFn | None = None,
) -> tuple[pa.Table, list[str]]:
    """Traces of transactions by Harmony hash (``trace_transaction``); returns (table, unknown hashes)."""
    wanted = _check_hashes(hashes)
    client = session.client

    async def one(h: str) -> bytes | None:
        try:
            return await client.trace_transaction_raw(h, shard=shard)
        except NotFoundError:
            return None

    payloads = await gather_or_raise(_counted(one(h), progress) for h in wanted)
    missing = [h for h, p in zip(wanted, payloads, strict=True) if p is None]
    _report_missing(missing, on_missing, "transactions")
    dataset = ds.get("traces")
    tables = [
        dataset.convert([p], ds.ConvertContext(shard_id=shard, requested_tx_hash=h))
        for h, p in zip(wanted, payloads, strict=True)
        if p is not None
    ]
    table = pa.concat_tables(tables) if tables else dataset.schema.empty_table()
    if table.num_rows and dataset.sort_by:
        table = table.sort_by([(c, "ascending") for c in dataset.sort_by])
    return table, missing


async def fetch_tx_counts(
    session: Session,
    addresses: Sequence[str],
    block: int | None = None,
    shard: int = 0,
    *,
    progress: ProgressFn | None = None,
) -> pa.Table:
    """Each distinct address's transaction count (nonce) at ``block`` (``None``: the head).

    An address given twice (also once as one1 and once as 0x) is asked for and listed once.
    """
    from hmyframe.addresses import to_hex  # numpy, loaded for address lookups only

    if isinstance(addresses, str):
        addresses = [addresses]
    if not addresses:
        raise ConfigError("tx_counts needs at least one address")
    distinct: dict[str, str] = {}
    for address in addresses:
        distinct.setdefault(to_hex(address), address)
    addresses = list(distinct.values())
    shard = block_arg(shard, "shard")
    head = await session.head(shard, refresh=True)
    block = head if block is None else block_arg(block, "block")
    if block > head:
        raise ConfigError(f"block {block} is beyond the head {head} of shard {shard}")
    client = session.client
    method = "hmyv2_getTransactionCount" if session.options.version == 2 else "hmy_getTransactionCount"
    ref: int | str = block if session.options.version == 2 else hex(block)
    pairs = [(a, block) for a in addresses]
    payloads = await gather_or_raise(
        _counted(client.request_raw(method, [to_hex(a), ref], shard=shard), progress) for a in addresses
    )
    return ds.get("tx_counts").convert(
        list(payloads), ds.ConvertContext(shard_id=shard, addresses_blocks=pairs)
    )


async def fetch_pending_cx_receipts(session: Session, shard: int = 0) -> pa.Table:
    """Pending cross-shard receipts in ``shard``'s pool (transfers sent to it, not yet received)."""
    raw = await session.methods.get_pending_cx_receipts_raw(shard=shard)
    return ds.get("cx_receipts").convert([raw], ds.ConvertContext(shard_id=shard))


async def fetch_sharding_structure(session: Session) -> pa.Table:
    """The network's shards and their endpoints, as the node lists them."""
    raw = await session.client.request_raw("hmy_getShardingStructure", [])
    return ds.get("shards").convert([raw], ds.ConvertContext(shard_id=await session.client.home_shard()))
