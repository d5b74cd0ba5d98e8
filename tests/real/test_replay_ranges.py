"""Range datasets outside the block / receipt / log family from real answers: the staking
transactions of harmony-test's blocks, and ``traces`` against a node whose port has no trace_*.

* ``staking_transactions``: harmony-test's block 11 (2020 localnet) holds a CreateValidator; the
  suite keeps its reply in three references, put back together by
  :func:`replay_more.staking_block` (its docstring gives the evidence). The block is fetched by
  ``hmyframe.staking_transactions`` and ``hmyframe export`` in both generations and every value
  compared with a decode of the references written here. The other answers the dataset accepts
  (``pendingStakingTransactions``, ``getStakingTransactionsHistory``,
  ``getStakingTransactionByHash``) go through its conversion, their ``msg`` put back from the
  same suite's message reference where the suite split it out.
* ``traces``: the -32601 a mainnet node gave to ``trace_block`` on its public port (harmony-one
  issue 4187, params not shown: it answers so for any block) is served beside a recorded
  mainnet block; ``hmyframe.traces`` and ``hmyframe export traces`` must fail with one line
  naming the method, the URL, the node's error verbatim, what to give instead (a trace port)
  and the blocks not fetched.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import real_corpus
from real_corpus import Answer
from real_node import collection
from replay_more import (
    ANY,
    ReplayNode,
    addresses,
    assert_rows,
    columns,
    exact_float,
    frame_rows,
    integer,
    parquet_rows,
    placed,
    sample_file,
    staking_block,
)

import hmyframe
from hmyframe import FetchOptions
from hmyframe.cli import main
from hmyframe.datasets import ConvertContext
from hmyframe.errors import MethodNotFoundError

ZERO_HASH = "0x" + "0" * 64


def scaled(value: Any) -> tuple[Any, Any]:
    """A 1e18-scaled rate (``commissionRate``: 100000000000000000 or hex) as (float, 18-decimal text)."""
    if value is None:
        return None, None
    n = integer(value)
    whole, part = divmod(n, 10**18)
    return float(Decimal(n) / 10**18), f"{whole}.{part:018d}"


def expected_staking(tx: dict[str, Any], block_time: Any = None) -> dict[str, Any]:
    msg = tx["msg"] or {}
    frm, frm_hex = addresses(tx["from"])
    validator, validator_hex = addresses(msg.get("validatorAddress"))
    delegator, delegator_hex = addresses(msg.get("delegatorAddress"))
    amount, gas_price = integer(msg.get("amount")), integer(tx["gasPrice"])
    rate, rate_dec = scaled(msg.get("commissionRate"))
    max_rate, max_rate_dec = scaled(msg.get("maxCommissionRate"))
    change, change_dec = scaled(msg.get("maxChangeRate"))
    self_min, total_max = integer(msg.get("minSelfDelegation")), integer(msg.get("maxTotalDelegation"))
    pending = tx["blockHash"] == ZERO_HASH
    stamp = integer(tx["timestamp"]) if block_time is None else block_time
    keys = msg.get("slotPubKeys")
    return {
        "block_number": integer(tx["blockNumber"]),
        "block_hash": None if pending else tx["blockHash"],
        "transaction_index": None if pending else integer(tx["transactionIndex"]),
        "transaction_hash": tx["hash"],
        "timestamp": None if pending else datetime.fromtimestamp(stamp, UTC),
        "shard_id": 0,
        "from_address": frm,
        "from_address_hex": frm_hex,
        "gas": integer(tx["gas"]),
        "gas_price": gas_price,
        "gas_price_one": exact_float(gas_price),
        "nonce": integer(tx["nonce"]),
        "directive": tx["type"],
        "validator_address": validator,
        "validator_address_hex": validator_hex,
        "delegator_address": delegator,
        "delegator_address_hex": delegator_hex,
        "amount": amount,
        "amount_one": None if amount is None else exact_float(amount),
        "commission_rate": rate,
        "commission_rate_dec": rate_dec,
        "max_commission_rate": max_rate,
        "max_commission_rate_dec": max_rate_dec,
        "max_change_rate": change,
        "max_change_rate_dec": change_dec,
        "min_self_delegation": self_min,
        "min_self_delegation_one": None if self_min is None else exact_float(self_min),
        "max_total_delegation": total_max,
        "max_total_delegation_one": None if total_max is None else exact_float(total_max),
        "name": msg.get("name"),
        "identity": msg.get("identity"),
        "website": msg.get("website"),
        "security_contact": msg.get("securityContact"),
        "details": msg.get("details"),
        "slot_pub_keys": None if keys is None else ",".join(keys),
        "slot_pub_key_to_add": msg.get("slotKeyToAdd", msg.get("slotPubKeyToAdd")),
        "slot_pub_key_to_remove": msg.get("slotKeyToRemove", msg.get("slotPubKeyToRemove")),
    }


def block_rows(block: dict[str, Any]) -> list[dict[str, Any]]:
    return [expected_staking(t, integer(block["timestamp"])) for t in block["stakingTransactions"]]


# --------------------------------------------------------------------------- staking transactions


@pytest.mark.parametrize("gen", ["hmy", "hmyv2"])
def test_staking_transactions_of_a_real_block(gen: str, tmp_path: Path) -> None:
    answer = staking_block(gen)
    (block,) = answer.result
    number = integer(block["number"])
    want = block_rows(block)
    assert want[0]["directive"] == "CreateValidator"
    assert want[0]["amount"] > 2**64
    assert want[0]["max_total_delegation"] > 2**64
    api = 1 if gen == "hmy" else 2
    with ReplayNode([answer]) as node:
        df = hmyframe.staking_transactions(
            number, number, rpc=node.url, cache=False, options=FetchOptions(version=api)
        )
        code = main(
            [
                "export",
                "staking_transactions",
                "--start",
                str(number),
                "--end",
                str(number),
                "--rpc",
                node.url,
                "--out",
                str(tmp_path),
                "--api",
                str(api),
                "--no-progress",
            ]
        )
    assert code == 0
    assert node.misses == []
    assert node.derived == 0
    assert {c for c in node.calls if c.endswith("getBlocks")} == {f"{gen}_getBlocks"}
    assert_rows(frame_rows(df), want, columns=columns("staking_transactions"), what=f"{answer.id} (API)")
    assert_rows(
        parquet_rows(tmp_path, "staking_transactions"),
        want,
        columns=columns("staking_transactions"),
        what=f"{answer.id} (CLI)",
    )


def with_message(answer: Answer) -> list[dict[str, Any]]:
    """The staking transactions of an answer, their ``msg`` put back from the suite's message
    reference where the suite split it out (``msg: null`` and a reference of the same sender)."""
    result = answer.result
    txs = result["staking_transactions"] if isinstance(result, dict) else result or []
    refs = sample_file(answer).get("extra_references", {}) if answer.id.startswith("samples/") else {}
    msg = refs.get("reference_create_validator_msg")
    out = []
    for tx in txs:
        if tx.get("msg") is None and msg is not None and msg["validatorAddress"] == tx["from"]:
            tx = {**tx, "msg": msg}
        out.append(tx)
    return out


STAKING_ANSWERS = [
    a
    for name in ("pendingStakingTransactions", "getStakingTransactionsHistory", "getStakingTransactionByHash")
    for a in real_corpus.by_name(name)
    if a.has_result
]


@pytest.mark.parametrize("answer", STAKING_ANSWERS, ids=lambda a: a.id)
def test_every_staking_transaction_answer_parses(answer: Answer) -> None:
    txs = with_message(answer)
    payload = (
        {"staking_transactions": txs}
        if isinstance(answer.result, dict)
        else (txs if answer.result is not None else None)
    )
    table = hmyframe.dataset("staking_transactions").convert(
        [json.dumps(payload).encode()], ConvertContext(shard_id=0)
    )
    got = [{k: int(v) if isinstance(v, Decimal) else v for k, v in r.items()} for r in table.to_pylist()]
    want = sorted(
        (expected_staking(t) for t in txs),
        key=lambda r: (r["block_number"] is not None, r["block_number"] or 0, r["transaction_index"] or 0),
    )
    assert_rows(got, want, columns=columns("staking_transactions"), what=answer.id)
    assert all(r["validator_address"] is not None for r in want if r["directive"] == "CreateValidator")


# --------------------------------------------------------------------------- traces


TRACE_REFUSALS = [
    a for a in real_corpus.by_method("trace_block") if not a.has_result and a.error["code"] == -32601
]


@pytest.mark.parametrize("answer", TRACE_REFUSALS, ids=lambda a: a.id)
def test_traces_from_a_port_without_trace(
    answer: Answer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = [a for a in collection("mainnet-2023") if a.method == "hmyv2_getBlockByNumber"]
    assert answer.network == blocks[0].network == "mainnet"
    number = blocks[0].result["number"]
    served = [*collection("mainnet-2023"), placed(answer, ANY) if answer.params is None else answer]
    for api in (1, 2):
        with ReplayNode(served) as node:
            with pytest.raises(MethodNotFoundError) as caught:
                hmyframe.traces(
                    number,
                    number,
                    rpc=node.url,
                    trace_rpc=node.url,
                    cache=False,
                    options=FetchOptions(version=api),
                )
            code = main(
                [
                    "export",
                    "traces",
                    "--start",
                    str(number),
                    "--end",
                    str(number),
                    "--rpc",
                    node.url,
                    "--trace-rpc",
                    node.url,
                    "--out",
                    str(tmp_path / str(api)),
                    "--api",
                    str(api),
                    "--no-progress",
                ]
            )
        message = str(caught.value)
        assert "\n" not in message
        assert caught.value.code == -32601
        assert caught.value.rpc_message == answer.error["message"]
        assert message.startswith(f"trace_block(['{hex(number)}']) failed at {node.url}")
        assert f"[-32601] {answer.error['message']}" in message
        assert f"{number}..{number} of shard 0" in message
        assert "this URL serves no trace_*: give the trace port of an archival node" in message
        assert "trace_rpc=, --trace-rpc or HMYFRAME_TRACE_RPC" in message
        assert code == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1
        assert err[0].startswith("hmyframe export: error: trace_block(")
        assert answer.error["message"] in err[0]
        assert "--trace-rpc" in err[0]
        assert not list((tmp_path / str(api)).rglob("traces/**/*.parquet"))  # no trace of the failed chunk
        assert "trace_block" in node.calls
