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

Three documented relaxations, two about how the samples were recorded, one about the chain's
state:

* **Float for integer.** The go-sdk ``hmy`` CLI decodes replies into ``float64`` and
  re-prints them, so its output (``docs-home.cli.*``) and the docs validator samples that
  were made with it show integers as ``3.46e+19``. A real node never sends exponent
  notation; there a JSON integer is accepted where the sample has a float.
* **Nullable fields.** The node sends ``null`` for some fields depending on state (RPC notes
  §1.6, §1.4, §8: ``current-epoch-performance``, ``metrics``, ``epos-winning-stake``,
  ``booted-status``, ``epoch-apr``, ``epoch-blocks``, staking ``msg``). A sample recorded
  with ``null`` there (or a value) says nothing about the other case, so ``null`` on either
  side is accepted for those keys only.
* **Root or status.** The early-2020 node's receipt had ``root`` before the chain's S3 epoch
  and ``status`` after it (``EITHER_KEY``): the 2019 docs receipts show ``root``, the legacy
  devnet sends ``status``.

One documented erratum of the docs: they show ``hmy_epochLastBlock`` called without params and
answering ``"10"``; the node's handler (since early 2020) takes the epoch as a uint64 and answers a
uint64, a JSON number in both generations. The replay passes an epoch and expects a number
(``DOCS_NUMBER_NOT_STRING``).

Samples with a JSON ``null`` *result* are replayed with a request the devnet also answers
with ``null`` (an unknown hash, an index past the end), and must give exactly ``null``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from analogues import Ask, build, post

from hmyframe.devnet import Chain, Devnet
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

#: A key the early-2020 node sent instead of another by the chain's state: a receipt has
#: ``root`` (the post-state) for a block before the chain's S3 epoch, ``status`` after it
#: (internal/hmyapi/apiv1 GetTransactionReceipt at harmony a4479d62d). The 2019 docs receipts
#: show ``root``; the legacy devnet's chain is past S3 from epoch 0 and sends ``status``.
EITHER_KEY = {"root": "status"}

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
    """harmony-test's ``assert_valid_json_structure`` with the relaxations above."""
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
            if k in EITHER_KEY and k not in candidate and EITHER_KEY[k] in candidate:
                continue
            assert k in candidate, (
                f"{path}: key {k!r} missing from the devnet's answer (has {sorted(candidate)})"
            )
            assert_structure(v, candidate[k], path=f"{path}.{k}", floats_ok=floats_ok, key=k)
    elif isinstance(reference, list):
        for i, (ref, cand) in enumerate(zip(reference, candidate, strict=False)):
            assert_structure(ref, cand, path=f"{path}[{i}]", floats_ok=floats_ok, key=key)


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
    envelope_sample = sample.response if sample.response_part == "full JSON-RPC envelope" else None
    request_id: Any = envelope_sample.get("id", 1) if isinstance(envelope_sample, dict) else 1
    envelope = await post(net, method, ask, request_id)
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
    got = (await post(legacy_devnet, sample.method, ask))["result"]
    with pytest.raises(AssertionError) as info:
        assert_structure(sample.result, got, path="result", floats_ok=False)
    assert f"key {missing!r} missing" in str(info.value)
    assert_structure({"a": 1.5}, {"a": 2}, path="$", floats_ok=True)
    with pytest.raises(AssertionError, match="float"):
        assert_structure({"a": 1.5}, {"a": 2}, path="$", floats_ok=False)
    assert_structure({"metrics": None}, {"metrics": {"by-bls-key": []}}, path="$", floats_ok=False)
    with pytest.raises(AssertionError, match="NoneType"):
        assert_structure({"name": None}, {"name": "x"}, path="$", floats_ok=False)
