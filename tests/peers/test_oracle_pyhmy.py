"""pyhmy against the devnet equals hmyframe: blocks' transactions, validator snapshots with their
delegations, bech32 addresses and ONE amounts, value by value (see ``pyhmy_helpers`` for the
environment; skipped without it)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pandas as pd
from pyhmy_helpers import requires_pyhmy, run_pyhmy

import hmyframe
from hmyframe.devnet import Devnet

pytestmark = requires_pyhmy()

FIRST, LAST = 1, 150


def _plain(value: Any) -> Any:
    return None if value is None or value is pd.NA or value != value else value


def test_pyhmy_get_blocks_equals_transactions(net: Devnet) -> None:
    blocks = run_pyhmy(
        "from pyhmy import blockchain\n"
        "OUTPUT = blockchain.get_blocks(INPUT['a'], INPUT['b'], full_tx=True, include_staking_tx=True,"
        " endpoint=INPUT['url'])",
        a=FIRST,
        b=LAST,
        url=net.urls[0],
    )
    theirs = {tx["hash"]: tx for block in blocks for tx in block["transactions"]}
    df = hmyframe.transactions(FIRST, LAST, rpc=net, cache=False)
    ours = {row["transaction_hash"]: row for row in df.to_dict("records")}
    assert len(theirs) > 500
    assert sorted(ours) == sorted(theirs)
    compared = 0
    for h, row in ours.items():
        tx = theirs[h]
        sender = tx["from"]
        want = {
            "block_number": tx["blockNumber"],
            "transaction_index": tx["transactionIndex"],
            "eth_hash": tx["ethHash"],
            "value": tx["value"],
            "gas": tx["gas"],
            "gas_price": tx["gasPrice"],
            "nonce": tx["nonce"],
            "input": tx["input"],
            "shard_id": tx["shardID"],
            "to_shard_id": tx["toShardID"],
            # a contract creation's sender is lower-case 0x hex in the node's answer
            "from_address_hex" if sender.startswith("0x") else "from_address": sender,
            "to_address": tx["to"] or None,
            "timestamp": pd.Timestamp(tx["timestamp"], unit="s", tz="UTC"),
        }
        for column, value in want.items():
            mine = _plain(row[column])
            mine = int(mine) if column in ("value", "gas_price") else mine
            assert mine == value, (h, column, mine, value)
            compared += 1
    # exact: values beyond 2^64 came through both decodes equal
    assert any(tx["value"] > 2**64 for tx in theirs.values())
    assert compared == len(ours) * 13


def test_pyhmy_addresses_and_one_amounts_equal_hmyframe(net: Devnet) -> None:
    df = hmyframe.transactions(FIRST, LAST, rpc=net, cache=False)
    pairs = {
        (o, h)
        for col in ("from_address", "to_address")
        for o, h in zip(df[col], df[f"{col}_hex"], strict=True)
        if _plain(o) is not None
    }
    values = sorted({int(v) for v in df["value"]})
    out = run_pyhmy(
        "from pyhmy import util, numbers\n"
        "OUTPUT = {\n"
        " 'hex': [util.convert_one_to_hex(o).lower() for o, _ in INPUT['pairs']],\n"
        " 'one': [util.convert_hex_to_one(h) for _, h in INPUT['pairs']],\n"
        " 'ones': [str(numbers.convert_atto_to_one(v)) for v in INPUT['values']],\n"
        "}",
        pairs=sorted(pairs),
        values=values,
    )
    ordered = sorted(pairs)
    assert len(ordered) > 100
    assert out["hex"] == [h for _, h in ordered]
    assert out["one"] == [o for o, _ in ordered]
    exact = hmyframe.to_one(pd.Series(values, dtype="atto"), exact=True)
    assert [Decimal(x) for x in out["ones"]] == list(exact)


def test_pyhmy_validator_pages_equal_snapshot(net: Devnet) -> None:
    block = 120
    pages = run_pyhmy(
        "from pyhmy import staking\n"
        "OUTPUT, page = [], 0\n"
        "while True:\n"
        "    got = staking.get_all_validator_information_by_block_number(INPUT['block'], page,"
        " endpoint=INPUT['url'])\n"
        "    if not got:\n"
        "        break\n"
        "    OUTPUT.extend(got); page += 1\n",
        block=block,
        url=net.urls[0],
    )
    theirs = {v["validator"]["address"]: v for v in pages}
    vals = hmyframe.validators(block=block, rpc=net, cache=False)
    ours = {row["validator_address"]: row for row in vals.to_dict("records")}
    assert len(ours) > 50
    assert sorted(ours) == sorted(theirs)
    for address, row in ours.items():
        info = theirs[address]
        v = info["validator"]
        assert int(row["total_delegation"]) == info["total-delegation"], address
        assert int(row["min_self_delegation"]) == v["min-self-delegation"], address
        assert int(row["max_total_delegation"]) == v["max-total-delegation"], address
        assert row["rate_dec"] == v["rate"], address
        assert row["bls_key_count"] == len(v["bls-public-keys"]), address
        assert row["epos_status"] == info["epos-status"], address
        assert int(row["lifetime_reward"]) == info["lifetime"]["reward-accumulated"], address
    dels = hmyframe.delegations(block=block, rpc=net, cache=False)
    mine = {
        (r["validator_address"], r["delegation_index"]): (
            r["delegator_address"],
            int(r["amount"]),
            int(r["reward"]),
        )
        for r in dels.to_dict("records")
    }
    other = {
        (address, i): (d["delegator-address"], d["amount"], d["reward"])
        for address, info in theirs.items()
        for i, d in enumerate(info["validator"]["delegations"])
    }
    assert len(other) > 100
    assert mine == other
