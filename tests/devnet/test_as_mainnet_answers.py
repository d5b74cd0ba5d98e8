"""The devnet answers as the real node does where the mainnet answers showed it did not.

* Logs' ``transactionHash`` follows the node's receipts cache (``Devnet(log_hashes=...)``): by
  default as the mainnet answers of ``tests/real/mainnet-2023`` (``hmy_`` receipts and
  ``hmy_getLogs`` the Ethereum-form hash, ``hmyv2_`` receipts the Harmony hash, logs' numbers
  hex in both), ``"harmony"`` and ``"eth"`` the other states; ``eth_`` always the Ethereum form;
  the early-2020 node the Harmony hash.
* Signers: one address per signing key, so a validator with several keys repeats (245 entries
  for 64 validators on the mainnet block).
* An RPC method filter (``rpc_deny``): denied methods answer -32601 like unknown ones.
* ``logs`` fault rules: a ``getLogs`` answer with a log repeated, left out or foreign.
"""

from __future__ import annotations

import json
import urllib.request
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from real_node import collection

from hmyframe.addresses import to_one
from hmyframe.devnet import Devnet
from hmyframe.devnet.faults import FOREIGN_LOG_HASH, FaultRule, parse_fault_spec
from hmyframe.errors import ConfigError


def post(url: str, method: str, *params: Any) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def result(url: str, method: str, *params: Any) -> Any:
    answer = post(url, method, *params)
    assert "error" not in answer, answer
    return answer["result"]


def _token_block(net: Devnet) -> Any:
    """A block of shard 0 with logs of at least two plain transactions."""
    for block in net.chain.iter_blocks(0, 1, net.chain.head(0)):
        if sum(bool(t.logs) for t in block.transactions) >= 2:
            return block
    raise AssertionError("no block with logs")


def _hashes(logs: list[dict[str, Any]]) -> set[str]:
    return {log["transactionHash"] for log in logs}


@pytest.mark.parametrize(
    ("state", "hmy", "hmyv2"),
    [("mainnet", "eth", "harmony"), ("harmony", "harmony", "harmony"), ("eth", "eth", "eth")],
)
def test_logs_carry_the_hash_of_the_receipts_cache_state(
    make_devnet: Callable[..., Devnet], state: str, hmy: str, hmyv2: str
) -> None:
    net = make_devnet(blocks=120, seed=3, token_density=3, log_hashes=state, validator_rate_limit=False)
    block = _token_block(net)
    url = net.url
    with_logs = [t for t in block.transactions if t.logs]
    form = {"harmony": {t.hash for t in with_logs}, "eth": {t.eth_hash for t in with_logs}}
    v1 = result(url, "hmy_getBlockReceipts", block.hash)
    v2 = result(url, "hmyv2_getBlockReceipts", block.hash)
    logs_v1 = [g for r in v1 for g in r["logs"]]
    logs_v2 = [g for r in v2 for g in r["logs"]]
    assert _hashes(logs_v1) == form[hmy]
    assert _hashes(logs_v2) == form[hmyv2]
    # the receipts' own hashes are the Harmony ones in every state
    assert {r["transactionHash"] for r in v1 + v2} >= form["harmony"]
    # logs' numbers are hex quantities in hmyv2_ receipts too (types.Log), as on mainnet
    assert all(
        isinstance(g[k], str) and g[k].startswith("0x") for g in logs_v2 for k in ("blockNumber", "logIndex")
    )
    span = {"fromBlock": hex(block.number), "toBlock": hex(block.number)}
    assert result(url, "hmy_getLogs", span) == logs_v1  # the same cached receipts
    assert _hashes(result(url, "eth_getLogs", span)) == form["eth"]
    tx = with_logs[0]
    single = result(url, "hmy_getTransactionReceipt", tx.hash)
    assert _hashes(single["logs"]) == ({tx.hash} if hmy == "harmony" else {tx.eth_hash})


def test_the_mainnet_state_is_what_the_mainnet_answers_show() -> None:
    answers = {a.method: a.result for a in collection("mainnet-2023")}
    receipt = {ns: answers[f"{ns}_getBlockReceipts"][0] for ns in ("hmy", "hmyv2", "eth")}
    (tx,) = answers["hmyv2_getBlockByHash"]["transactions"]
    assert _hashes(receipt["hmy"]["logs"]) == {tx["ethHash"]}
    assert _hashes(receipt["hmyv2"]["logs"]) == {tx["hash"]}
    assert _hashes(receipt["eth"]["logs"]) == {tx["ethHash"]}
    assert receipt["hmy"]["transactionHash"] == receipt["hmyv2"]["transactionHash"] == tx["hash"]


def test_the_early_2020_node_names_the_harmony_hash(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(blocks=120, seed=3, token_density=3, profile="legacy", validator_rate_limit=False)
    block = _token_block(net)
    logs = result(net.url, "hmy_getLogs", {"fromBlock": hex(block.number), "toBlock": hex(block.number)})
    assert _hashes(logs) == {t.hash for t in block.transactions if t.logs}


def test_signers_list_one_address_per_signing_key(devnet: Devnet) -> None:
    block = result(devnet.url, "hmyv2_getBlockByNumber", 10, {"withSigners": True, "fullTx": False})
    signers = block["signers"]
    counts = Counter(signers)
    assert max(counts.values()) > 1  # validators with several keys on the shard repeat
    assert result(devnet.url, "hmyv2_getBlockSigners", 10) == signers
    # one entry per key of the committee whose bit the commit bitmap sets, in committee order
    chain = devnet.chain
    committee = chain.committee(0, chain.epoch_of(10))
    assert len(signers) <= len(committee)
    keys = Counter(address for _, address in committee)
    assert all(counts[to_one(a)] <= keys[a] for a in set(keys) if to_one(a) in counts)
    # the mainnet block: 245 entries, 64 validators
    real = next(a.result for a in collection("mainnet-2023") if a.method == "hmyv2_getBlockByHash")
    assert (len(real["signers"]), len(set(real["signers"]))) == (245, 64)


def test_denied_methods_answer_as_unknown_ones(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(blocks=30, seed=1, rpc_deny=["hmyv2_*", "eth_getLogs"], validator_rate_limit=False)
    for method in ("hmyv2_blockNumber", "hmyv2_getBlocks", "eth_getLogs"):
        assert post(net.url, method)["error"] == {
            "code": -32601,
            "message": f"the method {method} does not exist/is not available",
        }
    assert int(result(net.url, "hmy_blockNumber"), 16) == 29
    assert result(net.url, "eth_blockNumber") == hex(29)
    with pytest.raises(ConfigError, match="rpc_deny"):
        Devnet(rpc_deny=[""])
    with pytest.raises(ConfigError, match="log_hashes"):
        Devnet(log_hashes="both")  # type: ignore[arg-type]


@pytest.mark.parametrize("edit", ["repeat", "drop", "foreign"])
def test_log_fault_rules_break_one_getlogs_answer(make_devnet: Callable[..., Devnet], edit: str) -> None:
    net = make_devnet(blocks=120, seed=3, token_density=3, validator_rate_limit=False)
    block = _token_block(net)
    span = {"fromBlock": hex(block.number), "toBlock": hex(block.number)}
    good = result(net.url, "hmy_getLogs", span)
    net.faults.add(FaultRule("logs", edit=edit, at=1, times=1))  # type: ignore[arg-type]
    bad = result(net.url, "hmy_getLogs", span)
    expected = {
        "repeat": [*good[:2], good[1], *good[2:]],
        "drop": [good[0], *good[2:]],
        "foreign": [good[0], {**good[1], "transactionHash": FOREIGN_LOG_HASH}, *good[2:]],
    }[edit]
    assert bad == expected
    assert result(net.url, "hmy_getLogs", span) == good  # times=1: the next answer is whole
    assert net.stats.total().faults["logs"] == 1
    # an answer without a log at the position is not changed, and does not count
    net.faults.add("logs=drop,at=0,times=1")
    empty = {"fromBlock": "0x0", "toBlock": "0x0"}
    assert result(net.url, "hmy_getLogs", empty) == []
    assert len(net.faults) == 1
    assert parse_fault_spec("logs=foreign,at=-1,method=eth_getLogs") == [
        FaultRule("logs", edit="foreign", at=-1, method="eth_getLogs")
    ]
    with pytest.raises(ConfigError, match="edit"):
        parse_fault_spec("logs=twice")
