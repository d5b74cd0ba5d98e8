"""``metrics.dex_*`` on the devnet's exchange, fetched through hmyframe, against independent truths.

The proof of the issue, on both shards of a devnet with a busy exchange:

* reserves replayed from the ``Sync`` events (``hmyframe.events("uniswap_v2_pair", ...)`` ->
  :func:`metrics.dex_reserves`) equal ``getReserves()`` asked by ``hmy_call`` at the end block
  (:class:`hmyframe.Client`, the answer's words read here by hand), for every pair;
* volumes (:func:`metrics.dex_volume`) equal the Swap logs of ``hmy_getLogs`` decoded here in plain
  Python (data words and topics), per pair and per time bucket, and the WONE pairs' volume in ONE
  is exactly their WONE amounts;
* each swap's amounts follow the constant-product formula with the 0.3 % fee from the reserves
  before it (the output is ``getAmountOut``'s, to the unit), move the reserves by exactly its
  amounts, and its price is the exact quotient of its amounts scaled by the decimals;
* a swap of a pair without WONE is valued through its input token's WONE pair at that pair's
  previous Sync (read from the raw logs), and multi-hop trades are chained hop to hop.
"""

from __future__ import annotations

import asyncio
import decimal
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pandas as pd
import pytest

import hmyframe
from hmyframe import metrics
from hmyframe.devnet import Chain, Devnet
from hmyframe.errors import ConfigError

NET = {"blocks": 500, "seed": 13, "dex_density": 2.0}
END = NET["blocks"] - 1
SYNC = "0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1"
SWAP = "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822"
GET_RESERVES = "0x0902f1ac"


@dataclass
class Fetched:
    net: Devnet
    truth: Chain
    swap: pd.DataFrame
    sync: pd.DataFrame
    pairs: pd.DataFrame
    blocks: pd.DataFrame
    wone: list[str]
    raw_logs: dict[int, list[dict[str, Any]]]


def words(data: str) -> list[int]:
    return [int(data[2 + 64 * k : 66 + 64 * k], 16) for k in range((len(data) - 2) // 64)]


async def _raw_logs(net: Devnet) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for shard, url in enumerate(net.urls):
        async with hmyframe.Client(url) as client:
            query = {"fromBlock": "0x0", "toBlock": hex(END), "topics": [[SYNC, SWAP]]}
            out[shard] = await client.request("hmy_getLogs", [query])
    return out


@pytest.fixture(scope="module")
def fetched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fetched]:
    cache = tmp_path_factory.mktemp("dex-cache")
    with Devnet(**NET) as net:
        common: dict[str, Any] = {"rpc": net, "cache": cache}
        events = hmyframe.events("uniswap_v2_pair", 0, END, shard="all", event=["Swap", "Sync"], **common)
        blocks = hmyframe.blocks(0, END, shard="all", **common)
        pairs = pd.concat(
            [
                hmyframe.dex_pairs(group["address"].unique(), block=END, shard=int(shard), **common)
                for shard, group in events["Sync"].groupby("shard_id")
            ],
            ignore_index=True,
        )
        wone = [net.chain.dex(s).wone for s in range(net.n_shards)]
        raw = asyncio.run(_raw_logs(net))
        yield Fetched(net, Chain(**NET), events["Swap"], events["Sync"], pairs, blocks, wone, raw)


@pytest.fixture(scope="module")
def swaps(fetched: Fetched) -> pd.DataFrame:
    return metrics.dex_swaps(fetched.swap, fetched.pairs, fetched.sync, fetched.blocks, wone=fetched.wone)


def test_the_devnet_trades_on_both_shards(fetched: Fetched) -> None:
    for shard in (0, 1):
        created = {p.address for p in fetched.truth.dex(shard).pairs}
        mine = fetched.pairs[fetched.pairs["shard_id"] == shard]
        assert set(mine["pair_address_hex"]) == created  # every pair of the line-up traded
        assert (fetched.swap["shard_id"] == shard).sum() > 100


# --------------------------------------------------------------------------- reserves


async def _get_reserves(url: str, pairs: list[str]) -> dict[str, tuple[int, int]]:
    async with hmyframe.Client(url) as client:
        answers = await asyncio.gather(
            *(client.request("hmy_call", [{"to": p, "data": GET_RESERVES}, hex(END)]) for p in pairs)
        )
    return {p: (words(a)[0], words(a)[1]) for p, a in zip(pairs, answers, strict=True)}


def test_reserves_replayed_from_sync_equal_get_reserves_by_call_at_the_end_block(fetched: Fetched) -> None:
    last = metrics.dex_reserves(fetched.sync, fetched.pairs, last=True, wone=fetched.wone)
    for shard in (0, 1):
        mine = last[last["shard_id"] == shard]
        called = asyncio.run(_get_reserves(fetched.net.urls[shard], list(mine["pair_hex"])))
        replayed = {
            p: (int(a), int(b))
            for p, a, b in zip(mine["pair_hex"], mine["reserve0"], mine["reserve1"], strict=True)
        }
        assert replayed == called
        assert len(called) == len(fetched.truth.dex(shard).pairs)
        read = fetched.pairs[fetched.pairs["shard_id"] == shard]
        by_call = {
            p: (int(a), int(b))
            for p, a, b in zip(read["pair_address_hex"], read["reserve0"], read["reserve1"], strict=True)
        }
        assert by_call == called  # hmyframe.dex_pairs at the end block, too


def test_reserves_rows_prices_and_liquidity(fetched: Fetched) -> None:
    reserves = metrics.dex_reserves(fetched.sync, fetched.pairs, fetched.blocks, wone=fetched.wone)
    assert len(reserves) == len(fetched.sync)
    assert reserves["timestamp"].notna().all()
    wone = set(fetched.wone)
    for row in reserves.sample(200, random_state=1).itertuples():
        r0, r1 = int(row.reserve0), int(row.reserve1)
        d0, d1 = int(row.token0_decimals), int(row.token1_decimals)
        assert Fraction(row.reserve0_units) == Fraction(r0, 10**d0)  # exact
        assert Fraction(row.reserve1_units) == Fraction(r1, 10**d1)
        exact = Fraction(r1 * 10**d0, r0 * 10**d1)
        assert abs(Fraction(row.price) - exact) <= exact / 10**49  # 50 significant digits
        assert row.price_float == pytest.approx(float(exact), rel=1e-15)
        if row.token0_hex in wone:
            assert int(row.liquidity_atto) == 2 * r0
        elif row.token1_hex in wone:
            assert int(row.liquidity_atto) == 2 * r1
        else:
            assert int(row.liquidity_atto) > 0  # through a WONE pair's price
        assert row.liquidity_one == pytest.approx(int(row.liquidity_atto) / 10**18)


# --------------------------------------------------------------------------- volumes


def _swap_logs(fetched: Fetched) -> list[tuple[int, dict[str, Any]]]:
    return [(s, log) for s, logs in fetched.raw_logs.items() for log in logs if log["topics"][0] == SWAP]


def test_volumes_equal_a_plain_python_decode_of_the_swap_logs(fetched: Fetched, swaps: pd.DataFrame) -> None:
    expected: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for shard, log in _swap_logs(fetched):
        in0, in1, out0, out1 = words(log["data"])
        tally = expected[(shard, log["address"])]
        tally[0] += 1
        tally[1] += in0 + out0
        tally[2] += in1 + out1
    volume = metrics.dex_volume(swaps)
    got = {
        (int(r.shard_id), r.pair_hex): [int(r.swaps), int(r.volume0), int(r.volume1)]
        for r in volume.itertuples()
    }
    assert got == dict(expected)
    assert max(v[1] for v in got.values()) > 10**32  # the HUGE pairs: exact beyond a float's 53 bits
    values = volume["volume_one"].to_numpy()
    assert list(values) == sorted(values, reverse=True)  # the largest first


def test_wone_pairs_volume_in_one_is_their_wone_amounts(fetched: Fetched, swaps: pd.DataFrame) -> None:
    wone = set(fetched.wone)
    sides = {
        (int(r.shard_id), r.pair_address_hex): (r.token0_hex in wone, r.token1_hex in wone)
        for r in fetched.pairs.itertuples()
    }
    expected: dict[tuple[int, str], int] = defaultdict(int)
    for shard, log in _swap_logs(fetched):
        in0, in1, out0, out1 = words(log["data"])
        first, second = sides[(shard, log["address"])]
        if first:
            expected[(shard, log["address"])] += in0 + out0
        elif second:
            expected[(shard, log["address"])] += in1 + out1
    volume = metrics.dex_volume(swaps)
    got = {
        (int(r.shard_id), r.pair_hex): int(r.volume_atto)
        for r in volume.itertuples()
        if (int(r.shard_id), r.pair_hex) in expected
    }
    assert got == dict(expected)
    assert (volume["unvalued"] == 0).all()  # every devnet pair has a token with a WONE pair


def test_volume_per_time_bucket_adds_up_to_the_totals(fetched: Fetched, swaps: pd.DataFrame) -> None:
    per_minute = metrics.dex_volume(swaps, "min")
    totals = metrics.dex_volume(swaps)
    assert per_minute["timestamp"].is_monotonic_increasing
    assert (per_minute["timestamp"].dt.second == 0).all()
    for column in ("swaps", "volume0", "volume1", "volume_atto"):
        summed = per_minute.groupby(["shard_id", "pair_hex"])[column].sum()
        for row in totals.itertuples():
            assert int(summed[(row.shard_id, row.pair_hex)]) == int(getattr(row, column))
    # each swap in the minute of its block
    times = fetched.blocks.set_index(["shard_id", "block_number"])["timestamp"]
    for row in swaps.sample(50, random_state=2).itertuples():
        assert row.timestamp == times[(row.shard_id, row.block_number)]
    assert metrics.dex_volume(swaps, "auto")["timestamp"].nunique() >= 12


# --------------------------------------------------------------------------- prices and the formula


def amount_out(amount_in: int, reserve_in: int, reserve_out: int) -> int:
    """What a constant-product pool with a 0.3 % fee pays for ``amount_in`` (in smallest units)."""
    return amount_in * 997 * reserve_out // (reserve_in * 1000 + amount_in * 997)


def test_swaps_follow_the_constant_product_formula_and_move_the_reserves_exactly(swaps: pd.DataFrame) -> None:
    checked = 0
    for row in swaps.itertuples():
        if pd.isna(row.reserve0_before):
            continue
        before = (int(row.reserve0_before), int(row.reserve1_before))
        after = (int(row.reserve0_after), int(row.reserve1_after))
        amount_in, out = int(row.amount_in), int(row.amount_out)
        r_in, r_out = before if row.zero_for_one else before[::-1]
        assert out == amount_out(amount_in, r_in, r_out)  # the router asks exactly this much
        moved = (amount_in, -out) if row.zero_for_one else (-out, amount_in)
        assert after == (before[0] + moved[0], before[1] + moved[1])
        assert after[0] * after[1] >= before[0] * before[1]  # the fee stays in the pool: k never falls
        assert row.price_impact >= 0.003 - 1e-12  # the fee, and the price the swap itself moved
        checked += 1
    assert checked > 200


def test_each_price_is_the_exact_quotient_of_the_amounts(swaps: pd.DataFrame) -> None:
    for row in swaps.itertuples():
        in0, in1, out0, out1 = (
            int(getattr(row, c)) for c in ("amount0In", "amount1In", "amount0Out", "amount1Out")
        )
        assert row.zero_for_one == (in0 > 0)
        amount0, amount1 = (in0, out1) if row.zero_for_one else (out0, in1)
        exact = Fraction(amount1 * 10 ** int(row.token0_decimals), amount0 * 10 ** int(row.token1_decimals))
        with decimal.localcontext() as ctx:
            ctx.prec = 50
            assert row.price == decimal.Decimal(exact.numerator) / decimal.Decimal(exact.denominator)
        scale = 10 ** int(row.token0_decimals if row.zero_for_one else row.token1_decimals)
        assert Fraction(row.amount_in_units) == Fraction(int(row.amount_in), scale)  # exact
        symbols = (row.token0_symbol, row.token1_symbol)
        assert (row.symbol_in, row.symbol_out) == (symbols if row.zero_for_one else symbols[::-1])


def test_swaps_of_pairs_without_wone_are_valued_through_a_tokens_wone_pair(
    fetched: Fetched, swaps: pd.DataFrame
) -> None:
    wone = set(fetched.wone)
    pools: dict[tuple[int, str], tuple[str, bool]] = {}  # token -> its WONE pair, WONE first?
    for r in fetched.pairs.itertuples():
        if r.token0_hex in wone:
            pools[(int(r.shard_id), r.token1_hex)] = (r.pair_address_hex, True)
        elif r.token1_hex in wone:
            pools[(int(r.shard_id), r.token0_hex)] = (r.pair_address_hex, False)
    syncs = defaultdict(list)  # (shard, pair) -> [(block, log index, reserve0, reserve1)]
    for shard, logs in fetched.raw_logs.items():
        for log in logs:
            if log["topics"][0] == SYNC:
                r0, r1 = words(log["data"])
                syncs[(shard, log["address"])].append(
                    (int(log["blockNumber"], 16), int(log["logIndex"], 16), r0, r1)
                )
    others = swaps[~swaps["token0_hex"].isin(wone) & ~swaps["token1_hex"].isin(wone)]
    assert len(others) > 50
    seen = set()
    for row in others.itertuples():
        # the input priced by its WONE pair; CAFE has none, so a CAFE -> dUSD swap is valued by its output
        side = "in" if (row.shard_id, row.token_in_hex) in pools else "out"
        token, amount = getattr(row, f"token_{side}_hex"), int(getattr(row, f"amount_{side}"))
        pair, wone_first = pools[(row.shard_id, token)]
        earlier = [s for s in syncs[(row.shard_id, pair)] if (s[0], s[1]) < (row.block_number, row.log_index)]
        _, _, r0, r1 = earlier[-1]
        r_wone, r_token = (r0, r1) if wone_first else (r1, r0)
        assert int(row.value_atto) == amount * r_wone // r_token
        assert row.one_via == token
        seen.add(side)
    assert seen == {"in", "out"}


def test_multi_hop_trades_are_chained_as_the_router_was_asked(fetched: Fetched, swaps: pd.DataFrame) -> None:
    trades = metrics.dex_trades(swaps)
    assert trades["hops"].max() == 3
    assert trades["chained"].all()
    assert trades["hops"].sum() == len(swaps)
    for row in trades[trades["hops"] > 1].head(40).itertuples():
        tx = fetched.truth.find_transaction(row.transaction_hash)
        assert tx is not None
        args = words("0x" + tx.input[10:])
        eth_in = tx.value > 0
        path_at = (args[1] if eth_in else args[2]) // 32
        path = ["0x" + f"{w:064x}"[24:] for w in args[path_at + 1 : path_at + 1 + args[path_at]]]
        assert row.hops == len(path) - 1
        assert (row.token_in_hex, row.token_out_hex) == (path[0], path[-1])
        assert int(row.amount_in) == (tx.value if eth_in else args[0])


def test_bad_input_is_a_config_error_naming_what_is_missing(fetched: Fetched) -> None:
    with pytest.raises(ConfigError, match="dex_swaps needs the column\\(s\\) amount0In"):
        metrics.dex_swaps(fetched.sync)
    with pytest.raises(
        ConfigError, match="the pairs frame needs the column\\(s\\) pair_address_hex, token0_hex, token1_hex;"
    ):
        metrics.dex_reserves(fetched.sync, fetched.blocks)
    with pytest.raises(ConfigError, match="wone must be an address"):
        metrics.dex_reserves(fetched.sync, wone=5)  # type: ignore[arg-type]
    without_times = metrics.dex_swaps(fetched.swap.head(3))
    with pytest.raises(ConfigError, match=re.escape("dex_volume(freq=...) needs the column(s) timestamp")):
        metrics.dex_volume(without_times, "h")


def test_without_pairs_the_swaps_keep_their_amounts_and_directions(fetched: Fetched) -> None:
    bare = metrics.dex_swaps(fetched.swap)
    assert bare["token_in_hex"].isna().all()
    assert bare["price"].isna().all()
    assert bare["value_atto"].isna().all()  # no tokens known: no WONE side, no value
    full = metrics.dex_swaps(fetched.swap, fetched.pairs)
    assert bare["amount_in"].tolist() == full["amount_in"].tolist()
    assert bare["zero_for_one"].tolist() == full["zero_for_one"].tolist()
    assert metrics.dex_swaps(fetched.swap.iloc[:0]).empty
    assert metrics.dex_volume(metrics.dex_swaps(fetched.swap.iloc[:0])).empty
