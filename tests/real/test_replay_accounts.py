"""The account datasets from real answers: ``balances`` (``getBalanceByBlockNumber``),
``account_transactions`` (``getTransactionsHistory`` and ``getStakingTransactionsHistory``) and
``delegator_delegations`` / ``undelegations`` (``getDelegationsByDelegatorByBlockNumber``),
through the API and the CLI (``hmyframe accounts ...``), every value against an independent
decode written here (plain ``int``, strings, the bech32 codec of :mod:`replay_more`).

Each real answer is served by :class:`AccountsNode` (a :class:`replay_more.ReplayNode`) in its
own generation. Answers vendored without their params are placed where their source builds them:

* harmony-test's balances (``[account_test_tx["to"], account_test_tx["blockNumber"]]``) at the
  receiver and block of the same suite's history transaction (``test_account.py``);
* harmony-test's histories at the address every listed transaction names (the sender when a
  single transaction names two; its tests ask
  ``fullTx: False`` but the recorded replies are full objects, as ``fullTx: True`` gives: they
  are placed as full answers);
* harmony-test's ``getDelegationsByDelegatorByBlockNumber`` (``[del_addr, hex(curr_block)]``)
  at its delegator and a stand-in block (``curr_block`` is not known);
* a history of one kind recorded for an address is served with the other kind empty (a
  stand-in, listed in ``node.stand_ins``): the fetch asks both.

Answers no fetch asks for but a dataset accepts (``getDelegationsByDelegator``, at the head) go
through the dataset's conversion. The history answers holding transaction hashes only
(``fullTx: False``) are not a dataset's input: the fetch always asks full transactions.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import real_corpus
from real_corpus import Answer
from replay_more import (
    ReplayNode,
    addresses,
    assert_rows,
    columns,
    exact_float,
    frame_rows,
    integer,
    placed,
    plain,
    version,
)

import hmyframe
from hmyframe import FetchOptions
from hmyframe.cli import main
from hmyframe.datasets import ConvertContext

#: The block a stand-in head claims for answers recorded at an unknown block.
STAND_IN_BLOCK = 20


def meaning(address: Any) -> Any:
    """An address param as the node reads it (either form): lower-case 0x."""
    return addresses(address)[1] if isinstance(address, str) else None


class AccountsNode(ReplayNode):
    """A :class:`replay_more.ReplayNode` that also answers the account methods by meaning
    (an address in either form, a block as hex or a number)."""

    def _more(self, method: str, params: list[Any]) -> tuple[str, Any] | None:
        name = method.split("_", 1)[1]
        if name in ("getBalanceByBlockNumber", "getDelegationsByDelegatorByBlockNumber"):
            wanted = (meaning(params[0]) if params else None, integer(params[1]) if len(params) > 1 else None)
            for answer in self._by_method.get(method, ()):
                if (meaning(answer.params[0]), integer(answer.params[1])) == wanted:
                    return self._recorded(answer)
            return None
        if name in ("getTransactionsHistory", "getStakingTransactionsHistory"):
            args = params[0] if params and isinstance(params[0], dict) else {}
            key = "staking_transactions" if "Staking" in name else "transactions"
            for answer in self._by_method.get(method, ()):
                recorded = answer.params[0]
                if meaning(recorded["address"]) == meaning(args.get("address")) and recorded.get(
                    "fullTx"
                ) == args.get("fullTx"):
                    if args.get("pageIndex", 0) == 0:
                        return self._recorded(answer)
                    self.derived_calls.append(f"{method} page {args['pageIndex']}: past the end")
                    return "result", {key: []}
            self.stand_ins.append(f"{method} {args.get('address')}: none of this kind recorded")
            return "result", {key: []}
        return super()._more(method, params)


# --------------------------------------------------------------------------- balances

HISTORY_TX = real_corpus.by_id(
    "samples/hmyv2_getTransactionsHistory__harmony-test.test_account.test_get_transactions_history_v2.json"
).result["transactions"][0]
BALANCES = real_corpus.by_name("getBalanceByBlockNumber")


def balance_node(answer: Answer) -> tuple[AccountsNode, str, int]:
    if answer.params is None:  # harmony-test: the receiver and block of the suite's history tx
        address, block = HISTORY_TX["to"], HISTORY_TX["blockNumber"]
        served = placed(answer, [address, hex(block) if answer.namespace == "hmy" else block])
    else:
        address, block, served = answer.params[0], integer(answer.params[1]), answer
    return AccountsNode([served], stand_in_head=block + 5), address, block


def expected_balance(answer: Answer, address: str, block: int) -> list[dict[str, Any]]:
    one, hex_ = addresses(address)
    value = integer(answer.result)
    return [
        {
            "address": one,
            "address_hex": hex_,
            "block_number": block,
            "shard_id": 0,
            "balance": value,
            "balance_one": exact_float(value),
        }
    ]


def test_the_corpus_has_real_account_answers() -> None:
    assert {a.namespace for a in BALANCES} == {"hmy", "hmyv2"}
    assert len(HISTORIES) >= 3
    assert {a.namespace for a in STAKING_HISTORIES} == {"hmy", "hmyv2"}
    assert {a.namespace for a in DELEGATIONS_AT} == {"hmy", "hmyv2"}


@pytest.mark.parametrize("answer", BALANCES, ids=lambda a: a.id)
def test_balances(answer: Answer, tmp_path: Path) -> None:
    node, address, block = balance_node(answer)
    want = expected_balance(answer, address, block)
    with node:
        df = hmyframe.balances(
            address, blocks=block, rpc=node.url, cache=False, options=FetchOptions(version=version(answer))
        )
        assert_rows(frame_rows(df), want, columns=columns("balances"), what=f"{answer.id} balances")
        out = tmp_path / "balances.parquet"
        code = main(
            ["accounts", "balances", address, "--blocks", str(block), "--rpc", node.url, "--api",
             str(version(answer)), "--out", str(out), "--no-progress"]
        )  # fmt: skip
        assert code == 0
    assert node.misses == []
    assert_rows(_parquet(out), want, columns=columns("balances"), what=f"{answer.id} balances (CLI)")


def _parquet(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq
    from replay_more import plain

    return [{k: plain(v) for k, v in row.items()} for row in pq.read_table(path).to_pylist()]


# --------------------------------------------------------------------------- history

HISTORIES = [
    a
    for a in real_corpus.by_name("getTransactionsHistory")
    if a.namespace in ("hmy", "hmyv2") and all(isinstance(t, dict) for t in a.result["transactions"])
]
STAKING_HISTORIES = [a for a in real_corpus.by_name("getStakingTransactionsHistory") if a.has_result]


def history_address(answer: Answer, key: str) -> str:
    """The address a history lists: its params', else the one every transaction names."""
    if answer.params is not None:
        return str(answer.params[0]["address"])
    named = [{meaning(t["from"]), meaning(t.get("to"))} - {None} for t in answer.result[key]]
    common = set.intersection(*named)
    assert common, f"{answer.id}: no address common to every transaction"
    if len(common) > 1:  # one transaction: the index lists it under both; take the sender's
        common &= {meaning(answer.result[key][0]["from"])}
    return addresses(common.pop())[0]


def history_node(answer: Answer, key: str) -> tuple[AccountsNode, str]:
    address = history_address(answer, key)
    args = {
        "address": address,
        "pageIndex": 0,
        "pageSize": 1000,
        "fullTx": True,
        "txType": "ALL",
        "order": "ASC",
    }
    served = placed(answer, [args]) if answer.params is None else answer
    top = max(integer(t["blockNumber"]) for t in answer.result[key])
    return AccountsNode([served], stand_in_head=top + 5), address


PLAIN_ONLY = ("directive", "validator_address", "validator_address_hex", "delegator_address",
              "delegator_address_hex", "amount", "amount_one")  # fmt: skip


def expected_history(answer: Answer, address: str, key: str) -> list[dict[str, Any]]:
    me_one, me = addresses(address)
    rows = []
    for tx in answer.result[key]:
        frm, frm_hex = addresses(tx["from"])
        stamp = tx.get("timestamp")
        common = {
            "address": me_one,
            "address_hex": me,
            "block_number": integer(tx["blockNumber"]),
            "block_hash": tx["blockHash"],
            "transaction_index": integer(tx["transactionIndex"]),
            "transaction_hash": tx["hash"],
            "timestamp": None if stamp is None else datetime.fromtimestamp(integer(stamp), UTC),
            "from_address": frm,
            "from_address_hex": frm_hex,
            "gas": integer(tx["gas"]),
            "gas_price": integer(tx["gasPrice"]),
            "gas_price_one": exact_float(integer(tx["gasPrice"])),
            "nonce": integer(tx["nonce"]),
        }
        if key == "staking_transactions":
            msg = tx["msg"] or {}
            validator, validator_hex = addresses(msg.get("validatorAddress"))
            delegator, delegator_hex = addresses(msg.get("delegatorAddress"))
            amount = integer(msg.get("amount"))
            rows.append(
                {
                    **common,
                    "direction": "sent" if frm_hex == me else "received",
                    "kind": "staking",
                    "eth_hash": None,
                    "to_address": None,
                    "to_address_hex": None,
                    "value": None,
                    "value_one": None,
                    "input": None,
                    "shard_id": 0,
                    "to_shard_id": None,
                    "is_cross_shard": None,
                    "is_contract_creation": None,
                    "directive": tx["type"],
                    "validator_address": validator,
                    "validator_address_hex": validator_hex,
                    "delegator_address": delegator,
                    "delegator_address_hex": delegator_hex,
                    "amount": amount,
                    "amount_one": None if amount is None else exact_float(amount),
                }
            )
            continue
        to, to_hex = addresses(tx.get("to"))
        value = integer(tx["value"])
        source, target = tx.get("shardID", 0), tx.get("toShardID")
        rows.append(
            {
                **common,
                "direction": "self"
                if frm_hex == me and to_hex == me
                else "sent"
                if frm_hex == me
                else "received",
                "kind": "plain",
                "eth_hash": tx.get("ethHash"),
                "to_address": to,
                "to_address_hex": to_hex,
                "value": value,
                "value_one": exact_float(value),
                "input": tx["input"],
                "shard_id": source,
                "to_shard_id": target,
                "is_cross_shard": None if target is None else target != source,
                "is_contract_creation": not tx.get("to"),
                **dict.fromkeys(PLAIN_ONLY),
            }
        )
    return sorted(rows, key=lambda r: (r["block_number"], r["kind"], r["transaction_index"]))


@pytest.mark.parametrize(
    ("answer", "key"),
    [(a, "transactions") for a in HISTORIES] + [(a, "staking_transactions") for a in STAKING_HISTORIES],
    ids=lambda a: a.id if isinstance(a, Answer) else a,
)
def test_history(answer: Answer, key: str, tmp_path: Path) -> None:
    node, address = history_node(answer, key)
    want = expected_history(answer, address, key)
    assert want
    with node:
        df = hmyframe.account_transactions(
            address, rpc=node.url, options=FetchOptions(version=version(answer))
        )
        assert_rows(
            frame_rows(df), want, columns=columns("account_transactions"), what=f"{answer.id} history"
        )
        out = tmp_path / "history.parquet"
        code = main(
            ["accounts", "history", address, "--rpc", node.url, "--api", str(version(answer)), "--out", str(out),
             "--no-progress"]
        )  # fmt: skip
        assert code == 0
    assert node.misses == []
    other = "getTransactionsHistory" if key == "staking_transactions" else "getStakingTransactionsHistory"
    assert node.stand_ins
    assert all(other in s for s in node.stand_ins)  # the other kind only
    assert_rows(
        _parquet(out), want, columns=columns("account_transactions"), what=f"{answer.id} history (CLI)"
    )


# --------------------------------------------------------------------------- delegations

DELEGATIONS_AT = [a for a in real_corpus.by_name("getDelegationsByDelegatorByBlockNumber") if a.has_result]
DELEGATIONS_NOW = [a for a in real_corpus.by_name("getDelegationsByDelegator") if a.has_result]


def expected_delegations(result: Any, block: Any, exact: bool = True) -> list[dict[str, Any]]:
    rows = []
    for d in result or ():
        v_one, v_hex = addresses(d["validator_address"])
        d_one, d_hex = addresses(d["delegator_address"])
        amount, reward = int(d["amount"]), int(d["reward"])
        pending = sum(int(u["Amount"]) for u in d["Undelegations"])
        rows.append(
            {
                "snapshot_block": block,
                "snapshot_epoch": None,
                "validator_address": v_one,
                "validator_address_hex": v_hex,
                "delegator_address": d_one,
                "delegator_address_hex": d_hex,
                "delegation_index": None,
                "amount": amount,
                "amount_one": exact_float(amount),
                "reward": reward,
                "reward_one": exact_float(reward),
                "undelegation_count": len(d["Undelegations"]),
                "undelegating_amount": pending,
                "undelegating_amount_one": exact_float(pending),
            }
        )
    return sorted(rows, key=lambda r: (r["delegator_address"], r["validator_address"]))


def expected_undelegations(result: Any, block: Any) -> list[dict[str, Any]]:
    rows = []
    for d in result or ():
        v_one, v_hex = addresses(d["validator_address"])
        d_one, d_hex = addresses(d["delegator_address"])
        for j, u in enumerate(d["Undelegations"]):
            amount = int(u["Amount"])
            rows.append(
                {
                    "snapshot_block": block,
                    "snapshot_epoch": None,
                    "validator_address": v_one,
                    "validator_address_hex": v_hex,
                    "delegator_address": d_one,
                    "delegator_address_hex": d_hex,
                    "undelegation_index": j,
                    "amount": amount,
                    "amount_one": exact_float(amount),
                    "epoch": int(u["Epoch"]),
                }
            )
    return rows


@pytest.mark.parametrize("answer", DELEGATIONS_AT, ids=lambda a: a.id)
def test_delegations_by_delegator_at_a_block(answer: Answer, tmp_path: Path) -> None:
    delegator = answer.result[0]["delegator_address"]
    block = STAND_IN_BLOCK
    served = placed(answer, [delegator, hex(block)]) if answer.params is None else answer
    node = AccountsNode([served], stand_in_head=block, stand_in_blocks=(block,))
    want = expected_delegations(answer.result, block)
    assert any(r["amount"] > 2**64 for r in want)
    with node:
        options = FetchOptions(version=version(answer))
        df = hmyframe.delegator_delegations(
            delegator, block=block, rpc=node.url, cache=False, options=options
        )
        assert_rows(frame_rows(df), want, columns=columns("delegator_delegations"), what=f"{answer.id}")
        pending = hmyframe.delegator_undelegations(delegator, block=block, rpc=node.url, options=options)
        assert frame_rows(pending) == expected_undelegations(answer.result, block)
        out = tmp_path / "delegations.csv"
        code = main(
            ["accounts", "delegations", delegator, "--block", str(block), "--rpc", node.url, "--api",
             str(version(answer)), "--out", str(out), "--no-progress"]
        )  # fmt: skip
        assert code == 0
    assert node.misses == []
    import csv

    with out.open() as f:
        written = list(csv.DictReader(f))
    assert [(r["validator_address"], int(r["amount"]), int(r["reward"])) for r in written] == [
        (r["validator_address"], r["amount"], r["reward"]) for r in want
    ]


@pytest.mark.parametrize("answer", DELEGATIONS_NOW + DELEGATIONS_AT, ids=lambda a: a.id)
def test_every_delegations_by_delegator_answer_parses(answer: Answer) -> None:
    """Through the dataset's conversion (the head's answers are no fetch's: it asks at a block)."""
    raw = json.dumps(answer.result).encode()
    table = hmyframe.dataset("delegator_delegations").convert([raw], ConvertContext(shard_id=0))
    got = [{k: plain(v) for k, v in r.items()} for r in table.to_pylist()]
    want = expected_delegations(answer.result, None)
    assert_rows(got, want, columns=columns("delegator_delegations"), what=answer.id)
