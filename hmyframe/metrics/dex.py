"""DEX metrics on decoded UniswapV2-style pair events: swaps, trades, prices, volume, liquidity.

The input is what :func:`hmyframe.events` decodes with the built-in ``uniswap_v2_pair`` ABI
(``events["Swap"]``, ``events["Sync"]``), optionally the pairs' tokens (:func:`hmyframe.dex_pairs`:
``token0`` / ``token1`` with their symbols and decimals; or the factory's ``PairCreated`` events,
which have the tokens but no decimals) and the ``blocks`` of the range (their times). Nothing
here fetches.

Exactness. Token amounts are exact integers in each token's smallest unit (the ``uint256``
dtype, read as Python ints) and never pass through a float; amounts scaled by a token's
decimals are exact :class:`~decimal.Decimal` values (``amount / 10**decimals``, as
:func:`hmyframe.to_units` gives); values in ONE are exact atto (the ``atto`` dtype, integer
arithmetic with one floor division). A ratio has no exact decimal form: ``price`` is the exact
quotient rounded to :data:`PRICE_DIGITS` significant digits (a Decimal); each has a float
convenience column beside it (``*_float``, ``*_one``, ``*_scaled``).

Prices. A pair's ``price`` is always **token1 per token0**, both scaled by their decimals (for
WONE/dUSD: dUSD per ONE): from a swap's amounts (``amount of token1 / amount of token0``, the
price the trader got, fee included) and from a ``Sync``'s reserves (``reserve1 / reserve0``,
the pool's marginal price before the fee). Without the tokens' decimals the price is null.

Values in ONE. WONE (:data:`MAINNET_WONE`, or the address(es) given as ``wone``) counts as ONE:

* a swap of a pair holding WONE is worth its WONE amount (in or out), exactly;
* a swap of another pair is worth its input amount priced by the input token's WONE pair (its
  last ``Sync`` before the swap: ``amount * reserve_wone // reserve_token`` atto, the pool's
  marginal price; the token's decimals cancel); failing that its output amount priced by the
  output token's WONE pair; failing both it is null (no longer path is followed: a price through
  several pools is a value nobody could trade at). ``one_via`` names the token whose amount was
  valued (WONE itself for a WONE pair). A token with several WONE pairs is priced by the one
  with the most WONE at its last ``Sync`` in the frame.
* a pair's liquidity is twice the value of one side (a constant-product pool holds equal values
  of both at its own price): ``2 * reserve_wone`` for a WONE pair, else twice ``reserve0``
  (or ``reserve1``) valued the same way.

A WONE pair's prices come from the ``Sync`` frame given, so value swaps with the ``Sync``
events of every pair of the range (``events("uniswap_v2_pair", ...)`` without ``address``).
"""

from __future__ import annotations

import bisect
import decimal
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from hmyframe import amounts
from hmyframe.errors import ConfigError, short_repr
from hmyframe.metrics._values import exact_ints, is_missing, require_columns
from hmyframe.metrics.throughput import bucket_frequency

__all__ = [
    "MAINNET_WONE",
    "PRICE_DIGITS",
    "dex_reserves",
    "dex_swaps",
    "dex_trades",
    "dex_volume",
]

#: Wrapped ONE on Harmony mainnet (shard 0): WETH9's interface, 18 decimals.
MAINNET_WONE = "0xcf664087a5bb0237a0bad6742852ec6c8d69a27a"
#: Significant digits of the exact ``price`` quotients (Decimal).
PRICE_DIGITS = 50

_POSITION = ["block_number", "shard_id", "transaction_hash", "transaction_index", "log_index"]
_SWAP_COLUMNS = [*_POSITION, "address", "address_hex", "amount0In", "amount1In", "amount0Out", "amount1Out"]
_SYNC_COLUMNS = [*_POSITION, "address", "address_hex", "reserve0", "reserve1"]
_LOG_BITS = 24  # a position: block_number << 24 | log_index (a block has far fewer logs)


# --------------------------------------------------------------------------- the pairs' tokens


@dataclass(frozen=True, slots=True)
class _Pair:
    """One pair's tokens (0x) and what is known of them."""

    token0: str | None = None
    token1: str | None = None
    symbol0: str | None = None
    symbol1: str | None = None
    decimals0: int | None = None
    decimals1: int | None = None


_UNKNOWN = _Pair()


def _text(value: Any) -> str | None:
    return None if is_missing(value) else str(value)


def _int(value: Any) -> int | None:
    return None if is_missing(value) else int(value)


class _Pairs:
    """The ``pairs`` frame as a lookup: (shard, pair 0x) -> its tokens; every shard when the
    frame has no ``shard_id``."""

    def __init__(self, pairs: pd.DataFrame | None) -> None:
        self._by: dict[tuple[int | None, str], _Pair] = {}
        if pairs is None:
            return
        # hmyframe.dex_pairs names the pair pair_address_hex; decoded PairCreated events name it pair_hex
        key = "pair_hex" if "pair_hex" in getattr(pairs, "columns", ()) else "pair_address_hex"
        require_columns(pairs, [key, "token0_hex", "token1_hex"], "the pairs frame")
        n = len(pairs)

        def column(name: str) -> list[Any]:
            return pairs[name].astype(object).tolist() if name in pairs.columns else [None] * n

        names = ("shard_id", "token0_hex", "token1_hex", "token0_symbol", "token1_symbol")
        rows = zip(
            column(key),
            *(column(c) for c in names),
            column("token0_decimals"),
            column("token1_decimals"),
            strict=True,
        )
        for address, shard, t0, t1, s0, s1, d0, d1 in rows:
            if is_missing(address):
                continue
            hex0, hex1 = (None if is_missing(t) else str(t).lower() for t in (t0, t1))
            pair = _Pair(hex0, hex1, _text(s0), _text(s1), _int(d0), _int(d1))
            self._by[(_int(shard), str(address).lower())] = pair

    def get(self, shard: int, pair: str) -> _Pair:
        return self._by.get((shard, pair)) or self._by.get((None, pair)) or _UNKNOWN


def _wone_set(wone: object) -> frozenset[str]:
    """The WONE address(es) as lower-case 0x (one1 or 0x given; one string or several)."""
    from hmyframe.addresses import to_hex

    values: Iterable[object] = [wone] if isinstance(wone, str) else wone  # type: ignore[assignment]
    if not isinstance(values, Iterable):
        raise ConfigError(f"wone must be an address (one1 or 0x) or several, got {short_repr(wone)}")
    return frozenset(to_hex(str(v)) for v in values)


# --------------------------------------------------------------------------- positions and syncs


def _positions(frame: pd.DataFrame) -> np.ndarray:
    """Each row's place in its shard's log order: ``block_number << 24 | log_index``."""
    blocks = frame["block_number"].to_numpy(dtype=np.int64, na_value=0)
    logs = frame["log_index"].to_numpy(dtype=np.int64, na_value=0)
    positions: np.ndarray = np.left_shift(blocks, _LOG_BITS) | logs
    return positions


@dataclass(slots=True)
class _History:
    """One pair's ``Sync`` events in log order: positions, transactions and reserves."""

    positions: list[int]
    transactions: list[str]
    reserve0: list[int]
    reserve1: list[int]

    def before(self, position: int) -> int:
        """Index of the last Sync before ``position`` (-1: none)."""
        return bisect.bisect_left(self.positions, position) - 1


def _histories(sync: pd.DataFrame | None) -> dict[tuple[int, str], _History]:
    """(shard, pair 0x) -> its Sync history, from a decoded ``Sync`` frame."""
    if sync is None or sync.empty:
        return {}
    require_columns(sync, _SYNC_COLUMNS, "the Sync frame")
    table = pd.DataFrame(
        {
            "shard": sync["shard_id"].to_numpy(dtype=np.int64),
            "pair": sync["address_hex"].astype(object).str.lower().to_numpy(),
            "position": _positions(sync),
            "tx": sync["transaction_hash"].astype(object).to_numpy(),
            "r0": exact_ints(sync["reserve0"], "reserve0"),
            "r1": exact_ints(sync["reserve1"], "reserve1"),
        }
    ).sort_values(["shard", "pair", "position"], kind="stable")
    out: dict[tuple[int, str], _History] = {}
    for (shard, pair), group in table.groupby(["shard", "pair"], sort=False):
        out[(int(shard), str(pair))] = _History(
            group["position"].tolist(), group["tx"].tolist(), group["r0"].tolist(), group["r1"].tolist()
        )
    return out


class _Valuer:
    """Values in atto of token amounts at a log position, from the WONE pairs' Sync histories."""

    def __init__(
        self, histories: dict[tuple[int, str], _History], pairs: _Pairs, wone: frozenset[str]
    ) -> None:
        self.wone = wone
        # (shard, token) -> (the WONE pair's history, whether WONE is its token0); the deepest pool
        self._pools: dict[tuple[int, str], tuple[_History, bool]] = {}
        depth: dict[tuple[int, str], int] = {}
        for (shard, address), history in histories.items():
            pair = pairs.get(shard, address)
            for token, other, wone_first in (
                (pair.token1, pair.token0, True),
                (pair.token0, pair.token1, False),
            ):
                if token is None or other not in wone or token in wone or not history.positions:
                    continue
                last = (history.reserve0 if wone_first else history.reserve1)[-1]
                if last > depth.get((shard, token), -1):
                    depth[(shard, token)] = last
                    self._pools[(shard, token)] = (history, wone_first)

    def value(self, shard: int, token: str | None, amount: int, position: int) -> int | None:
        """``amount`` of ``token`` in atto just before ``position`` (None: no WONE price then)."""
        if token is None:
            return None
        if token in self.wone:
            return amount
        found = self._pools.get((shard, token))
        if found is None:
            return None
        history, wone_first = found
        k = history.before(position)
        if k < 0:
            return None
        wone_reserve, token_reserve = (
            (history.reserve0[k], history.reserve1[k])
            if wone_first
            else (history.reserve1[k], history.reserve0[k])
        )
        return amount * wone_reserve // token_reserve if token_reserve else None


def _worth(
    valuer: _Valuer, shard: int, position: int, candidates: list[tuple[str | None, int | None]]
) -> tuple[int | None, str | None]:
    """``(atto, token valued)``: a WONE amount among ``candidates`` first, else the first amount
    whose token has a WONE price before ``position``; ``(None, None)`` when none has."""
    for token, amount in candidates:
        if token is not None and amount is not None and token in valuer.wone:
            return amount, token
    for token, amount in candidates:
        if amount is None:
            continue
        value = valuer.value(shard, token, amount, position)
        if value is not None:
            return value, token
    return None, None


# --------------------------------------------------------------------------- prices and columns


def _price(amount0: int | None, amount1: int | None, pair: _Pair) -> decimal.Decimal | None:
    """token1 per token0 of two amounts in smallest units, scaled by the decimals, rounded to
    :data:`PRICE_DIGITS` significant digits (None: an amount of token0 of 0, unknown decimals)."""
    if not amount0 or amount1 is None or pair.decimals0 is None or pair.decimals1 is None:
        return None
    with decimal.localcontext() as ctx:
        ctx.prec = PRICE_DIGITS
        return decimal.Decimal(amount1 * 10**pair.decimals0) / decimal.Decimal(amount0 * 10**pair.decimals1)


def _floats(values: list[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def _uint(values: list[int | None]) -> pd.api.extensions.ExtensionArray:
    return pd.array(values, dtype="uint256")


def _atto(values: list[int | None]) -> pd.api.extensions.ExtensionArray:
    return pd.array(values, dtype="atto")


def _strings(values: list[str | None]) -> pd.api.extensions.ExtensionArray:
    return pd.array(values, dtype="string[pyarrow]")


def _units(values: list[int | None], decimals: list[int | None]) -> pd.Series:
    """Exact Decimals ``value / 10**decimals`` (None where either is unknown)."""
    if not values:
        return pd.Series([], dtype=object)
    return amounts.to_units(list(values), list(decimals))


def _with_times(frame: pd.DataFrame, blocks: pd.DataFrame | None) -> pd.DataFrame:
    """``frame`` with each row's block ``timestamp`` (from ``blocks``) after ``log_index``."""
    if blocks is None:
        return frame
    require_columns(blocks, ["shard_id", "block_number", "timestamp"], "the blocks frame")
    times = blocks[["shard_id", "block_number", "timestamp"]].drop_duplicates(["shard_id", "block_number"])
    keys = pd.MultiIndex.from_arrays(
        [times["shard_id"].to_numpy(dtype=np.int64), times["block_number"].to_numpy(dtype=np.int64)]
    )
    found = pd.Series(times["timestamp"].to_numpy(), index=keys)
    wanted = pd.MultiIndex.from_arrays(
        [frame["shard_id"].to_numpy(dtype=np.int64), frame["block_number"].to_numpy(dtype=np.int64)]
    )
    stamps = found.reindex(wanted)
    out = frame.copy()
    out.insert(
        list(out.columns).index("log_index") + 1, "timestamp", pd.to_datetime(stamps.to_numpy(), utc=True)
    )
    return out


def _log_order(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["shard_id", "block_number", "log_index"], kind="stable").reset_index(drop=True)


def _position_columns(frame: pd.DataFrame) -> dict[str, Any]:
    return {
        "block_number": frame["block_number"].to_numpy(dtype=np.int64),
        "shard_id": frame["shard_id"].to_numpy(dtype=np.int64),
        "transaction_hash": _strings(frame["transaction_hash"].astype(object).tolist()),
        "transaction_index": frame["transaction_index"].to_numpy(dtype=np.int64),
        "log_index": frame["log_index"].to_numpy(dtype=np.int64),
        "pair": _strings(frame["address"].astype(object).tolist()),
        "pair_hex": _strings(frame["address_hex"].astype(object).str.lower().tolist()),
    }


def _token_columns(found: list[_Pair]) -> dict[str, Any]:
    return {
        "token0_hex": _strings([p.token0 for p in found]),
        "token1_hex": _strings([p.token1 for p in found]),
        "token0_symbol": _strings([p.symbol0 for p in found]),
        "token1_symbol": _strings([p.symbol1 for p in found]),
        "token0_decimals": pd.array([p.decimals0 for p in found], dtype="Int64"),
        "token1_decimals": pd.array([p.decimals1 for p in found], dtype="Int64"),
    }


# --------------------------------------------------------------------------- reserves


def dex_reserves(
    sync: pd.DataFrame,
    pairs: pd.DataFrame | None = None,
    blocks: pd.DataFrame | None = None,
    *,
    last: bool = False,
    wone: str | Iterable[str] = MAINNET_WONE,
) -> pd.DataFrame:
    """Each pair's reserves, price and liquidity after every ``Sync``: the pools over time.

    Parameters
    ----------
    sync
        Decoded ``Sync`` events (``hmyframe.events("uniswap_v2_pair", ..., event="Sync")``), one
        shard or several.
    pairs
        Optional: the pairs' tokens (:func:`hmyframe.dex_pairs`, or decoded ``PairCreated``
        events): ``token0_hex`` / ``token1_hex``, and with ``token*_symbol`` / ``token*_decimals``
        the scaled reserves and the price.
    blocks
        Optional: the ``blocks`` of the range; adds each row's ``timestamp``.
    last
        ``True``: only each pair's last ``Sync`` (its reserves at the end of the frame's range:
        what ``getReserves()`` answers at the last block when the range reaches that far).
    wone
        The wrapped ONE token (0x or one1; several, e.g. one per devnet shard): see the module's
        notes on values in ONE.

    Returns
    -------
    pandas.DataFrame
        One row per ``Sync`` in log order (shard, block, log index): the log's position (and
        ``timestamp``), ``pair`` / ``pair_hex``, the tokens (``token0_hex``, ``token1_hex``,
        ``token*_symbol``, ``token*_decimals``: null when unknown), ``reserve0`` / ``reserve1``
        (exact ``uint256``, smallest units), ``reserve0_units`` / ``reserve1_units`` (exact
        Decimals, scaled), ``price`` (token1 per token0 from the reserves, Decimal) and
        ``price_float``, ``liquidity_atto`` (the pool's worth in ONE, exact ``atto``; null when
        neither token has a WONE price) and ``liquidity_one`` (float).
    """
    require_columns(sync, _SYNC_COLUMNS, "dex_reserves")
    lookup, wone_set = _Pairs(pairs), _wone_set(wone)
    ordered = _log_order(sync)
    valuer = _Valuer(_histories(ordered), lookup, wone_set)
    shards = ordered["shard_id"].to_numpy(dtype=np.int64).tolist()
    addresses = ordered["address_hex"].astype(object).str.lower().tolist()
    found = [lookup.get(s, a) for s, a in zip(shards, addresses, strict=True)]
    positions = _positions(ordered).tolist()
    r0 = exact_ints(ordered["reserve0"], "reserve0")
    r1 = exact_ints(ordered["reserve1"], "reserve1")
    worth = [
        _worth(valuer, s, p, [(f.token0, a), (f.token1, b)])[0]
        for s, p, f, a, b in zip(shards, positions, found, r0, r1, strict=True)
    ]
    liquidity = [None if w is None else 2 * w for w in worth]
    prices = [_price(a, b, f) for a, b, f in zip(r0, r1, found, strict=True)]
    out = pd.DataFrame(
        {
            **_position_columns(ordered),
            **_token_columns(found),
            "reserve0": _uint(r0),
            "reserve1": _uint(r1),
            "reserve0_units": _units(r0, [f.decimals0 for f in found]).to_numpy(),
            "reserve1_units": _units(r1, [f.decimals1 for f in found]).to_numpy(),
            "price": pd.Series(prices, dtype=object).to_numpy(),
            "price_float": _floats(prices),
            "liquidity_atto": _atto(liquidity),
            "liquidity_one": amounts.to_one(pd.Series(liquidity, dtype="atto")).to_numpy(),
        }
    )
    if last:
        out = out.drop_duplicates(["shard_id", "pair_hex"], keep="last").reset_index(drop=True)
    return _with_times(out, blocks)


# --------------------------------------------------------------------------- swaps


@dataclass(slots=True)
class _Swap:
    """One swap worked out: direction, exact amounts, reserves around it, value."""

    zero_for_one: bool | None = None
    token_in: str | None = None
    token_out: str | None = None
    amount_in: int | None = None
    amount_out: int | None = None
    price: decimal.Decimal | None = None
    before: tuple[int, int] | None = None
    after: tuple[int, int] | None = None
    impact: float | None = None
    value: int | None = None
    via: str | None = None


def _direction(pair: _Pair, flows: tuple[int, int, int, int]) -> _Swap:
    """The swap's net flows: token0 in and token1 out (``zero_for_one``) or the reverse; neither
    (a flash swap paid back in the same token, dust on both sides) leaves it undirected."""
    in0, in1, out0, out1 = flows
    net0, net1 = in0 - out0, in1 - out1
    if net0 > 0 and net1 < 0:
        return _Swap(True, pair.token0, pair.token1, net0, -net1, _price(net0, -net1, pair))
    if net1 > 0 and net0 < 0:
        return _Swap(False, pair.token1, pair.token0, net1, -net0, _price(-net0, net1, pair))
    return _Swap()


def _around(history: _History | None, position: int, transaction: str) -> tuple[Any, Any]:
    """The pair's reserves before the swap and after it: the Sync the swap follows in its own
    transaction is the state after it, the one before that the state it traded against."""
    if history is None:
        return None, None
    k = history.before(position)
    after = None
    if k >= 0 and history.transactions[k] == transaction:
        after, k = (history.reserve0[k], history.reserve1[k]), k - 1
    before = (history.reserve0[k], history.reserve1[k]) if k >= 0 else None
    return before, after


def _impact(swap: _Swap) -> float | None:
    """``1 - execution price / the pool's price before``, in the swap's direction (the fee
    and the price moved by the swap itself: 0.003 and up)."""
    if swap.before is None or swap.amount_in is None or swap.amount_out is None:
        return None
    r_in, r_out = swap.before if swap.zero_for_one else swap.before[::-1]
    if not r_out or not swap.amount_in:
        return None
    return float(1 - Fraction(swap.amount_out * r_in, swap.amount_in * r_out))


def _work_out(
    row: tuple[int, str, int, str, int, int, int, int],
    lookup: _Pairs,
    histories: dict[tuple[int, str], _History],
    valuer: _Valuer,
) -> tuple[_Pair, _Swap]:
    shard, address, position, transaction, *flows = row
    pair = lookup.get(shard, address)
    swap = _direction(pair, (flows[0], flows[1], flows[2], flows[3]))
    swap.before, swap.after = _around(histories.get((shard, address)), position, transaction)
    swap.impact = _impact(swap)
    if swap.zero_for_one is not None:  # the WONE side first, else the input, else the output
        sides = [(swap.token_in, swap.amount_in), (swap.token_out, swap.amount_out)]
        swap.value, swap.via = _worth(valuer, shard, position, sides)
    return pair, swap


def dex_swaps(
    swap: pd.DataFrame,
    pairs: pd.DataFrame | None = None,
    sync: pd.DataFrame | None = None,
    blocks: pd.DataFrame | None = None,
    *,
    wone: str | Iterable[str] = MAINNET_WONE,
) -> pd.DataFrame:
    """Each swap with its direction, exact amounts in and out, price, the reserves around it and
    its value in ONE.

    Parameters
    ----------
    swap
        Decoded ``Swap`` events (``hmyframe.events("uniswap_v2_pair", ..., event="Swap")``).
    pairs
        Optional: the pairs' tokens (:func:`hmyframe.dex_pairs`, or decoded ``PairCreated``
        events): which token went in and out, their symbols and decimals (the price needs them).
    sync
        Optional: decoded ``Sync`` events of the range: the reserves before and after each swap,
        its price impact, and the WONE pairs' prices that value swaps of other pairs in ONE.
    blocks
        Optional: the ``blocks`` of the range; adds each swap's ``timestamp``.
    wone
        The wrapped ONE token(s) (see the module's notes on values in ONE).

    Returns
    -------
    pandas.DataFrame
        One row per swap in log order: the log's position (and ``timestamp``), ``pair`` /
        ``pair_hex``, ``sender_hex`` (who called the pair: a router), ``to`` / ``to_hex`` (who
        was paid: the trader, or the next pair of a multi-hop trade), the tokens (``token*_hex``,
        ``token*_symbol``, ``token*_decimals``), the four amounts as logged, then:
        ``zero_for_one`` (token0 in and token1 out; False the reverse; NA when the net flows are
        not one in and one out), ``token_in_hex`` / ``token_out_hex``, ``symbol_in`` /
        ``symbol_out``, ``amount_in`` / ``amount_out`` (net, exact ``uint256``),
        ``amount_in_units`` / ``amount_out_units`` (exact Decimals, scaled by the decimals),
        ``price`` (token1 per token0 the trader got, Decimal) and ``price_float``,
        ``reserve0_before`` / ``reserve1_before`` / ``reserve0_after`` / ``reserve1_after``
        (exact, from ``sync``; null where the Sync is not in the frame), ``price_impact``
        (``1 - price got / the pool's price before``, in the swap's direction: 0.003 for a tiny
        swap, the fee), ``value_atto`` (exact ``atto``) / ``value_one`` (float) and ``one_via``
        (the token whose amount was valued).
    """
    require_columns(swap, [*_SWAP_COLUMNS, "sender_hex", "to", "to_hex"], "dex_swaps")
    lookup, wone_set = _Pairs(pairs), _wone_set(wone)
    ordered = _log_order(swap)
    histories = _histories(sync)
    valuer = _Valuer(histories, lookup, wone_set)
    flows = [exact_ints(ordered[c], c) for c in ("amount0In", "amount1In", "amount0Out", "amount1Out")]
    rows = zip(
        ordered["shard_id"].to_numpy(dtype=np.int64).tolist(),
        ordered["address_hex"].astype(object).str.lower().tolist(),
        _positions(ordered).tolist(),
        ordered["transaction_hash"].astype(object).tolist(),
        *[[v or 0 for v in f] for f in flows],
        strict=True,
    )
    worked = [_work_out(row, lookup, histories, valuer) for row in rows]
    out = _swap_frame(ordered, flows, worked)
    return _with_times(out, blocks)


def _symbol(pair: _Pair, token: str | None) -> str | None:
    if token is None:
        return None
    return pair.symbol0 if token == pair.token0 else pair.symbol1


def _swap_frame(
    ordered: pd.DataFrame, flows: list[list[int | None]], worked: list[tuple[_Pair, _Swap]]
) -> pd.DataFrame:
    """The columns of :func:`dex_swaps` from the swaps worked out."""
    found = [p for p, _ in worked]
    swaps = [s for _, s in worked]
    decimals_in = [p.decimals0 if s.zero_for_one else p.decimals1 for p, s in worked]
    decimals_out = [p.decimals1 if s.zero_for_one else p.decimals0 for p, s in worked]
    amount_in = [s.amount_in for s in swaps]
    amount_out = [s.amount_out for s in swaps]
    values = [s.value for s in swaps]
    columns: dict[str, Any] = {
        **_position_columns(ordered),
        "sender_hex": _strings(ordered["sender_hex"].astype(object).tolist()),
        "to": _strings(ordered["to"].astype(object).tolist()),
        "to_hex": _strings(ordered["to_hex"].astype(object).str.lower().tolist()),
        **_token_columns(found),
        **{
            name: _uint(f)
            for name, f in zip(("amount0In", "amount1In", "amount0Out", "amount1Out"), flows, strict=True)
        },
        "zero_for_one": pd.array([s.zero_for_one for s in swaps], dtype="boolean"),
        "token_in_hex": _strings([s.token_in for s in swaps]),
        "token_out_hex": _strings([s.token_out for s in swaps]),
        "symbol_in": _strings([_symbol(p, s.token_in) for p, s in worked]),
        "symbol_out": _strings([_symbol(p, s.token_out) for p, s in worked]),
        "amount_in": _uint(amount_in),
        "amount_out": _uint(amount_out),
        "amount_in_units": _units(amount_in, decimals_in).to_numpy(),
        "amount_out_units": _units(amount_out, decimals_out).to_numpy(),
        "price": pd.Series([s.price for s in swaps], dtype=object).to_numpy(),
        "price_float": _floats([s.price for s in swaps]),
    }
    for side, name in ((0, "before"), (1, "after")):
        around = [s.before if side == 0 else s.after for s in swaps]
        columns[f"reserve0_{name}"] = _uint([None if r is None else r[0] for r in around])
        columns[f"reserve1_{name}"] = _uint([None if r is None else r[1] for r in around])
    columns["price_impact"] = _floats([s.impact for s in swaps])
    columns["value_atto"] = _atto(values)
    columns["value_one"] = amounts.to_one(pd.Series(values, dtype="atto")).to_numpy()
    columns["one_via"] = _strings([s.via for s in swaps])
    return pd.DataFrame(columns)


# --------------------------------------------------------------------------- trades and volume

_TRADE_INPUT = [
    "shard_id",
    "block_number",
    "transaction_hash",
    "log_index",
    "pair_hex",
    "to_hex",
    "sender_hex",
    "token_in_hex",
    "token_out_hex",
    "symbol_in",
    "symbol_out",
    "amount_in",
    "amount_out",
    "value_atto",
]


def _chained(hops: pd.DataFrame, amounts_in: list[int | None], amounts_out: list[int | None]) -> bool:
    """Each hop pays the next pair exactly what that pair swaps, in the token it takes."""
    pairs = hops["pair_hex"].tolist()
    to = hops["to_hex"].tolist()
    tokens_in, tokens_out = hops["token_in_hex"].tolist(), hops["token_out_hex"].tolist()
    for k in range(len(pairs) - 1):
        if amounts_out[k] is None or amounts_out[k] != amounts_in[k + 1] or to[k] != pairs[k + 1]:
            return False
        known = not (is_missing(tokens_out[k]) or is_missing(tokens_in[k + 1]))
        if known and tokens_out[k] != tokens_in[k + 1]:
            return False
    return True


def dex_trades(swaps: pd.DataFrame) -> pd.DataFrame:
    """Trades: the swaps of one transaction joined hop to hop (a multi-hop route is one trade).

    Parameters
    ----------
    swaps
        :func:`dex_swaps`' frame.

    Returns
    -------
    pandas.DataFrame
        One row per (shard, transaction) with swaps, in log order: ``block_number``,
        ``shard_id``, ``transaction_hash``, ``hops``, ``route`` (the pairs' 0x addresses in hop
        order, joined by ``>``), ``sender_hex`` (the first hop's caller: the router),
        ``recipient_hex`` (who the last hop paid), ``token_in_hex`` / ``symbol_in`` /
        ``amount_in`` (the first hop's input, exact), ``token_out_hex`` / ``symbol_out`` /
        ``amount_out`` (the last hop's output, exact), ``chained`` (every hop paid the next pair
        exactly the amount that pair swapped, in the token it took: one route; False for two
        trades in one transaction, or a hop missing from the frame) and ``value_atto`` /
        ``value_one`` (the first hop's value in ONE).
    """
    require_columns(swaps, _TRADE_INPUT, "dex_trades")
    ordered = _log_order(swaps)
    rows: list[dict[str, Any]] = []
    for (shard, tx), hops in ordered.groupby(["shard_id", "transaction_hash"], sort=False):
        ins = exact_ints(hops["amount_in"], "amount_in")
        outs = exact_ints(hops["amount_out"], "amount_out")
        first, final = hops.iloc[0], hops.iloc[-1]
        value = exact_ints(hops["value_atto"].iloc[:1], "value_atto")[0]
        rows.append(
            {
                "block_number": int(first["block_number"]),
                "shard_id": int(shard),
                "transaction_hash": tx,
                "hops": len(hops),
                "route": ">".join(str(p) for p in hops["pair_hex"]),
                "sender_hex": _text(first["sender_hex"]),
                "recipient_hex": _text(final["to_hex"]),
                "token_in_hex": _text(first["token_in_hex"]),
                "symbol_in": _text(first["symbol_in"]),
                "amount_in": ins[0],
                "token_out_hex": _text(final["token_out_hex"]),
                "symbol_out": _text(final["symbol_out"]),
                "amount_out": outs[-1],
                "chained": _chained(hops, ins, outs),
                "value_atto": value,
            }
        )
    return _trade_frame(rows)


def _trade_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    def get(name: str) -> list[Any]:
        return [r[name] for r in rows]

    out = pd.DataFrame(
        {
            "block_number": np.array(get("block_number"), dtype=np.int64),
            "shard_id": np.array(get("shard_id"), dtype=np.int64),
            "transaction_hash": _strings(get("transaction_hash")),
            "hops": np.array(get("hops"), dtype=np.int64),
            "route": _strings(get("route")),
            **{
                name: _strings(get(name))
                for name in ("sender_hex", "recipient_hex", "token_in_hex", "symbol_in")
            },
            "amount_in": _uint(get("amount_in")),
            **{name: _strings(get(name)) for name in ("token_out_hex", "symbol_out")},
            "amount_out": _uint(get("amount_out")),
            "chained": np.array(get("chained"), dtype=bool),
            "value_atto": _atto(get("value_atto")),
        }
    )
    out["value_one"] = amounts.to_one(out["value_atto"]).to_numpy()
    return out


_VOLUME_INPUT = [
    "shard_id",
    "pair",
    "pair_hex",
    "token0_hex",
    "token1_hex",
    "token0_symbol",
    "token1_symbol",
    "token0_decimals",
    "token1_decimals",
    "amount0In",
    "amount1In",
    "amount0Out",
    "amount1Out",
    "value_atto",
]


@dataclass(slots=True)
class _Tally:
    """One (bucket, shard, pair)'s running sums, exact."""

    first: int
    swaps: int = 0
    volume0: int = 0
    volume1: int = 0
    value: int = 0
    unvalued: int = 0


def dex_volume(swaps: pd.DataFrame, freq: str | None = None) -> pd.DataFrame:
    """Volume per pair, in each token's units (exact) and in ONE, in all or per time bucket.

    Parameters
    ----------
    swaps
        :func:`dex_swaps`' frame (with ``blocks`` given there when ``freq`` is).
    freq
        ``None`` (default): one row per pair for the whole frame. A pandas frequency (``"min"``,
        ``"h"``, ``"D"``...) or ``"auto"``: one row per UTC time bucket and pair.

    Returns
    -------
    pandas.DataFrame
        One row per (bucket, shard, pair): ``timestamp`` (the bucket's start, with ``freq``),
        ``shard_id``, ``pair`` / ``pair_hex``, the tokens (``token*_hex``, ``token*_symbol``),
        ``swaps``, ``volume0`` / ``volume1`` (every amount of token0 / token1 in or out, summed
        exactly in its smallest units, ``uint256``), ``volume0_scaled`` / ``volume1_scaled``
        (scaled by the decimals, float; NaN where unknown; exact: ``hmyframe.to_units``),
        ``volume_atto`` (the swaps' values in ONE summed exactly, ``atto``; null when none has
        one), ``volume_one`` (float) and ``unvalued`` (swaps without a value in ONE, left out of
        ``volume_atto``). In all: largest ``volume_one`` first (then most swaps); per bucket:
        in time order, the largest first within a bucket.
    """
    require_columns(swaps, _VOLUME_INPUT, "dex_volume")
    buckets: list[Any] = [None] * len(swaps)
    if freq is not None:
        require_columns(swaps, ["timestamp"], "dex_volume(freq=...)")
        times = pd.to_datetime(swaps["timestamp"], utc=True)
        buckets = times.dt.floor(bucket_frequency(times, freq)).tolist()
    keys = zip(
        buckets,
        swaps["shard_id"].to_numpy(dtype=np.int64).tolist(),
        swaps["pair_hex"].astype(object).str.lower().tolist(),
        strict=True,
    )
    flows = [exact_ints(swaps[c], c) for c in ("amount0In", "amount1In", "amount0Out", "amount1Out")]
    values = exact_ints(swaps["value_atto"], "value_atto")
    tallies: dict[tuple[Any, int, str], _Tally] = {}
    for i, (key, in0, in1, out0, out1, value) in enumerate(zip(keys, *flows, values, strict=True)):
        tally = tallies.setdefault(key, _Tally(i))
        tally.swaps += 1
        tally.volume0 += (in0 or 0) + (out0 or 0)
        tally.volume1 += (in1 or 0) + (out1 or 0)
        if value is None:
            tally.unvalued += 1
        else:
            tally.value += value
    return _volume_frame(swaps, tallies, freq is not None)


def _exact_sums(values: list[int]) -> Any:
    """Exact sums as ``uint256``; Python ints (object) if one outgrows 2**256 - 1."""
    if all(v <= amounts.UINT256_MAX for v in values):
        return _uint(list(values))
    return np.array(values, dtype=object)


def _volume_frame(
    swaps: pd.DataFrame, tallies: dict[tuple[Any, int, str], _Tally], timed: bool
) -> pd.DataFrame:
    keys = list(tallies)
    firsts = [tallies[k].first for k in keys]
    meta = swaps.iloc[firsts]
    value = [None if t.unvalued == t.swaps else t.value for t in tallies.values()]
    volume0 = [t.volume0 for t in tallies.values()]
    volume1 = [t.volume1 for t in tallies.values()]
    decimals0 = [_int(d) for d in meta["token0_decimals"].astype(object)]
    decimals1 = [_int(d) for d in meta["token1_decimals"].astype(object)]
    out = pd.DataFrame(
        {
            "shard_id": np.array([k[1] for k in keys], dtype=np.int64),
            "pair": _strings(meta["pair"].astype(object).tolist()),
            "pair_hex": _strings([k[2] for k in keys]),
            **{c: _strings([_text(v) for v in meta[c].astype(object)]) for c in _VOLUME_INPUT[3:7]},
            "swaps": np.array([t.swaps for t in tallies.values()], dtype=np.int64),
            "volume0": _exact_sums(volume0),
            "volume1": _exact_sums(volume1),
            "volume0_scaled": amounts.to_units(volume0, decimals0, exact=False).to_numpy() if keys else [],
            "volume1_scaled": amounts.to_units(volume1, decimals1, exact=False).to_numpy() if keys else [],
            "volume_atto": _atto(value),
            "volume_one": amounts.to_one(pd.Series(value, dtype="atto")).to_numpy(),
            "unvalued": np.array([t.unvalued for t in tallies.values()], dtype=np.int64),
        }
    )
    rank = out["volume_one"].fillna(-1.0)
    if timed:
        out.insert(0, "timestamp", pd.to_datetime(pd.Series([k[0] for k in keys]), utc=True).to_numpy())
        order = np.lexsort(
            (out["pair_hex"].to_numpy(dtype=object), -rank.to_numpy(), out["timestamp"].to_numpy())
        )
    else:
        order = np.lexsort(
            (out["pair_hex"].to_numpy(dtype=object), -out["swaps"].to_numpy(), -rank.to_numpy())
        )
    return out.iloc[order].reset_index(drop=True)
