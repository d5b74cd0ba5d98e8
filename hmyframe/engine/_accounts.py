"""Accounts (issue 26): balances, an address's history, a delegator's delegations, ONE moved
internally, rewards collected, token balances and a token's holders, fetched on an open
:class:`~hmyframe.engine.Session` (their public coroutines are in :mod:`hmyframe._public`).

* ``balances`` and ``token_balances`` are cached like ``tokens`` (:mod:`hmyframe.engine._tokens`):
  one file per (chain, shard, block) holding every row asked at that block so far, grown by
  union; a re-read of cached pairs sends no request. Every address and block is checked before
  anything is sent (a bad address or a block past the head is one line, nothing cached), and a
  block whose answers fail caches nothing.
* The calls go through the client's JSON-RPC batching (:data:`CALLS_PER_GROUP` per group, the
  groups in flight together), so 10,000 balances are a few dozen round trips, not 10,000.
* ``native_transfers`` and ``rewards_collected`` are derived from the cached range datasets
  (``transactions`` + ``traces``; ``staking_transactions`` + their receipts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe._tasks import gather_or_raise
from hmyframe.engine._blocks import parse_range
from hmyframe.engine._ranges import fetch_shards
from hmyframe.engine._session import Session, block_arg
from hmyframe.engine._shards import shard_ids, shard_spec
from hmyframe.errors import ConfigError, HistoryUnavailableError, RpcError, short_repr

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
else:
    pa = lazy_module("pyarrow")
    pc = lazy_module("pyarrow.compute")
    pd = lazy_module("pandas")

__all__ = [
    "CALLS_PER_GROUP",
    "addresses_arg",
    "fetch_account_transactions",
    "fetch_balances",
    "fetch_delegator_table",
    "fetch_holders",
    "fetch_native_transfers",
    "fetch_rewards_collected",
    "fetch_token_balances",
    "token_pairs",
]

#: Calls handed to the client at once (it cuts them into JSON-RPC batches of its batch size).
CALLS_PER_GROUP = 2_000
#: ``getTransactionsHistory`` page size asked for.
HISTORY_PAGE = 1_000

ProgressFn = Callable[[int], None]


# --------------------------------------------------------------------------- arguments


def addresses_arg(addresses: object, what: str) -> list[str]:
    """Distinct lower-case 0x forms, in order; AddressError naming the first bad value."""
    from hmyframe.addresses import to_hex

    if isinstance(addresses, str):
        values: list[object] = [addresses]
    elif hasattr(addresses, "tolist"):
        values = list(addresses.tolist())
    elif isinstance(addresses, Iterable):
        values = list(addresses)
    else:
        raise ConfigError(f"{what} must be addresses (one1 or 0x), got {short_repr(addresses)}")
    if not values:
        raise ConfigError(f"{what} needs at least one address (one1 or 0x)")
    return list(dict.fromkeys(to_hex(v) for v in values))  # type: ignore[arg-type]


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


async def _resolve_blocks(session: Session, blocks: object, shard: int) -> list[int]:
    """Block numbers, each checked against the head (ConfigError naming the first past it)."""
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


def _ref(session: Session, block: int) -> int | str:
    return block if session.options.version == 2 else hex(block)


def _ns(session: Session) -> str:
    return "hmyv2" if session.options.version == 2 else "hmy"


async def _batched(
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


# --------------------------------------------------------------------------- per-block cache


async def _cached_per_block(
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
    chain_id = ""
    if cache is not None:
        chain_id = await session.chain_id()
        cached = cache.read_snapshot(chain_id, dataset, shard, block)
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


async def _range_arrow(session: Session, name: str, start: object, end: object, shard: int) -> pa.Table:
    """Range dataset ``name`` of blocks ``start..end`` (``None``: the head) of ``shard``, through
    the session's cache, as the range fetchers read it."""
    end = end if end is not None else "latest"
    parse_range(start, end)  # a spec that is not understood fails before any request
    ids = await shard_ids(session, shard_spec(shard))
    _, tables = await fetch_shards(session, [name], start, end, ids)
    return tables[name]


# --------------------------------------------------------------------------- balances


async def _seen_addresses(session: Session, blocks: list[int], shard: int) -> list[str]:
    table = await _range_arrow(session, "transactions", blocks[0], blocks[-1], shard)
    seen = table["from_address_hex"].to_pylist() + table["to_address_hex"].to_pylist()
    out = sorted({a for a in seen if a})
    if not out:
        raise ConfigError(
            f'addresses="seen": no transaction in blocks {blocks[0]}..{blocks[-1]} of shard {shard}'
        )
    return out


async def fetch_balances(
    session: Session,
    addresses: object,
    blocks: object = None,
    shard: int = 0,
    *,
    progress: ProgressFn | None = None,
) -> pa.Table:
    """The ``balances`` table of ``addresses`` at ``blocks`` of ``shard`` (see :func:`balances`)."""
    shard = block_arg(shard, "shard")
    wanted = (
        None if isinstance(addresses, str) and addresses == "seen" else addresses_arg(addresses, "balances")
    )
    at = await _resolve_blocks(session, blocks, shard)  # before anything is sent for the rows
    if wanted is None:
        wanted = await _seen_addresses(session, at, shard)
    dataset = ds.get("balances")
    method = f"{_ns(session)}_getBalanceByBlockNumber"

    def fetcher(block: int) -> Callable[[list[str]], Any]:
        async def fetch(missing: list[str]) -> pa.Table:
            calls: list[tuple[str, list[object]]] = [(method, [a, _ref(session, block)]) for a in missing]
            payloads = await _batched(session, calls, shard, progress)
            ctx = ds.ConvertContext(shard_id=shard, addresses_blocks=[(a, block) for a in missing])
            return dataset.convert(payloads, ctx)

        return fetch

    def keys(table: pa.Table) -> list[str]:
        return [str(a) for a in table["address_hex"].to_pylist()]

    tables = await gather_or_raise(
        _cached_per_block(session, dataset, shard, b, wanted, keys, fetcher(b)) for b in at
    )
    table = pa.concat_tables(tables)
    return table.sort_by([(c, "ascending") for c in dataset.sort_by])


# --------------------------------------------------------------------------- delegations


async def _delegation_answers(
    session: Session, delegators: object, block: int | None, progress: ProgressFn | None
) -> tuple[int, list[bytes]]:
    wanted = addresses_arg(delegators, "delegator_delegations")
    at = (await _resolve_blocks(session, block, 0))[0]
    method = f"{_ns(session)}_getDelegationsByDelegatorByBlockNumber"
    payloads = await _batched(session, [(method, [a, _ref(session, at)]) for a in wanted], 0, progress)
    return at, payloads


async def fetch_delegator_table(
    session: Session,
    name: str,
    delegators: object,
    block: int | None,
    *,
    progress: ProgressFn | None = None,
) -> pa.Table:
    """Dataset ``name`` (``delegator_delegations`` or ``undelegations``) of ``delegators`` at
    ``block`` (``None``: the beacon shard's head), from getDelegationsByDelegatorByBlockNumber."""
    at, payloads = await _delegation_answers(session, delegators, block, progress)
    # the block's epoch (hmy_ takes a bool for the options in every node era)
    header = await session.client.request("hmy_getBlockByNumber", [hex(at), False], shard=0)
    raw_epoch = header.get("epoch") if isinstance(header, dict) else None
    epoch = int(raw_epoch, 16) if isinstance(raw_epoch, str) else raw_epoch
    ctx = ds.ConvertContext(shard_id=0, snapshot_block=at, snapshot_epoch=epoch)
    return ds.get(name).convert(payloads, ctx)


# --------------------------------------------------------------------------- history


class _History(msgspec.Struct):
    transactions: list[msgspec.Raw] | None = None


_HISTORY = msgspec.json.Decoder(_History | None)


async def _history_of(session: Session, address: str, shard: int, progress: ProgressFn | None) -> list[bytes]:
    out: list[bytes] = []
    method = f"{_ns(session)}_getTransactionsHistory"
    index = 0
    while True:
        args = {
            "address": address,
            "pageIndex": index,
            "pageSize": HISTORY_PAGE,
            "fullTx": True,
            "txType": "ALL",
            "order": "ASC",
        }
        try:
            raw = await session.client.request_raw(method, [args], shard=shard)
        except RpcError as exc:
            if "explorer service not started" in str(exc.rpc_message):
                url = await session.client.endpoint_url(shard)
                raise HistoryUnavailableError(
                    f"{method} on {url}: the node keeps no transaction history index (it answers "
                    f"'{exc.rpc_message}'), so no address's history can be read there; use a node "
                    "with the explorer service"
                ) from None
            raise
        page = _HISTORY.decode(raw)
        listed = [] if page is None or page.transactions is None else page.transactions
        out.extend(bytes(r) for r in listed)
        if progress is not None:
            progress(1)
        if len(listed) < HISTORY_PAGE:
            return out
        index += 1


async def fetch_account_transactions(
    session: Session, addresses: list[str], shard: int, *, progress: ProgressFn | None = None
) -> pa.Table:
    """The ``account_transactions`` of ``addresses`` (checked: :func:`addresses_arg`) on ``shard``,
    every page of the node's history index."""
    found = await gather_or_raise(_history_of(session, a, shard, progress) for a in addresses)
    rows = [(a, p) for a, payloads in zip(addresses, found, strict=True) for p in payloads]
    txs = ds.get("transactions").build(
        ds.decode_blocks([p for _, p in rows]), ds.ConvertContext(shard_id=shard)
    )
    # the transactions builder keeps its input order (a history page is one address's, ascending)
    return ds.get("account_transactions").build(
        (txs, [a for a, _ in rows]), ds.ConvertContext(shard_id=shard)
    )


# --------------------------------------------------------------------------- derived from ranges


async def fetch_native_transfers(session: Session, start: int, end: int | None, shard: int) -> pa.Table:
    """``native_transfers`` of blocks ``start..end`` (``None``: the head), from the cached
    ``transactions`` and ``traces``."""
    txs = await _range_arrow(session, "transactions", start, end, shard)
    traces = await _range_arrow(session, "traces", start, end, shard)
    return ds.get("native_transfers").build((txs, traces), ds.ConvertContext(shard_id=shard))


async def fetch_rewards_collected(
    session: Session, start: int, end: int | None, *, progress: ProgressFn | None = None
) -> pa.Table:
    """``rewards_collected`` of beacon blocks ``start..end``: the cached ``staking_transactions``'
    CollectRewards and their receipts (the amount paid is the receipt's log)."""
    stx = await _range_arrow(session, "staking_transactions", start, end, 0)
    hashes = [
        h
        for h, d in zip(stx["transaction_hash"].to_pylist(), stx["directive"].to_pylist(), strict=True)
        if d == "CollectRewards"
    ]
    method = f"{_ns(session)}_getTransactionReceipt"
    payloads = await _batched(session, [(method, [h]) for h in hashes], 0, progress)
    return ds.get("rewards_collected").convert(payloads, ds.ConvertContext(shard_id=0))


# --------------------------------------------------------------------------- tokens


def token_pairs(pairs: object, holders_of: object) -> list[tuple[str, str]]:
    """``(token, holder)`` pairs as lower-case 0x, distinct, in order (ConfigError / AddressError
    naming the bad value)."""
    from hmyframe.addresses import to_hex

    if isinstance(pairs, str):
        token = to_hex(pairs)
        if holders_of is None:
            raise ConfigError("token_balances(token, ...) needs holders_of=: the holders to read")
        return [(token, h) for h in addresses_arg(holders_of, "token_balances holders")]
    if not isinstance(pairs, Iterable):
        raise ConfigError(f"token_balances takes (token, holder) pairs or one token, got {short_repr(pairs)}")
    out: list[tuple[str, str]] = []
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ConfigError(f"token_balances: {short_repr(pair)} is not a (token, holder) pair")
        out.append((to_hex(pair[0]), to_hex(pair[1])))
    if not out:
        raise ConfigError("token_balances needs at least one (token, holder) pair")
    return list(dict.fromkeys(out))


async def fetch_token_balances(
    session: Session,
    pairs: list[tuple[str, str]],
    block: int | None,
    shard: int,
    progress: ProgressFn | None = None,
) -> pa.Table:
    """The ``token_balances`` rows of ``pairs`` at ``block`` (``None``: the head), cached per block."""
    from hmyframe.datasets.token_balances import call_data

    shard = block_arg(shard, "shard")
    (at,) = await _resolve_blocks(session, block, shard)
    dataset = ds.get("token_balances")
    method = f"{_ns(session)}_call"

    async def fetch(missing: list[tuple[str, str]]) -> pa.Table:
        calls: list[tuple[str, list[object]]] = [
            (method, [{"to": t, "data": call_data(h)}, _ref(session, at)]) for t, h in missing
        ]
        results = await session.client.batch(calls, shard=shard, raw=True, return_exceptions=True)
        payloads: list[bytes] = []
        for item in results:
            if isinstance(item, RpcError) and item.code == 3:
                payloads.append(msgspec.json.encode({"error": {"code": 3, "message": item.rpc_message}}))
            elif isinstance(item, BaseException):
                raise item
            else:
                payloads.append(item)
        if progress is not None:
            progress(len(missing))
        ctx = ds.ConvertContext(shard_id=shard, token_holders=[(t, h, at) for t, h in missing])
        return dataset.convert(payloads, ctx)

    def keys(table: pa.Table) -> list[tuple[str, str]]:
        return list(
            zip(table["token_address_hex"].to_pylist(), table["holder_address_hex"].to_pylist(), strict=True)
        )

    return await _cached_per_block(session, dataset, shard, at, pairs, keys, fetch)


async def fetch_holders(
    session: Session, token: str, start: int, end: int | None, shard: int, check: int
) -> pd.DataFrame:
    """``token``'s (0x) holders with a balance above 0, replayed from ``token_transfers`` of
    blocks ``start..end``, the largest ``check`` compared with ``balanceOf`` at the last block
    (``df.attrs``: ``block``, ``checked``, ``mismatches``, ``standard``)."""
    from hmyframe.addresses import to_one
    from hmyframe.amounts import Uint256Dtype

    last = (await _resolve_blocks(session, end, shard))[0]
    transfers = await _range_arrow(session, "token_transfers", start, last, shard)
    ledger = _ledger(transfers.filter(pc.equal(transfers["token_address_hex"], token)))
    ranked = sorted((a for a, v in ledger.items() if v > 0), key=lambda a: -ledger[a])
    sample = ranked[: max(0, int(check))]
    mismatches: dict[str, tuple[int, int | None]] = {}
    if sample:
        got = await fetch_token_balances(session, [(token, h) for h in sample], last, shard)
        onchain = dict(
            zip(got["holder_address_hex"].to_pylist(), got["token_balance"].to_pylist(), strict=True)
        )
        for h in sample:
            read = onchain.get(h)
            if read is None or int(read) != ledger[h]:
                mismatches[to_one(h)] = (ledger[h], None if read is None else int(read))
    frame = pd.DataFrame(
        {
            "holder_address": [to_one(a) for a in ranked],
            "holder_address_hex": ranked,
            "balance": pd.array([ledger[a] for a in ranked], dtype=Uint256Dtype()),
        }
    )
    frame.attrs.update(
        {"block": last, "checked": len(sample), "mismatches": mismatches, "standard": not mismatches}
    )
    return frame


def _ledger(mine: pa.Table) -> dict[str, int]:
    """Each address's balance from one token's transfers (mints and burns: the zero address)."""
    zero = "0x" + "00" * 20
    ledger: dict[str, int] = {}
    for src, dst, amount in zip(
        mine["from_address_hex"].to_pylist(),
        mine["to_address_hex"].to_pylist(),
        mine["amount"].to_pylist(),
        strict=True,
    ):
        value = int(amount or 0)
        if src and src != zero:
            ledger[src] = ledger.get(src, 0) - value
        if dst and dst != zero:
            ledger[dst] = ledger.get(dst, 0) + value
    return ledger
