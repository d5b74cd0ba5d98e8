"""``metrics.dex_*`` on a real mainnet swap: block 42,379,341 (shard 0), one transaction routed
through three UniswapV2-style pairs (an arbitrage: WONE -> 0x3f56… -> 0xeeee… -> WONE; receipt
logs 3-4, 6-7 and 9-10 are each pair's Sync then Swap), served from its recorded answers by the
replay node and decoded with ``hmyframe.events("uniswap_v2_pair", ...)``.

Every expected value is read here from the recorded receipt by hand (data words with
``int(..., 16)``, topics sliced): the swaps' amounts and directions, each hop paying the next
pair exactly what it swaps, the one trade they make, the reserves after each hop, and the values
in ONE through WONE (the pairs' tokens are read off the receipt's Transfer logs).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from real_node import RealNode, collection

import hmyframe
from hmyframe import metrics
from hmyframe.metrics.dex import MAINNET_WONE

BLOCK = 42_379_341
ANSWERS = collection("mainnet-2023")
RECEIPT: dict[str, Any] = next(a.result for a in ANSWERS if a.method == "hmy_getBlockReceipts")[0]
LOGS = RECEIPT["logs"]
SYNC = "0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1"
SWAP = "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822"


def words(data: str) -> list[int]:
    return [int(data[2 + 64 * k : 66 + 64 * k], 16) for k in range((len(data) - 2) // 64)]


def address(topic: str) -> str:
    return "0x" + topic[26:]


@pytest.fixture(scope="module")
def events() -> dict[str, pd.DataFrame]:
    with RealNode(ANSWERS) as node:
        frames = hmyframe.events(
            "uniswap_v2_pair", BLOCK, BLOCK, rpc=node.url, cache=False, event=["Swap", "Sync"]
        )
        assert node.misses == []
    return frames


def by_hand() -> list[dict[str, Any]]:
    """The three hops from the raw logs: pair, amounts, who was paid, reserves after."""
    hops = []
    for k, log in enumerate(LOGS):
        if log["topics"][0] != SWAP:
            continue
        sync = LOGS[k - 1]
        assert sync["topics"][0] == SYNC
        assert sync["address"] == log["address"]
        hops.append(
            {
                "pair": log["address"],
                "log_index": int(log["logIndex"], 16),
                "amounts": words(log["data"]),
                "sender": address(log["topics"][1]),
                "to": address(log["topics"][2]),
                "after": tuple(words(sync["data"])),
            }
        )
    return hops


def test_the_receipt_is_a_three_hop_route() -> None:
    hops = by_hand()
    assert [h["log_index"] for h in hops] == [4, 7, 10]
    assert len({h["pair"] for h in hops}) == 3


def test_swaps_are_the_hand_decoded_hops_chained_hop_to_hop(events: dict[str, pd.DataFrame]) -> None:
    swaps = metrics.dex_swaps(events["Swap"], sync=events["Sync"])
    hops = by_hand()
    assert swaps["log_index"].tolist() == [h["log_index"] for h in hops]
    assert swaps["pair_hex"].tolist() == [h["pair"] for h in hops]
    assert swaps["to_hex"].tolist() == [h["to"] for h in hops]
    assert swaps["sender_hex"].tolist() == [h["sender"] for h in hops]
    for row, hop in zip(swaps.itertuples(), hops, strict=True):
        in0, in1, out0, out1 = hop["amounts"]
        assert [int(row.amount0In), int(row.amount1In), int(row.amount0Out), int(row.amount1Out)] == hop[
            "amounts"
        ]
        assert row.zero_for_one == (in0 > 0)
        assert int(row.amount_in) == max(in0, in1)
        assert int(row.amount_out) == max(out0, out1)
        assert (int(row.reserve0_after), int(row.reserve1_after)) == hop["after"]
        assert pd.isna(row.reserve0_before)  # the pairs' earlier Syncs are not in a one-block range
    for k in range(2):  # hop k pays pair k + 1 exactly what pair k + 1 swaps
        assert swaps["to_hex"][k] == swaps["pair_hex"][k + 1]
        assert int(swaps["amount_out"][k]) == int(swaps["amount_in"][k + 1])
        assert max(hops[k]["amounts"][2:]) == max(hops[k + 1]["amounts"][:2])


def pairs_from_transfers() -> pd.DataFrame:
    """Each pair's tokens, read off the receipt: the token a pair received (Transfer to it) and
    the one it paid out (Transfer from it), sorted as a UniswapV2 factory sorts them."""
    transfer = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    tokens: dict[str, set[str]] = {}
    for log in LOGS:
        if log["topics"][0] == transfer:
            for party in (address(log["topics"][1]), address(log["topics"][2])):
                tokens.setdefault(party, set()).add(log["address"])
    rows = []
    for hop in by_hand():
        token0, token1 = sorted(tokens[hop["pair"]])
        rows.append(
            {"pair_address_hex": hop["pair"], "shard_id": 0, "token0_hex": token0, "token1_hex": token1}
        )
    return pd.DataFrame(rows)


def test_the_route_is_one_trade_and_valued_in_one_through_wone(events: dict[str, pd.DataFrame]) -> None:
    pairs = pairs_from_transfers()
    assert MAINNET_WONE in set(pairs["token0_hex"]) | set(pairs["token1_hex"])
    swaps = metrics.dex_swaps(events["Swap"], pairs, events["Sync"])
    hops = by_hand()
    (trade,) = metrics.dex_trades(swaps).itertuples()
    assert trade.hops == 3
    assert trade.chained
    assert trade.route == ">".join(h["pair"] for h in hops)
    assert trade.token_in_hex == trade.token_out_hex == MAINNET_WONE  # an arbitrage: WONE back to WONE
    assert int(trade.amount_in) == max(hops[0]["amounts"][:2])
    assert int(trade.amount_out) == max(hops[2]["amounts"][2:])
    assert int(trade.amount_out) > int(trade.amount_in)
    assert trade.recipient_hex == hops[2]["to"]
    # hops 1 and 3 hold WONE: worth their WONE amounts exactly
    assert int(swaps["value_atto"][0]) == max(hops[0]["amounts"][:2])
    assert int(swaps["value_atto"][2]) == max(hops[2]["amounts"][2:])
    # hop 2 (no WONE) is worth its input, priced by the input token's WONE pair: hop 1's pair, at its Sync
    token = swaps["token_in_hex"][1]
    first = pairs.iloc[0]
    assert token in (first["token0_hex"], first["token1_hex"])
    r0, r1 = hops[0]["after"]
    r_wone, r_token = (r0, r1) if first["token0_hex"] == MAINNET_WONE else (r1, r0)
    assert int(swaps["value_atto"][1]) == max(hops[1]["amounts"][:2]) * r_wone // r_token
    assert swaps["one_via"].tolist() == [MAINNET_WONE, token, MAINNET_WONE]
    reserves = metrics.dex_reserves(events["Sync"], pairs, last=True)
    assert [(int(a), int(b)) for a, b in zip(reserves["reserve0"], reserves["reserve1"], strict=True)] == [
        h["after"] for h in hops
    ]
    wone_side = [
        h["after"][0 if p == MAINNET_WONE else 1] for h, p in zip(hops, pairs["token0_hex"], strict=True)
    ]
    assert [int(v) for v in reserves["liquidity_atto"][[0, 2]]] == [2 * wone_side[0], 2 * wone_side[2]]
