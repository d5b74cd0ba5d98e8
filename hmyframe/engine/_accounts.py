"""Accounts (issue 26): balances, an address's history, a delegator's delegations, ONE moved
internally, rewards collected, a delegator's rewards by validator, token balances and a token's
holders, fetched on an open :class:`~hmyframe.engine.Session` (their public coroutines are in
:mod:`hmyframe._public`).

* ``balances``, ``token_balances`` and ``delegator_delegations`` are cached like ``tokens``
  (:mod:`hmyframe.engine._tokens`): one file per (chain, shard, block) holding every row asked
  at that block so far, grown by union; a re-read of cached rows sends no request, not even for
  the head (a cached block was at most the head when it was written). Every address and block
  is checked before anything is sent (a bad address or a block past the head is one line,
  nothing cached), and a block whose answers fail caches nothing.
* The calls go through the client's JSON-RPC batching (:data:`~hmyframe.engine._at_block.CALLS_PER_GROUP` per group, the
  groups in flight together), so 10,000 balances are a few dozen round trips, not 10,000.
* ``native_transfers`` and ``rewards_collected`` are derived from the cached range datasets
  (``transactions`` + ``traces`` + the cross-shard receipts the range credited;
  ``staking_transactions`` + their receipts); a delegator's rewards
  (:func:`fetch_delegator_rewards`) from cached ``delegator_delegations`` at epoch ends and
  around each of its CollectRewards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe._tasks import gather_or_raise
from hmyframe.engine._at_block import (
    batched,
    block_ref,
    cached_per_block,
    call_namespace,
    contract_answers,
    resolve_blocks,
)
from hmyframe.engine._blocks import parse_range
from hmyframe.engine._ranges import fetch_shards
from hmyframe.engine._session import Session, block_arg
from hmyframe.engine._shards import shard_ids, shard_spec
from hmyframe.errors import ConfigError, HistoryUnavailableError, ResponseShapeError, RpcError, short_repr

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
else:
    pa = lazy_module("pyarrow")
    pc = lazy_module("pyarrow.compute")
    pd = lazy_module("pandas")

__all__ = [
    "addresses_arg",
    "fetch_account_transactions",
    "fetch_balances",
    "fetch_delegator_rewards",
    "fetch_delegator_table",
    "fetch_holders",
    "fetch_native_transfers",
    "fetch_rewards_collected",
    "fetch_token_balances",
    "history_args",
    "token_pairs",
]

#: Seconds before a range's first block in which cross-shard sends it may credit are looked for.
CX_WINDOW = 600
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


# --------------------------------------------------------------------------- ranges


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
    at = await resolve_blocks(session, blocks, shard, "balances")  # before anything is sent for the rows
    if wanted is None:
        wanted = await _seen_addresses(session, at, shard)
    dataset = ds.get("balances")
    method = f"{call_namespace(session)}_getBalanceByBlockNumber"

    def fetcher(block: int) -> Callable[[list[str]], Any]:
        async def fetch(missing: list[str]) -> pa.Table:
            calls: list[tuple[str, list[object]]] = [
                (method, [a, block_ref(session, block)]) for a in missing
            ]
            payloads = await batched(session, calls, shard, progress)
            ctx = ds.ConvertContext(shard_id=shard, addresses_blocks=[(a, block) for a in missing])
            return dataset.convert(payloads, ctx)

        return fetch

    def keys(table: pa.Table) -> list[str]:
        return [str(a) for a in table["address_hex"].to_pylist()]

    tables = await gather_or_raise(
        cached_per_block(session, dataset, shard, b, wanted, keys, fetcher(b)) for b in at
    )
    table = pa.concat_tables(tables)
    return table.sort_by([(c, "ascending") for c in dataset.sort_by])


# --------------------------------------------------------------------------- delegations


async def _delegation_answers(
    session: Session, wanted: list[str], at: int, progress: ProgressFn | None
) -> list[bytes]:
    method = f"{call_namespace(session)}_getDelegationsByDelegatorByBlockNumber"
    return await batched(session, [(method, [a, block_ref(session, at)]) for a in wanted], 0, progress)


async def _epoch_of(session: Session, block: int) -> int | None:
    # the block's epoch (hmy_ takes a bool for the options in every node era)
    header = await session.client.request("hmy_getBlockByNumber", [hex(block), False], shard=0)
    raw_epoch = header.get("epoch") if isinstance(header, dict) else None
    return int(raw_epoch, 16) if isinstance(raw_epoch, str) else raw_epoch


def _with_none_marks(
    table: pa.Table, dataset: ds.Dataset, missing: list[str], at: int, epoch: int | None
) -> pa.Table:
    """``table`` and one row with a null validator per delegator of ``missing`` it lacks: the
    cache file then remembers that a delegator has no delegation at ``at`` (asking again sends
    nothing); the marks are dropped from what the caller gets."""
    found = set(table["delegator_address_hex"].to_pylist())
    none = [a for a in missing if a not in found]
    if not none:
        return table
    from hmyframe.addresses import to_one

    marks = {f.name: pa.nulls(len(none), f.type) for f in dataset.schema}
    marks["snapshot_block"] = pa.array([at] * len(none), type=pa.int64())
    marks["snapshot_epoch"] = pa.array([epoch] * len(none), type=pa.int64())
    marks["delegator_address"] = pa.array([to_one(a) for a in none], type=pa.string())
    marks["delegator_address_hex"] = pa.array(none, type=pa.string())
    return pa.concat_tables([table, pa.table(marks, schema=dataset.schema)])


async def fetch_delegator_table(
    session: Session,
    name: str,
    delegators: object,
    block: int | None,
    *,
    progress: ProgressFn | None = None,
) -> pa.Table:
    """Dataset ``name`` of ``delegators`` at ``block`` (``None``: the beacon shard's head), from
    getDelegationsByDelegatorByBlockNumber: ``delegator_delegations`` (cached per block, grown
    by union) or ``undelegations`` (not cached)."""
    wanted = addresses_arg(delegators, name)
    cached = name == "delegator_delegations"
    at = (await resolve_blocks(session, block, 0, name if cached else None))[0]
    dataset = ds.get(name)

    async def fetch(missing: list[str]) -> pa.Table:
        payloads = await _delegation_answers(session, missing, at, progress)
        epoch = await _epoch_of(session, at)
        table = dataset.convert(
            payloads, ds.ConvertContext(shard_id=0, snapshot_block=at, snapshot_epoch=epoch)
        )
        return _with_none_marks(table, dataset, missing, at, epoch) if cached else table

    if not cached:
        return await fetch(wanted)

    def keys(table: pa.Table) -> list[str]:
        return [str(a) for a in table["delegator_address_hex"].to_pylist()]

    table = await cached_per_block(session, dataset, 0, at, wanted, keys, fetch)
    return table.filter(pc.is_valid(table["validator_address_hex"]))


# --------------------------------------------------------------------------- history


class _History(msgspec.Struct):
    transactions: list[msgspec.Raw] | None = None
    staking_transactions: list[msgspec.Raw] | None = None


_HISTORY = msgspec.json.Decoder(_History | None)
_ORDERS = {"asc": "ASC", "desc": "DESC"}


def history_args(order: object, limit: object) -> tuple[str, int | None]:
    """``order`` (``"asc"`` / ``"desc"``) and ``limit`` (``None`` or a count) of a history
    read, checked before any request (ConfigError naming the bad value)."""
    if not isinstance(order, str) or order not in _ORDERS:
        raise ConfigError(f'order must be "asc" or "desc", got {short_repr(order)}')
    return order, None if limit is None else block_arg(limit, "limit")


async def _history_of(
    session: Session,
    address: str,
    shard: int,
    staking: bool,
    order: str,
    limit: int | None,
    progress: ProgressFn | None,
) -> list[bytes]:
    """The full transaction objects of ``address``'s history (plain or staking), page by page
    from the ``order`` end, until a page comes back short or ``limit`` are in hand."""
    out: list[bytes] = []
    method = f"{call_namespace(session)}_get{'Staking' if staking else ''}TransactionsHistory"
    index = 0
    while limit is None or len(out) < limit:
        args = {
            "address": address,
            "pageIndex": index,
            "pageSize": HISTORY_PAGE,
            "fullTx": True,
            "txType": "ALL",
            "order": _ORDERS[order],
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
        # a node without the explorer answers the staking history with null (its plain history
        # says why, and is always asked first)
        listed = [] if page is None else (page.staking_transactions if staking else page.transactions) or []
        out.extend(bytes(r) for r in listed)
        if progress is not None:
            progress(1)
        if len(listed) < HISTORY_PAGE:
            break
        index += 1
    return out if limit is None else out[:limit]


async def fetch_account_transactions(
    session: Session,
    addresses: list[str],
    shard: int,
    *,
    staking: bool = True,
    order: str = "asc",
    limit: int | None = None,
    progress: ProgressFn | None = None,
) -> pa.Table:
    """The ``account_transactions`` of ``addresses`` (checked: :func:`addresses_arg`) on ``shard``
    from the node's history index: the plain ones, and on the beacon shard (``staking``) the
    staking ones, from the ``order`` end, at most ``limit`` of each per address
    (:func:`history_args`)."""
    order, limit = history_args(order, limit)
    plain = await gather_or_raise(
        _history_of(session, a, shard, False, order, limit, progress) for a in addresses
    )
    if staking and shard == 0:  # staking transactions live on the beacon shard
        staked = await gather_or_raise(
            _history_of(session, a, shard, True, order, limit, progress) for a in addresses
        )
    else:
        staked = [[] for _ in addresses]
    ctx = ds.ConvertContext(shard_id=shard)
    rows = [(a, p) for a, payloads in zip(addresses, plain, strict=True) for p in payloads]
    srows = [(a, p) for a, payloads in zip(addresses, staked, strict=True) for p in payloads]
    # the builders keep their input order (each address's pages, in the order asked)
    txs = ds.get("transactions").build(ds.decode_blocks([p for _, p in rows]), ctx)
    stxs = ds.get("staking_transactions").build(ds.decode_blocks([p for _, p in srows]), ctx)
    if txs.num_rows != len(rows) or stxs.num_rows != len(srows):
        raise ResponseShapeError(
            "account_transactions",
            "transactions",
            f"{txs.num_rows + stxs.num_rows} transactions decoded of {len(rows) + len(srows)} entries",
            "a full transaction object per history entry (fullTx)",
        )
    return ds.get("account_transactions").build((txs, [a for a, _ in rows], stxs, [a for a, _ in srows]), ctx)


# --------------------------------------------------------------------------- derived from ranges


async def _incoming_cx(session: Session, shard: int, lo: int, hi: int, window: int) -> pa.Table | None:
    """The cross-shard receipts blocks ``lo .. hi`` of ``shard`` credited (``cx_receipts`` rows
    whose ``block_number`` is the crediting block), or ``None`` on a one-shard chain.

    Candidates are the other shards' cross-shard sends to ``shard`` from ``window`` seconds
    before block ``lo`` to block ``hi``'s time (shards number their blocks independently: the
    windows are found by timestamp); each is asked of ``shard`` with ``getCXReceiptByHash``,
    which answers with the block that credited it (``null`` while it is pending)."""
    from hmyframe.engine._blocks import _Finder

    others = [s for s in await session.shard_ids() if s != shard]
    if not others:
        return None
    chain_id = await session.chain_id()
    t_lo, t_hi = await _Finder(session, shard, chain_id).timestamps([lo, hi])
    hashes: list[str] = []
    for other in others:
        finder = _Finder(session, other, chain_id)
        first = await finder.first_at(max(0, t_lo - window))
        last = min(await finder.first_at(t_hi + 1) - 1, await session.head(other))
        if last < first:
            continue
        sent = await _range_arrow(session, "transactions", first, last, other)
        hashes.extend(
            h
            for h, cross, to in zip(
                sent["transaction_hash"].to_pylist(),
                sent["is_cross_shard"].to_pylist(),
                sent["to_shard_id"].to_pylist(),
                strict=True,
            )
            if cross and to == shard
        )
    method = f"{call_namespace(session)}_getCXReceiptByHash"
    payloads = await batched(session, [(method, [h]) for h in hashes], shard, None)
    table = ds.get("cx_receipts").convert(
        [p for p in payloads if p.strip() != b"null"], ds.ConvertContext(shard_id=shard)
    )
    credited = table["block_number"]
    return table.filter(pc.and_(pc.greater_equal(credited, lo), pc.less_equal(credited, hi)))


async def fetch_native_transfers(
    session: Session, start: int, end: int | None, shard: int, *, cx_window: int = CX_WINDOW
) -> pa.Table:
    """``native_transfers`` of blocks ``start..end`` (``None``: the head) of ``shard``, from the
    cached ``transactions`` and ``traces`` and the cross-shard receipts those blocks credited
    (sent by the other shards from ``cx_window`` seconds before block ``start``)."""
    lo = block_arg(start, "start")
    window = block_arg(cx_window, "cx_window")
    txs = await _range_arrow(session, "transactions", lo, end, shard)
    traces = await _range_arrow(session, "traces", lo, end, shard)
    hi = block_arg(end if end is not None else await session.head(shard), "end")
    incoming = await _incoming_cx(session, shard, lo, hi, window)
    parts = (txs, traces) if incoming is None else (txs, traces, incoming)
    return ds.get("native_transfers").build(parts, ds.ConvertContext(shard_id=shard))


async def fetch_rewards_collected(
    session: Session,
    start: int,
    end: int | None,
    *,
    delegators: list[str] | None = None,
    progress: ProgressFn | None = None,
) -> pa.Table:
    """``rewards_collected`` of beacon blocks ``start..end``: the cached ``staking_transactions``'
    CollectRewards (``delegators``: only theirs, lower-case 0x) and their receipts (the amount
    paid is the receipt's log)."""
    stx = await _range_arrow(session, "staking_transactions", start, end, 0)
    mine = None if delegators is None else set(delegators)
    hashes = [
        h
        for h, d, who in zip(
            stx["transaction_hash"].to_pylist(),
            stx["directive"].to_pylist(),
            stx["from_address_hex"].to_pylist(),
            strict=True,
        )
        if d == "CollectRewards" and (mine is None or who in mine)
    ]
    method = f"{call_namespace(session)}_getTransactionReceipt"
    payloads = await batched(session, [(method, [h]) for h in hashes], 0, progress)
    return ds.get("rewards_collected").convert(payloads, ds.ConvertContext(shard_id=0))


# --------------------------------------------------------------------------- a delegator's rewards


def _epoch_list(epochs: object, current: int) -> list[int]:
    if isinstance(epochs, int) and not isinstance(epochs, bool):
        if epochs < 1:
            raise ConfigError(f"epochs must be a number of epochs >= 1, a list or a range, got {epochs}")
        return list(range(max(0, current - epochs), current))
    if isinstance(epochs, range | Sequence) and not isinstance(epochs, str):
        listed = sorted({block_arg(e, "epoch") for e in epochs})
        if not listed:
            raise ConfigError("epochs is empty: give at least one epoch")
        if listed[-1] > current:
            raise ConfigError(f"epoch {listed[-1]} is beyond the current epoch {current}")
        return listed
    raise ConfigError(f"epochs must be a number (the last N), a list or a range, got {short_repr(epochs)}")


async def fetch_delegator_rewards(
    session: Session, delegators: object, epochs: object = 10, *, progress: ProgressFn | None = None
) -> pd.DataFrame:
    """``delegators``' rewards per validator and epoch (what :func:`hmyframe.delegator_rewards`
    returns): ``delegator_delegations`` at each epoch's last block and the one before the first
    (and just before each CollectRewards of theirs), ``rewards_collected`` of the blocks between,
    through :func:`hmyframe.metrics.rewards_by_validator`."""
    from hmyframe.engine._history import current_epoch, epoch_last_blocks
    from hmyframe.engine._output import to_output
    from hmyframe.metrics import rewards_by_validator

    wanted = addresses_arg(delegators, "delegator_rewards")
    listed = _epoch_list(epochs, await current_epoch(session))
    found = await epoch_last_blocks(session, sorted({*listed, listed[0] - 1} - {-1}))
    baseline = found[listed[0] - 1][0] if listed[0] > 0 else 0
    ends = [found[e][0] for e in listed]

    async def at(block: int) -> pa.Table:
        return await fetch_delegator_table(session, "delegator_delegations", wanted, block, progress=progress)

    snapshots = await gather_or_raise(at(b) for b in sorted({baseline, *ends}))
    paid = await fetch_rewards_collected(
        session, baseline + 1, ends[-1], delegators=wanted, progress=progress
    )
    before = await gather_or_raise(at(c - 1) for c in sorted(set(paid["block_number"].to_pylist())))
    empty = ds.get("delegator_delegations").schema.empty_table()
    frame = rewards_by_validator(
        to_output(pa.concat_tables(snapshots), "pandas"),
        to_output(paid, "pandas"),
        to_output(pa.concat_tables([empty, *before]), "pandas"),
    )
    frame.attrs.update({"epochs": listed, "baseline_block": baseline})
    return frame


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
    (at,) = await resolve_blocks(session, block, shard, "token_balances")
    dataset = ds.get("token_balances")
    method = f"{call_namespace(session)}_call"

    async def fetch(missing: list[tuple[str, str]]) -> pa.Table:
        calls: list[tuple[str, list[object]]] = [
            (method, [{"to": t, "data": call_data(h)}, block_ref(session, at)]) for t, h in missing
        ]
        payloads = await contract_answers(session, calls, shard)
        if progress is not None:
            progress(len(missing))
        ctx = ds.ConvertContext(shard_id=shard, token_holders=[(t, h, at) for t, h in missing])
        return dataset.convert(payloads, ctx)

    def keys(table: pa.Table) -> list[tuple[str, str]]:
        return list(
            zip(table["token_address_hex"].to_pylist(), table["holder_address_hex"].to_pylist(), strict=True)
        )

    return await cached_per_block(session, dataset, shard, at, pairs, keys, fetch)


async def fetch_holders(
    session: Session, token: str, start: int, end: int | None, shard: int, check: int
) -> pd.DataFrame:
    """``token``'s (0x) holders with a balance above 0, replayed from ``token_transfers`` of
    blocks ``start..end``, the largest ``check`` compared with ``balanceOf`` at the last block
    (``df.attrs``: ``block``, ``checked``, ``mismatches``, ``standard``)."""
    from hmyframe.addresses import to_one
    from hmyframe.amounts import Uint256Dtype

    last = (await resolve_blocks(session, end, shard))[0]
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
