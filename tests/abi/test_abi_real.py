"""Real data first: the mainnet block 42,379,341 of ``tests/real/mainnet-2023/`` is one 3-hop swap
through three UniswapV2-style pairs (logs 3-4, 6-7, 9-10 are ``Sync`` + ``Swap``, the other five
HRC-20 ``Transfer``s). Its 11 logs go through the ``logs`` dataset and are decoded by
:func:`hmyframe.abi.decode_logs`; every value is checked against a decode written here by hand
(hex slices of the published answer) and against eth-abi, the reference codec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import eth_abi
import pandas as pd
import pytest

from hmyframe.abi import builtin, decode, decode_calls, decode_logs
from hmyframe.addresses import to_one
from hmyframe.amounts import Uint256Dtype
from hmyframe.datasets import ConvertContext, get

REAL = Path(__file__).resolve().parent.parent / "real" / "mainnet-2023"
SWAP = "Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)"


def _receipt() -> dict[str, Any]:
    answer = json.loads((REAL / "hmy_getBlockReceipts__getblock-docs.json").read_text())
    (receipt,) = answer["result"]
    return receipt


def _transaction() -> dict[str, Any]:
    return json.loads((REAL / "hmyv2_getTransactionByHash__getblock-docs.json").read_text())["result"]


@pytest.fixture(scope="module")
def raw_logs() -> list[dict[str, Any]]:
    return _receipt()["logs"]


@pytest.fixture(scope="module")
def logs(raw_logs: list[dict[str, Any]]) -> Any:
    """The logs dataset of the block, built from the node's answer as a fetch builds it."""
    return get("logs").convert([json.dumps(raw_logs).encode()], ConvertContext(shard_id=0))


def _word(data: str, k: int) -> int:
    """The k-th 32-byte word of 0x data, by hand."""
    return int(data[2 + 64 * k : 2 + 64 * (k + 1)], 16)


def _topic_address(topic: str) -> str:
    assert topic[2:26] == "0" * 24
    return "0x" + topic[26:]


def test_the_block_is_three_sync_swap_pairs_among_five_transfers(logs: Any) -> None:
    frames = decode_logs(logs, "uniswap_v2_pair")
    assert {k: len(v) for k, v in frames.items()} == {
        "Transfer": 5,
        "Approval": 0,
        "Mint": 0,
        "Burn": 0,
        "Swap": 3,
        "Sync": 3,
    }
    assert frames["Sync"]["log_index"].tolist() == [3, 6, 9]
    assert frames["Swap"]["log_index"].tolist() == [4, 7, 10]
    assert frames["Transfer"]["log_index"].tolist() == [0, 1, 2, 5, 8]
    assert all(not f.attrs["undecoded"] for f in frames.values())
    # each pair emits its Sync then its Swap
    assert frames["Sync"]["address_hex"].tolist() == frames["Swap"]["address_hex"].tolist()


def test_swap_values_equal_a_decode_by_hand(logs: Any, raw_logs: list[dict[str, Any]]) -> None:
    swaps = decode_logs(logs, SWAP)
    assert list(swaps.columns[:7]) == [
        "block_number",
        "shard_id",
        "transaction_hash",
        "transaction_index",
        "log_index",
        "address",
        "address_hex",
    ]
    assert list(swaps.columns[7:]) == [
        "sender",
        "sender_hex",
        "amount0In",
        "amount1In",
        "amount0Out",
        "amount1Out",
        "to",
        "to_hex",
    ]
    for row, raw in zip(swaps.itertuples(index=False), [raw_logs[i] for i in (4, 7, 10)], strict=True):
        assert row.block_number == int(raw["blockNumber"], 16) == 42_379_341
        assert row.transaction_hash == raw["transactionHash"]
        assert row.address_hex == raw["address"]
        assert row.sender_hex == _topic_address(raw["topics"][1])
        assert row.sender == to_one(row.sender_hex)
        assert row.to_hex == _topic_address(raw["topics"][2])
        assert row.to == to_one(row.to_hex)
        assert [row.amount0In, row.amount1In, row.amount0Out, row.amount1Out] == [
            _word(raw["data"], k) for k in range(4)
        ]
    for column in ("amount0In", "amount1In", "amount0Out", "amount1Out"):
        assert swaps[column].dtype == Uint256Dtype()
    # the route: what one pair sends out is what the next one gets in (the 3-hop swap)
    assert swaps["amount0Out"][0] == swaps["amount0In"][1] == 305_158_344_418_957_680
    assert swaps["amount1Out"][1] == swaps["amount1In"][2] == 2_278_651_678_252_325_059
    # and it ends at the router (the tx's 'to', one15f9mx8...) which sent the first tokens
    assert swaps["to"][2] == _transaction()["to"] == "one15f9mx8rzd5anlfs887rx86dvp2upl50eslufrq"


def test_sync_and_transfer_values_equal_a_decode_by_hand(logs: Any, raw_logs: list[dict[str, Any]]) -> None:
    frames = decode_logs(logs, "uniswap_v2_pair", event=["Sync", "Transfer"])
    syncs, transfers = frames["Sync"], frames["Transfer"]
    for row in syncs.itertuples(index=False):
        raw = raw_logs[row.log_index]
        assert (row.reserve0, row.reserve1) == (_word(raw["data"], 0), _word(raw["data"], 1))
    assert syncs["reserve1"][0] == 158_165_821_856_737_881_439_131  # beyond 2**64: exact
    for row in transfers.itertuples(index=False):
        raw = raw_logs[row.log_index]
        assert row.from_hex == _topic_address(raw["topics"][1])
        assert row.to_hex == _topic_address(raw["topics"][2])
        assert row.value == _word(raw["data"], 0)
    # the first transfer's 19.9 tokens (18 decimals) left the router for the last pair: exact
    assert transfers["value"][0] == 19_897_679_572_082_912_228


def test_eth_abi_decodes_the_same_logs_to_the_same_values(logs: Any, raw_logs: list[dict[str, Any]]) -> None:
    pair = builtin("uniswap_v2_pair")
    frames = decode_logs(logs, pair)
    by_topic = {e.topic0: e for e in pair.events}
    for raw in raw_logs:
        event = by_topic[raw["topics"][0]]
        frame = frames[event.name]
        (row,) = frame[frame["log_index"] == int(raw["logIndex"], 16)].to_dict("records")
        data_types = [p.type.canonical for p in event.data_inputs]
        data_values = eth_abi.decode(data_types, bytes.fromhex(raw["data"][2:]))
        topic_values = [
            eth_abi.decode([p.type.canonical], bytes.fromhex(t[2:]))[0]
            for p, t in zip(event.indexed, raw["topics"][1:], strict=True)
        ]
        oracle = dict(zip([p.name for p in event.data_inputs], data_values, strict=True))
        oracle.update(zip([p.name for p in event.indexed], topic_values, strict=True))
        for name, value in oracle.items():
            if isinstance(value, str):  # eth-abi's checksummed address
                assert row[f"{name}_hex"] == value.lower()
                assert row[name] == to_one(value)
            else:
                assert row[name] == value
                assert type(row[name]) is int


def test_the_real_input_decodes_like_eth_abi_and_its_route_is_the_logs() -> None:
    """The transaction's input (selector 0x5f4f9286, an aggregator's route) is in no built-in ABI:
    ``decode_calls`` lists it as unknown; decoded by its argument types it gives eth-abi's values,
    and the route it names is the one the logs show."""
    tx = _transaction()
    table = pd.DataFrame(
        {
            "block_number": [tx["blockNumber"]],
            "transaction_hash": [tx["hash"]],
            "to_address_hex": ["0xa24bb31c626d3b3fa6073f8663e9ac0ab81fd1f9"],
            "value": [tx["value"]],
            "input": [tx["input"]],
        }
    )
    router = decode_calls(table, "uniswap_v2_router")
    assert router["swapExactTokensForTokens"].empty
    assert router["swapExactTokensForTokens"].attrs["unknown_selectors"] == [
        {"selector": "0x5f4f9286", "calls": 1}
    ]
    types = ["address[]", "uint256[]", "uint256", "uint256[]", "uint256"]
    data = bytes.fromhex(tx["input"][10:])
    ours = decode(types, data)
    theirs = eth_abi.decode(types, data)
    assert [
        [a.lower() for a in theirs[0]],
        *[list(v) if isinstance(v, tuple) else v for v in theirs[1:]],
    ] == [
        ours[0],
        *ours[1:],
    ]
    path, fees, amount_in, _, _ = ours
    receipt_logs = _receipt()["logs"]
    swap = next(e for e in builtin("uniswap_v2_pair").events if e.name == "Swap")
    pairs = [g["address"] for g in receipt_logs if g["topics"][0] == swap.topic0]
    assert path[1::2] == pairs  # token, pair, token, pair, token, pair, token
    assert fees == [9970, 9970, 9970]  # 0.3% fee per hop
    assert amount_in == int(receipt_logs[1]["data"], 16)  # what the router sent the first pair
