"""Every recorded sample of a method the devnet serves, replayed against the devnet.

For each sample of ``tests/samples/_index.json`` we send the analogous request (same method,
same param shapes, values adapted to the devnet's chain: its block numbers, hashes and
addresses) in the profile the sample represents, and check harmony-test's own rule
(``assert_valid_json_structure``): the answer has at least the sample's keys, with the same
JSON types, recursively; for lists the overlapping elements are compared.

Profiles: docs-home samples show the early-2020 node -> ``legacy``; harmony-test samples
(mid-2020 localnet, current shapes) -> ``current``. One exception: the go-sdk CLI's
``transaction-by-hash`` output is a mid-2020 mainnet reply whose v1 transaction already has
one1 addresses, ``timestamp`` and ``shardID`` (the current shape), so it is checked against
``current``.

Two documented relaxations, both about how the samples were recorded, not about the node:

* **Float for integer.** The go-sdk ``hmy`` CLI decodes replies into ``float64`` and
  re-prints them, so its output (``docs-home.cli.*``) and the docs validator samples that
  were made with it show integers as ``3.46e+19``. A real node never sends exponent
  notation; there a JSON integer is accepted where the sample has a float.
* **Nullable fields.** The node sends ``null`` for some fields depending on state (RPC notes
  §1.6, §1.4, §8: ``current-epoch-performance``, ``metrics``, ``epos-winning-stake``,
  ``booted-status``, ``epoch-apr``, ``epoch-blocks``, staking ``msg``). A sample recorded
  with ``null`` there (or a value) says nothing about the other case, so ``null`` on either
  side is accepted for those keys only.

One documented erratum of the docs: they show ``hmy_epochLastBlock`` called without params and
answering ``"10"``; the node's handler (since early 2020) takes the epoch as a uint64 and answers a
uint64, a JSON number in both generations. The replay passes an epoch and expects a number
(``DOCS_NUMBER_NOT_STRING``).

Samples with a JSON ``null`` *result* are replayed with a request the devnet also answers
with ``null`` (an unknown hash, an index past the end), and must give exactly ``null``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import pytest

from hmyframe.addresses import to_one as hex_to_one
from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet.model import Block, Transaction
from hmyframe.devnet.node import served_methods

if TYPE_CHECKING:
    from tests.conftest import Sample, Samples

NULLABLE = frozenset(
    {
        "current-epoch-performance",
        "metrics",
        "epos-winning-stake",
        "booted-status",
        "epoch-apr",
        "epoch-blocks",
        "msg",
        # receipts: the current source sends the zero address for a non-creation (a Go
        # common.Address); samples recorded with the older pointer field show null
        "contractAddress",
    }
)

SERVED = set(served_methods(trace_port=True))
#: Methods whose docs sample shows a string where the node's handler answers a JSON number.
DOCS_NUMBER_NOT_STRING = frozenset({"hmy_epochLastBlock"})
#: Docs samples showing a v2 balance as a decimal string: the node's v2 handler answers a
#: ``*big.Int``, a JSON number (tests/real/samples.json rejects both samples for that).
DOCS_BALANCE_NOT_STRING = frozenset(
    {
        "hmyv2_getBalanceByBlockNumber__docs-home.api.account-methods.hmy_getbalancebyblocknumber.json",
        "hmyv2_getBalance__docs-home.api.account-methods.hmy_getbalance.json",
    }
)
# (file, method) of every sample, read at collection time for the parametrization; the
# parsed samples come from the shared ``samples`` fixture.
INDEX = [
    (entry["file"], entry["method"])
    for entry in json.loads((Path(__file__).parent.parent / "samples" / "_index.json").read_text())
]


def float_mangled(sample: Sample) -> bool:
    """Samples whose integers went through the go-sdk CLI's float64 decoding."""
    return ".cli." in sample.file or (sample.from_docs and "Validator" in sample.method)


def profile_of(sample: Sample) -> str:
    if sample.file == "hmy_getTransactionByHash__docs-home.cli.querying-the-blockchain.json":
        return "current"
    return "legacy" if sample.from_docs else "current"


def assert_structure(reference: Any, candidate: Any, *, path: str, floats_ok: bool, key: str = "") -> None:
    """harmony-test's ``assert_valid_json_structure`` with the two relaxations above."""
    if key in NULLABLE and (reference is None or candidate is None):
        return
    if isinstance(reference, float) and isinstance(candidate, int) and not isinstance(candidate, bool):
        assert floats_ok, f"{path}: sample has float {reference!r}, devnet int {candidate!r}"
        return
    assert type(reference) is type(candidate), (
        f"{path}: sample has {type(reference).__name__} {reference!r:.80}, devnet {type(candidate).__name__} {candidate!r:.80}"
    )
    if isinstance(reference, dict):
        for k, v in reference.items():
            assert k in candidate, (
                f"{path}: key {k!r} missing from the devnet's answer (has {sorted(candidate)})"
            )
            assert_structure(v, candidate[k], path=f"{path}.{k}", floats_ok=floats_ok, key=k)
    elif isinstance(reference, list):
        for i, (ref, cand) in enumerate(zip(reference, candidate, strict=False)):
            assert_structure(ref, cand, path=f"{path}[{i}]", floats_ok=floats_ok, key=key)


# -- what to ask the devnet ------------------------------------------------------------------


@dataclass(frozen=True)
class Ask:
    """The analogous request: shard, params, trace port?, and the envelope id to use."""

    params: list[Any]
    shard: int = 0
    trace: bool = False
    setup: str | None = None  # a method called first whose result replaces params[0] (filter ids)


def _block(chain: Chain, shard: int, pred: Callable[[Block], bool]) -> Block:
    for n in range(1, chain.head(shard)):
        block = chain.block(shard, n)
        if pred(block):
            return block
    raise AssertionError("no suitable block in the devnet chain")


def _tx(chain: Chain, pred: Callable[[Transaction], bool]) -> Transaction:
    for n in range(1, chain.head(0)):
        for tx in chain.block(0, n).transactions:
            if pred(tx):
                return tx
    raise AssertionError("no suitable transaction in the devnet chain")


def _num(value: int, gen: int) -> Any:
    return hex(value) if gen == 1 else value


def build(sample: Sample, chain: Chain) -> Ask:
    """The devnet request analogous to ``sample``'s (method-specific)."""
    method = sample.method
    gen = 2 if method.startswith("hmyv2_") else 1
    name = method.split("_", 1)[1] if method.startswith("hmy") else method
    request = sample.request if isinstance(sample.request, dict) else {}
    given = request.get("params") if isinstance(request.get("params"), list) else None
    head = chain.head(0)
    busy = _block(chain, 0, lambda b: len(b.transactions) > 1 and len(b.staking_transactions) > 0)
    quiet = _block(chain, 0, lambda b: not b.staking_transactions and len(b.transactions) > 0)
    validator = chain.validator_addresses()[0]
    result = sample.result

    if name in ("blockNumber", "getEpoch", "getShardingStructure", "getPendingCXReceipts", "net_version"):
        return Ask([])
    if name == "epochLastBlock":
        return Ask([1])
    if name in ("getAllValidatorAddresses", "getElectedValidatorAddresses"):
        return Ask([])
    if name == "getAllValidatorInformation":
        return Ask([] if given == [] else [0])
    if name == "getAllValidatorInformationByBlockNumber":
        return Ask([0, head if given is not None or gen == 2 else hex(head)])
    if name == "getValidatorInformation":
        return Ask([hex_to_one(validator)])
    if name == "getValidatorInformationByBlockNumber":
        return Ask([hex_to_one(validator), _num(head, gen)])
    if name == "getBlockByNumber":
        if gen == 1:
            return Ask([hex(busy.number), True])
        opts = given[1] if given is not None else {"InclStaking": True}
        return Ask([busy.number, opts])
    if name == "getBlockByHash":
        if gen == 1:
            return Ask([busy.hash, True])
        return Ask([busy.hash, given[1] if given is not None else {"fullTx": True, "inclTx": True}])
    if name == "getBlocks":
        if given is not None:
            return Ask([_num(0, gen), _num(1, gen), given[2]] if gen == 1 else [1, 2, given[2]])
        return Ask(
            [_num(busy.number - 1, gen), _num(busy.number + 1, gen), {"fullTx": True, "inclStaking": True}]
        )
    if name == "getBlockSigners":
        return Ask([_num(2, gen)])
    if name == "getBlockTransactionCountByHash":
        return Ask([busy.hash])
    if name == "getBlockTransactionCountByNumber":
        return Ask([_num(busy.number, gen)])
    if name in ("getTransactionByBlockHashAndIndex", "getTransactionByBlockNumberAndIndex"):
        where = busy.hash if "Hash" in name else _num(busy.number, gen)
        return Ask([where, _num(0, gen)])
    if name in ("getStakingTransactionByBlockHashAndIndex", "getStakingTransactionByBlockNumberAndIndex"):
        assert result is None  # the samples show a block without staking transactions
        where = quiet.hash if "Hash" in name else _num(quiet.number, gen)
        return Ask([where, _num(0, gen)])
    if name == "getStakingTransactionByHash":
        assert result is None  # the sample asked with a plain transaction's hash
        return Ask([quiet.transactions[0].hash])
    if name == "getTransactionByHash":
        return Ask([_tx(chain, lambda t: t.to is not None).hash])
    if name == "getCXReceiptByHash":
        cross = _tx(chain, lambda t: t.is_cross_shard and t.success)
        return Ask([cross.hash], cross.to_shard_id)  # the destination shard answers
    if name == "getTransactionCount":
        sender = _tx(chain, lambda t: t.nonce > 0).sender
        address = hex_to_one(sender) if str(given[0]).startswith("one1") else sender
        return Ask([address, given[1] if gen == 1 else head])
    if method == "trace_block":
        traced = _block(chain, 0, lambda b: any(t.trace is not None for t in b.transactions))
        return Ask([hex(traced.number).upper().replace("0X", "0x")], trace=True)
    if method == "trace_transaction":
        return Ask([_tx(chain, lambda t: t.trace is not None).hash], trace=True)
    if name == "call":
        return Ask([{"to": chain.tokens(0)[0].address, "data": "0x313ce567"}, "latest"])
    if name == "getCode":
        return Ask([chain.tokens(0)[0].address, "latest"])
    if name == "getTransactionReceipt":
        if "staking" in sample.file:
            return Ask([busy.staking_transactions[0].hash])
        return Ask([_tx(chain, lambda t: t.to is not None and not t.logs).hash])
    if name == "getLogs":
        return Ask([{"fromBlock": hex(busy.number), "toBlock": hex(busy.number)}])
    if name == "newFilter":
        return Ask([{"BlockHash": busy.hash}] if given and "BlockHash" in given[0] else [{"topics": []}])
    if name in ("newBlockFilter", "eth_newBlockFilter"):
        return Ask([])
    if name == "getFilterChanges":
        return Ask(["<id>"], setup="hmy_newBlockFilter")
    sender = hex_to_one(busy.transactions[0].sender)
    staker = hex_to_one(busy.staking_transactions[0].sender)
    if name == "getBalanceByBlockNumber":
        return Ask([sender, _num(busy.number, gen)])
    if name == "getBalance":
        return Ask([sender, "0x1"] if gen == 1 else [sender])
    if name in ("getTransactionsHistory", "getStakingTransactionsHistory"):
        listed = result.get(next(iter(result))) if isinstance(result, dict) else None
        # harmony-test's references list whole transactions under a request saying fullTx
        # False (the node answers hashes then): ask for what the reference shows
        full = bool(listed) and isinstance(listed[0], dict)
        args = {"address": staker if "Staking" in name else sender, "pageIndex": 0, "pageSize": 1000}
        return Ask([{**args, "fullTx": full, "txType": "ALL", "order": "ASC"}])
    if name in ("getTransactionsCount", "getStakingTransactionsCount"):
        return Ask([staker if "Staking" in name else sender, "SENT"])
    if name == "getDelegationsByDelegator":
        return Ask([hex_to_one(validator)])
    if name == "getDelegationsByDelegatorByBlockNumber":
        return Ask([hex_to_one(validator), _num(head, gen)])
    raise AssertionError(f"no request builder for {method}")


# -- the test --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def legacy_devnet() -> Iterator[Devnet]:
    with Devnet(blocks=400, seed=7, profile="legacy", validator_rate_limit=False) as net:
        yield net


def _served(method: str) -> bool:
    return method in SERVED or method == "invalid_method"


def _params() -> list[Any]:
    """One case per sample of a method the devnet serves (the others are listed below)."""
    return [pytest.param(file, id=file.removesuffix(".json")) for file, method in INDEX if _served(method)]


def test_unserved_sample_methods_are_outside_the_devnets_scope() -> None:
    """Samples of methods the devnet does not serve are not silently dropped: they are exactly
    the accounts, receipts, filters, history, pool, sending and node-status methods, none of which
    hmyframe's datasets consume (the list fails loudly if a served method loses its samples)."""
    unserved = sorted({method for _, method in INDEX if not _served(method)})
    consumed = {
        "getBlockByNumber",
        "getBlocks",
        "getTransactionByHash",
        "getTransactionCount",
        "blockNumber",
        "getAllValidatorInformation",
        "getAllValidatorInformationByBlockNumber",
        "getShardingStructure",
        "getPendingCXReceipts",
        "getBlockByHash",
        "getStakingTransactionByHash",
    }
    assert unserved, "every sampled method is served: drop this test"
    assert not [m for m in unserved if m.split("_", 1)[-1] in consumed or m.startswith("trace_")]


@pytest.mark.parametrize("file", _params())
async def test_sample_fidelity(
    file: str, samples: Samples, devnet: Devnet, legacy_devnet: Devnet, devnet_truth: Chain
) -> None:
    sample = next(s for s in samples if s.file == file)
    # a sample the docs garbled (not JSON even after repairs) shows nothing to compare: the
    # request must just be answered, by the current node
    net = legacy_devnet if profile_of(sample) == "legacy" and sample.parsed else devnet
    if sample.method == "invalid_method":
        method, ask = "invalid_" + "d41d8cd98f00", Ask([])
    else:
        method, ask = sample.method, build(sample, devnet_truth)
    url = (net.trace_urls if ask.trace else net.urls)[ask.shard]
    if ask.setup is not None:
        first = {"jsonrpc": "2.0", "id": 1, "method": ask.setup, "params": []}
        async with aiohttp.ClientSession() as http, http.post(url, json=first) as resp:
            ask = Ask([json.loads(await resp.read())["result"], *ask.params[1:]], ask.shard, ask.trace)
    envelope_sample = sample.response if sample.response_part == "full JSON-RPC envelope" else None
    request_id: Any = envelope_sample.get("id", 1) if isinstance(envelope_sample, dict) else 1
    payload = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": ask.params}
    async with aiohttp.ClientSession() as http, http.post(url, json=payload) as resp:
        assert resp.status == 200
        envelope = json.loads(await resp.read())
    floats_ok = float_mangled(sample)
    if not sample.parsed:
        assert "error" not in envelope, f"{sample.method}{ask.params}: {envelope.get('error')}"
        return
    if sample.response_part == "error object":
        assert "error" in envelope, envelope
        assert_structure(sample.response, envelope["error"], path="error", floats_ok=False)
        assert envelope["error"]["code"] == sample.response["code"]
        return
    assert "error" not in envelope, f"{sample.method}{ask.params}: {envelope.get('error')}"
    if sample.result is None:
        assert envelope["result"] is None
        return
    if envelope_sample is not None:
        reference = {k: v for k, v in envelope_sample.items() if k != "result"}
        assert_structure(reference, envelope, path="$", floats_ok=floats_ok)
    got = envelope["result"]
    if sample.method in DOCS_NUMBER_NOT_STRING or sample.file in DOCS_BALANCE_NOT_STRING:
        assert isinstance(got, int)
        assert not isinstance(got, bool)
        return
    if isinstance(sample.result, dict) and isinstance(got, list):
        # harmony-test keeps one element as the reference of a list answer (getBlocks,
        # getShardingStructure): every element must match it
        assert got, f"{sample.method}: empty answer to compare with"
        for i, element in enumerate(got):
            assert_structure(sample.result, element, path=f"result[{i}]", floats_ok=floats_ok)
    else:
        if isinstance(sample.result, list) and sample.result:
            assert got, f"{sample.method}: empty list where the sample has elements"
        assert_structure(sample.result, got, path="result", floats_ok=floats_ok)


def test_every_served_method_has_a_sample_or_a_test(samples: Samples) -> None:
    """Served methods without any sample are checked by test_server.py instead; name them here
    so that a newly served method cannot slip in without a sample or a decision."""
    eth = ["eth_blockNumber", "eth_chainId", "eth_getBlockByNumber", "eth_getBlockReceipts"]
    eth += ["eth_getTransactionReceipt", "web3_clientVersion"]  # tests/devnet/test_eth.py
    # tests/devnet/test_tokens.py
    tokens = ["eth_call", "eth_getCode", "eth_getLogs", "eth_newFilter", "eth_getFilterChanges"]
    tokens += ["eth_getFilterLogs", "eth_uninstallFilter", "hmy_getFilterLogs", "hmy_uninstallFilter"]
    tokens += ["hmy_getBlockReceipts", "hmyv2_getBlockReceipts", "hmyv2_call", "hmyv2_getCode"]
    assert sorted(SERVED - {s.method for s in samples}) == sorted(
        ["hmy_chainId", "hmyv2_chainId", "hmyv2_epochLastBlock", *eth, *tokens]
    )


@pytest.mark.parametrize(
    ("file", "missing"),
    [
        ("hmy_getBlockByNumber__harmony-test.test_blockchain.test_get_block_by_number_v1.json", "epoch"),
        (
            "hmy_getTransactionByHash__harmony-test.test_transaction.test_get_transaction_by_hash_v1.json",
            "timestamp",
        ),
        (
            "hmy_getAllValidatorInformation__harmony-test.test_staking.test_get_all_validator_information.json",
            "validator",
        ),
    ],
)
async def test_checker_catches_the_wrong_profile(
    file: str, missing: str, samples: Samples, legacy_devnet: Devnet, devnet_truth: Chain
) -> None:
    """The same replay against the *other* profile must fail: the check has teeth."""
    sample = next(s for s in samples if s.file == file)
    ask = build(sample, devnet_truth)
    payload = {"jsonrpc": "2.0", "id": 1, "method": sample.method, "params": ask.params}
    async with aiohttp.ClientSession() as http, http.post(legacy_devnet.url, json=payload) as resp:
        got = json.loads(await resp.read())["result"]
    with pytest.raises(AssertionError) as info:
        assert_structure(sample.result, got, path="result", floats_ok=False)
    assert f"key {missing!r} missing" in str(info.value)
    assert_structure({"a": 1.5}, {"a": 2}, path="$", floats_ok=True)
    with pytest.raises(AssertionError, match="float"):
        assert_structure({"a": 1.5}, {"a": 2}, path="$", floats_ok=False)
    assert_structure({"metrics": None}, {"metrics": {"by-bls-key": []}}, path="$", floats_ok=False)
    with pytest.raises(AssertionError, match="NoneType"):
        assert_structure({"name": None}, {"name": "x"}, path="$", floats_ok=False)
