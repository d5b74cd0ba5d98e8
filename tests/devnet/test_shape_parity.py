"""Shape parity of the devnet with real node answers (issue 24): the corpus is the oracle.

For every answer of the corpus (``real_corpus.load()``: tests/real/<collection>/ and the node
replies among the vendored samples) whose method the devnet serves, the analogous request
(:func:`analogues.analogue`: same method and param forms, a devnet subject like the real one)
is sent to the devnet in the profile of the answer's period (:data:`PROFILE_SINCE`, by its
date), and the two answers' shapes are compared strictly, both ways and at every depth (:mod:`shapes`): missing and extra keys, key
spellings, JSON types, hex quantity vs number, hex vs one1 vs 0x address forms, hash and
address widths, ``null`` vs missing vs ``[]``/``""``. Values are not compared.

Key order is compared twice:

* with the real answer, where its source kept the node's order (:data:`REORDERED` lists the
  sources that did not, with the evidence);
* with the node's source (:mod:`key_orders`): struct field order, or sorted keys at every depth
  for what goes through ``NewStructuredResponse`` (today's node, for the current profile); the
  early-2020 node's maps and structs for the legacy profile.

Every difference is one line: method, namespace, corpus id, JSON path, what the real node sent
and what the devnet sent. A test fails on any difference not recorded in
:data:`era_differences.RECORDED` (differences between node eras, hand-edited recordings, node
states the devnet does not produce, and the user's spec kept by the legacy profile, each with
its evidence), and
:func:`test_recorded_differences_still_occur` fails when a recorded one no longer occurs.

Recording convention: harmony-test keeps one element as the reference of a list answer
(``getBlocks``, ``getShardingStructure``); such an answer is compared as a list of that element.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
import real_corpus
from analogues import Ask, analogue, post
from era_differences import RECORDED
from key_orders import order_differences
from shapes import Difference, differences

from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet.node import served_methods

if TYPE_CHECKING:
    from real_corpus import Answer

    from tests.conftest import Samples

SERVED = frozenset(served_methods(trace_port=True))

#: The devnet profile that models the node of each period, by the answer's date: (first day,
#: profile, evidence). ``legacy`` is the early-2020 node of the user's spec, ``current`` today's
#: node; what an answer of a period shows that its profile does not is recorded in
#: era_differences.RECORDED with its own evidence. ``None`` marks a period between the profiles:
#: an answer dated there fails the test until a profile (or a new one) is decided for it.
PROFILE_SINCE: tuple[tuple[str, str | None, str], ...] = (
    (
        "2019-01-01",
        "legacy",
        "the 2019 docs answers and the early-2020 ones (docs of 2020-01/2020-04, the CLI's) have the "
        "early-2020 blocks: Go maps with sorted keys, no viewID/epoch, miner 0x hex (internal/hmyapi/"
        "apiv1|apiv2 RPCMarshalBlock at harmony a4479d62d, 2020-01-11), validators in the old format",
    ),
    (
        "2020-05-25",
        "current",
        "harmony 44185906a (2020-05-25, #3009) added viewID and epoch to the blocks; 14e017def "
        "(2020-07-15, #3221) made miner the leader's one1 address; the harmony-test localnet answers "
        "from July 2020 on (blocks dated 2020-07-17) have today's block, transaction and validator "
        "shapes. (No block answer of the corpus is dated between the two commits: one would show a "
        "0x miner, an unrecorded difference.)",
    ),
)


def profile_of(answer: Answer) -> str | None:
    """The devnet profile an answer is compared with (:data:`PROFILE_SINCE`)."""
    assert answer.date is not None, f"{answer.id}: no date: its node's period is unknown"
    chosen = None
    for since, profile, _ in PROFILE_SINCE:
        if answer.date >= since:
            chosen = profile
    assert chosen is not None, f"{answer.id}: dated {answer.date}, a period no devnet profile models"
    return chosen


#: Sources whose key order is not the node's (the order of their answers is not compared).
REORDERED = {
    "mainnet-2023/": (
        "the provider's pages print every object with its keys sorted, even the JSON-RPC envelope "
        "(id, jsonrpc, result: the node writes jsonrpc, id, result; GetBlock-io/getblock-docs "
        "api-reference/harmony-one/one_eth_gettransactionbyhash.md), so block structs look sorted too"
    ),
    "samples/": (
        "harmony-test's reference replies are Python literals edited by hand since 2020 "
        "(effectiveGasPrice appended after the other keys of a sorted receipt, harmony-test 5c92964; "
        "header keys renamed in place, 3f305d90); CLI replies are re-printed from Go maps (sorted)"
    ),
}


def _served(answer: Answer) -> bool:
    return answer.method in SERVED or answer.method == "invalid_method"


ANSWERS = [a for a in real_corpus.load() if _served(a)]


def _order_kept(answer: Answer) -> bool:
    return not any(answer.id.startswith(prefix) for prefix in REORDERED)


def _one_element_of_a_list(answer: Answer, got: Any) -> bool:
    return (
        answer.source.startswith("harmony-one/harmony-test")
        and isinstance(answer.result, dict)
        and isinstance(got, list)
    )


@dataclass
class Comparison:
    """One corpus answer against the devnet's answer to the analogous request."""

    answer: Answer
    method: str
    ask: Ask
    profile: str
    problem: str = ""  # why nothing could be compared (no analogue, no profile for the era)
    got: Any = None
    shape: list[Difference] = field(default_factory=list)
    order: list[Difference] = field(default_factory=list)

    def lines(self, found: list[Difference]) -> list[str]:
        a = self.answer
        return [d.line(f"{a.method} [{a.namespace}] {a.id}") for d in found]

    def unrecorded(self) -> list[Difference]:
        a = self.answer
        return [
            d
            for d in (*self.shape, *self.order)
            if not any(r.matches(a.method, a.era, d.path, d.what, d.real, d.devnet) for r in RECORDED)
        ]


def compare(answer: Answer, method: str, ask: Ask, profile: str, envelope: dict[str, Any]) -> Comparison:
    """The shape and order differences of one answer (see the module docstring)."""
    out = Comparison(answer, method, ask, profile)
    keep_order = _order_kept(answer)
    if not answer.has_result:
        if "error" not in envelope:
            out.shape.append(
                Difference("error", "type", "an error", f"a result: {envelope.get('result')!r:.60}")
            )
        else:
            out.shape = differences(answer.error, envelope["error"], path="error", check_order=keep_order)
        return out
    if "error" in envelope:
        out.shape.append(Difference("result", "type", "a result", f"an error: {envelope['error']}"))
        return out
    out.got = got = envelope["result"]
    real = [answer.result] if _one_element_of_a_list(answer, got) else answer.result
    out.shape = differences(real, got, check_order=keep_order)
    out.order = list(order_differences(method, got, profile))
    return out


async def _compare_all(nets: dict[str, Devnet], chain: Chain, samples: Samples) -> dict[str, Comparison]:
    by_file = {s.file: s for s in samples}
    out: dict[str, Comparison] = {}
    for answer in ANSWERS:
        profile: str | None = None
        sample = by_file.get(answer.id.removeprefix("samples/")) if answer.id.startswith("samples/") else None
        try:
            profile = profile_of(answer)
            method, ask = analogue(answer, chain, sample)
        except AssertionError as exc:  # this answer fails alone, the others are compared
            out[answer.id] = Comparison(answer, answer.method, Ask([]), str(profile), problem=str(exc))
            continue
        envelope = await post(nets[profile], method, ask)
        out[answer.id] = compare(answer, method, ask, profile, envelope)
    return out


@pytest.fixture(scope="module")
def compared(devnet: Devnet, devnet_truth: Chain, samples: Samples) -> Iterator[dict[str, Comparison]]:
    """Every corpus answer of a served method, compared once for the module's tests."""
    with ExitStack() as stack:
        nets = {"current": devnet}
        legacy = Devnet(blocks=400, seed=7, profile="legacy", validator_rate_limit=False)
        nets["legacy"] = stack.enter_context(legacy)
        yield asyncio.run(_compare_all(nets, devnet_truth, samples))


@pytest.mark.parametrize("answer_id", [a.id for a in ANSWERS])
def test_shape_parity(answer_id: str, compared: dict[str, Comparison]) -> None:
    """The devnet's answer has the real answer's shape, but for the recorded differences."""
    comparison = compared[answer_id]
    assert not comparison.problem, f"{answer_id}: nothing compared: {comparison.problem}"
    unrecorded = comparison.unrecorded()
    assert not unrecorded, (
        f"{len(unrecorded)} shape difference(s) not recorded in era_differences.RECORDED "
        f"(devnet asked {comparison.method}{comparison.ask.params!r:.160} in profile {comparison.profile}):\n"
        + "\n".join(comparison.lines(unrecorded))
    )


def test_recorded_differences_still_occur(compared: dict[str, Comparison]) -> None:
    """Every recorded (method, path) still shows its difference: the table stays true."""
    stale = []
    for row in RECORDED:
        for method in row.methods:
            for path in row.paths:
                found = any(
                    row.matches(c.answer.method, c.answer.era, d.path, d.what, d.real, d.devnet)
                    and c.answer.method == method
                    and d.path == path
                    for c in compared.values()
                    for d in (*c.shape, *c.order)
                )
                if not found:
                    stale.append(f"{row.kind} {method} era {row.era} {path}: {row.what} no longer occurs")
    assert not stale, "\n".join(stale)


def test_the_comparison_covers_both_namespaces_and_eras(compared: dict[str, Comparison]) -> None:
    """The corpus reaches the devnet through every namespace it has answers of, every era
    (2019-2025) and both profiles, every answer got an answer to compare, and the real lists
    were matched by devnet lists with elements."""
    counts = Counter((c.answer.namespace, c.answer.era, c.profile) for c in compared.values())
    assert {ns for ns, _, _ in counts} >= {"hmy", "hmyv2", "eth", "net", "web3", "trace"}
    assert {era for _, era, _ in counts} >= {"2019", "2020", "2022", "2023", "2025"}
    assert {profile for _, _, profile in counts} == {"legacy", "current"}
    assert len(compared) == len(ANSWERS)
    assert all(
        c.got is not None or not c.answer.has_result or c.answer.result is None for c in compared.values()
    )
    empty = [d.line(c.answer.id) for c in compared.values() for d in c.shape if d.what == "elements"]
    assert not empty, "analogous requests that found nothing to compare:\n" + "\n".join(empty)


# -- the comparison has teeth --------------------------------------------------------------------


def test_the_comparison_catches_each_kind_of_difference() -> None:
    real = {
        "number": "0x10",
        "miner": "one1gh043zc95e6mtutwy5a2zhvsxv7lnlklkj42ux",
        "hash": "0x" + "ab" * 32,
        "shardID": 0,
        "signers": [],
        "to": "",
        "logs": [{"address": "0x" + "cd" * 20, "removed": False}],
        "gone": None,
    }
    dev = {
        "number": 16,  # a number for a hex quantity
        "miner": "0x" + "45" * 20,  # 0x for one1
        "hash": "0x" + "ab" * 20,  # 20 bytes for 32
        "shardId": 0,  # spelling
        "signers": None,  # null for []
        "to": None,  # null for ""
        "logs": [{"removed": "false", "address": "0x" + "cd" * 20}],  # string for bool, order
        "extra": 1,
    }
    found = {(d.path, d.what) for d in differences(real, dev)}
    assert found == {
        ("result.number", "form"),
        ("result.miner", "form"),
        ("result.hash", "form"),
        ("result.shardID", "spelling"),
        ("result.signers", "type"),
        ("result.to", "form"),
        ("result.logs[].removed", "form"),
        ("result.logs[]", "key order"),
        ("result.gone", "missing key"),
        ("result.extra", "extra key"),
    }
    # values are not compared: another hash, quantity, address or list is the same shape; an
    # empty real list says nothing about the devnet's elements, the reverse is a difference
    logs = [{"address": "0x" + "01" * 20, "removed": True}, {"address": "0x" + "02" * 20, "removed": False}]
    signers = ["one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz"]
    same = {**real, "number": "0xffff", "hash": "0x" + "00" * 32, "logs": logs, "signers": signers}
    assert not differences(real, same)
    assert [(d.path, d.what) for d in differences(real, {**real, "logs": []})] == [
        ("result.logs[]", "elements")
    ]
    # a state-dependent field: the real value must be among what the devnet's elements send
    assert not differences([{"m": None}], [{"m": {"a": 1}}, {"m": None}])
    assert differences([{"m": None}], [{"m": {"a": 1}}])


async def test_the_legacy_profile_is_caught_by_the_2023_answers(devnet_truth: Chain) -> None:
    """The early-2020 profile answered where a 2023 answer was recorded: the comparison reports
    the keys added since (viewID, epoch, vrf...) and the 0x miner, and would fail the test."""
    answer = next(a for a in ANSWERS if a.id == "mainnet-2023/hmy_getBlockByHash__getblock-docs.json")
    method, ask = analogue(answer, devnet_truth)
    async with Devnet(blocks=400, seed=7, profile="legacy", validator_rate_limit=False) as legacy:
        envelope = await post(legacy, method, ask)
    found = compare(answer, method, ask, "legacy", envelope)
    reported = {(d.path, d.what) for d in found.unrecorded()}
    assert {("result.viewID", "missing key"), ("result.epoch", "missing key")} <= reported
    assert ("result.miner", "form") in reported


async def test_the_node_order_check_has_teeth(devnet_truth: Chain) -> None:
    """Struct order, unknown keys and unsorted StructuredResponse objects are reported; the
    legacy profile's receipt (a Go map holding the logs as structs) is caught at its logs."""
    block = {"hash": "0x" + "11" * 32, "number": "0x1"}
    assert [(d.path, d.what) for d in order_differences("hmy_getBlockByNumber", block)] == [
        ("result", "key order (node source)")
    ]
    assert list(order_differences("hmy_getBlockByNumber", {"number": "0x1", "hash": "0x" + "11" * 32})) == []
    assert list(order_differences("hmyv2_getBlocks", [{"number": 1, "bogus": 2}]))
    assert list(order_differences("hmy_getTransactionReceipt", {"logs": [{"b": 1, "a": 2}]}))
    receipt = next(a for a in ANSWERS if a.id == "mainnet-2023/hmy_getTransactionReceipt__getblock-docs.json")
    method, ask = analogue(receipt, devnet_truth)
    async with Devnet(blocks=400, seed=7, profile="legacy", validator_rate_limit=False) as legacy:
        got = (await post(legacy, method, ask))["result"]
    assert {d.path for d in order_differences(method, got)} == {"result.logs[]"}


def test_each_period_has_its_profile() -> None:
    """The answers of the early-2020 docs node and before go to the legacy profile, the July-2020
    localnet and everything since to the current one; an answer without a date fails."""
    by_id = {a.id: a for a in ANSWERS}
    early = by_id["samples/hmy_getBlockByNumber__docs-home.cli.querying-the-blockchain.json"]
    localnet = by_id[
        "samples/hmy_getBlockByNumber__harmony-test.test_blockchain.test_get_block_by_number_v1.json"
    ]
    assert (early.date, profile_of(early)) == ("2020-04-17", "legacy")
    assert (localnet.date, profile_of(localnet)) == ("2020-07-17", "current")
    assert {a.era: profile_of(a) for a in ANSWERS if a.era in ("2019", "2022", "2023", "2025")} == {
        "2019": "legacy",
        "2022": "current",
        "2023": "current",
        "2025": "current",
    }
    with pytest.raises(AssertionError, match="no date"):
        profile_of(dataclasses.replace(early, date=None))
    with pytest.raises(AssertionError, match="no devnet profile models"):
        profile_of(dataclasses.replace(early, date="2018-12-31"))


def test_the_legacy_order_check_has_teeth() -> None:
    """The early-2020 node's maps are sorted at their own level only; its structs keep their
    order (the transactions inside a block, the logs inside a receipt)."""
    block = {"hash": "0x" + "11" * 32, "number": "0x1", "transactions": [{"from": "0x", "blockHash": "0x"}]}
    assert [(d.path, d.what) for d in order_differences("hmy_getBlockByNumber", block, "legacy")] == [
        ("result.transactions[]", "key order (node source)")
    ]
    block["transactions"] = [{"blockHash": "0x", "from": "0x"}]
    assert not list(order_differences("hmy_getBlockByNumber", block, "legacy"))
    assert list(order_differences("hmy_getBlockByNumber", {"number": "0x1", "hash": "0x"}, "legacy"))
    receipt = {"blockHash": "0x", "logs": [{"address": "0x", "topics": []}], "status": "0x1"}
    assert not list(order_differences("hmy_getTransactionReceipt", receipt, "legacy"))
    receipt["logs"] = [{"topics": [], "address": "0x"}]
    assert list(order_differences("hmy_getTransactionReceipt", receipt, "legacy"))
