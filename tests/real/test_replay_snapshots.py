"""Validator snapshots from real answers: ``validators``, ``voting_power``, ``delegations`` and
``undelegations``, through the API and the CLI, against an independent decode of each answer.

Every real validator page of the corpus (``getAllValidatorInformation`` and ``...ByBlockNumber``
in both generations) is served by :class:`replay_more.ReplayNode` and fetched with
``hmyframe.<dataset>(block=...)`` and ``hmyframe export``; every value of every row is compared
with what this file reads from the answer with plain Python (``int``, ``Decimal``, strings, the
bech32 codec of :mod:`replay_more`). Answers no fetcher asks for but the datasets accept
(``getValidatorInformation[ByBlockNumber]``, among them the early-2020 format; the delegation
methods' records) go through the datasets' own conversion (``hmyframe.dataset(name).convert``).

The harmony-test pages are vendored without their params (``[0]``, ``[0, hex(curr_block)]``):
they are placed at page 0 of a stand-in head (``curr_block`` is not known; the head stands at
the page's highest update-height, the earliest block it can describe), and that head's header
is a stand-in (no epoch: ``snapshot_epoch`` is null, as for any node whose header has none).
Page 1 is ``[]``, as the node answers a page past its validators (``getAllValidatorAddresses``
of the same suite lists two).
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import pytest
import real_corpus
from real_corpus import Answer
from replay_more import (
    SKIP,
    ReplayNode,
    assert_rows,
    columns,
    exact_float,
    frame_rows,
    hex_to_one,
    integer,
    one_to_hex,
    parquet_rows,
    placed,
)

import hmyframe
from hmyframe import FetchOptions
from hmyframe.cli import main
from hmyframe.datasets import ConvertContext

SNAPSHOT_DATASETS = ("validators", "voting_power", "delegations", "undelegations")
PAGE_METHODS = ("getAllValidatorInformation", "getAllValidatorInformationByBlockNumber")
#: Every real page of the corpus (new ones are picked up).
PAGES = [a for name in PAGE_METHODS for a in real_corpus.by_name(name) if a.namespace in ("hmy", "hmyv2")]
#: Every answer the validator datasets accept, pages or single validators, all eras.
INFORMATION = [
    a
    for name in (*PAGE_METHODS, "getValidatorInformation", "getValidatorInformationByBlockNumber")
    for a in real_corpus.by_name(name)
    if a.has_result
]
RECORD_METHODS = (
    "getDelegationsByValidator",
    "getDelegationsByDelegator",
    "getDelegationsByDelegatorByBlockNumber",
    "getDelegationsByDelegatorAndValidator",
)
RECORDS = [a for name in RECORD_METHODS for a in real_corpus.by_name(name) if a.has_result]


# --------------------------------------------------------------------------- the independent decode


def atto(value: Any, exact: bool) -> Any:
    """An amount as the node sent it: a JSON number (or decimal text), exact to the atto."""
    if value is None:
        return None
    if isinstance(value, float):
        assert not exact, f"a float {value!r} in an answer marked exact"
        return SKIP  # re-printed through a float64 by the CLI that published it
    return int(Decimal(str(value)))


def one(value: Any) -> Any:
    return value if value is None or value is SKIP else exact_float(value)


def dec_atto(text: Any) -> Any:
    """A dec18 text (``"25415000000000000000.000000000000000000"``) rounded to the atto."""
    return None if text is None else int(Decimal(text).quantize(Decimal(1), ROUND_HALF_EVEN))


def ratio(text: Any) -> Any:
    return None if text is None else float(Decimal(text))


def addresses(one1: Any) -> tuple[Any, Any]:
    """(one1, 0x) of an address the node wrote in either form."""
    if one1 is None:
        return None, None
    if one1.startswith("one1"):
        return one1, one_to_hex(one1)
    return hex_to_one(one1), one1.lower()


def unwrap(entry: dict[str, Any]) -> dict[str, Any]:
    """An early-2020 page element wrapped as a JSON-RPC answer ``{"id", "jsonrpc", "result"}``."""
    return entry["result"] if "validator" not in entry and "jsonrpc" in entry else entry


def entries(result: Any) -> list[dict[str, Any]]:
    return [unwrap(e) for e in (result if isinstance(result, list) else [result])]


def expected_validators(result: Any, block: Any, epoch: Any, exact: bool) -> list[dict[str, Any]]:
    rows = []
    for e in entries(result):
        v = e["validator"]
        early = "availability" in v or "active" in v
        address, address_hex = addresses(v["address"])
        amounts = {k: atto(v[k], exact) for k in ("min-self-delegation", "max-total-delegation")}
        if early:
            listed = [atto(d["amount"], exact) for d in v["delegations"]]
            total = SKIP if SKIP in listed else sum(listed)
            signing = e["current-epoch-signing-percent"]
            availability = v["availability"]
            active, banned = v["active"], v["banned"]
            lifetime_signed, lifetime_to_sign = (
                availability["num-blocks-signed"],
                availability["num-blocks-to-sign"],
            )
            reward, apr = None, None
            statuses = (None, None, None, None)
            percentage = signing["percentage"]
        else:
            total = atto(e["total-delegation"], exact)
            perf = e["current-epoch-performance"]
            signing = perf["current-epoch-signing-percent"] if perf else {}
            status = e["active-status"]
            banned = "banned" in status or "banned" in (e["epos-status"] or "")
            active = True if status == "active" else (False if status == "inactive" or banned else None)
            lifetime = e["lifetime"]
            lifetime_signed, lifetime_to_sign = lifetime["blocks"]["signed"], lifetime["blocks"]["to-sign"]
            reward, apr = atto(lifetime["reward-accumulated"], exact), ratio(lifetime["apr"])
            statuses = (status, e["epos-status"], e["booted-status"], e["currently-in-committee"])
            percentage = signing.get("current-epoch-signing-percentage")
        winning = None if early else dec_atto(e["epos-winning-stake"])
        rows.append(
            {
                "snapshot_block": block,
                "snapshot_epoch": epoch,
                "validator_address": address,
                "validator_address_hex": address_hex,
                "name": v["name"],
                "identity": v["identity"],
                "website": v["website"],
                "security_contact": v["security-contact"],
                "details": v["details"],
                "rate": ratio(v["rate"]),
                "rate_dec": v["rate"],
                "max_rate": ratio(v["max-rate"]),
                "max_rate_dec": v["max-rate"],
                "max_change_rate": ratio(v["max-change-rate"]),
                "max_change_rate_dec": v["max-change-rate"],
                "min_self_delegation": amounts["min-self-delegation"],
                "min_self_delegation_one": one(amounts["min-self-delegation"]),
                "max_total_delegation": amounts["max-total-delegation"],
                "max_total_delegation_one": one(amounts["max-total-delegation"]),
                "total_delegation": total,
                "total_delegation_one": one(total),
                "delegation_count": len(v["delegations"]),
                "bls_key_count": len(v["bls-public-keys"]),
                "bls_public_keys": ",".join(v["bls-public-keys"]),
                "is_active": active,
                "active_status": statuses[0],
                "epos_status": statuses[1],
                "booted_status": statuses[2],
                "is_banned": banned,
                "is_elected": statuses[3],
                "epos_winning_stake": winning,
                "epos_winning_stake_one": one(winning),
                "epoch_signing_percentage": ratio(percentage),
                "epoch_blocks_signed": signing.get("current-epoch-signed"),
                "epoch_blocks_to_sign": signing.get("current-epoch-to-sign"),
                "lifetime_blocks_signed": lifetime_signed,
                "lifetime_blocks_to_sign": lifetime_to_sign,
                "lifetime_reward": reward,
                "lifetime_reward_one": one(reward),
                "apr": apr,
                "creation_height": v["creation-height"],
                "update_height": v["update-height"],
                "last_epoch_in_committee": v["last-epoch-in-committee"],
            }
        )
    return sorted(rows, key=lambda r: r["validator_address"])


def expected_voting_power(result: Any, block: Any, epoch: Any, exact: bool) -> list[dict[str, Any]]:
    rows = []
    for e in entries(result):
        address, address_hex = addresses(e["validator"]["address"])
        base = {
            "snapshot_block": block,
            "snapshot_epoch": epoch,
            "validator_address": address,
            "validator_address_hex": address_hex,
        }
        for item in (e.get("metrics") or {}).get("by-bls-key") or ():
            key = item["key"]
            effective, raw = dec_atto(key["effective-stake"]), dec_atto(key["raw-stake"])
            reward = atto(item["earned-reward"], exact)
            rows.append(
                {
                    **base,
                    "shard_id": key["shard-id"],
                    "bls_public_key": key["bls-public-key"],
                    "effective_stake": effective,
                    "effective_stake_one": one(effective),
                    "raw_stake": raw,
                    "raw_stake_one": one(raw),
                    "group_percent": ratio(key["group-percent"]),
                    "overall_percent": ratio(key["overall-percent"]),
                    "voting_power_raw": None,
                    "voting_power_adjusted": None,
                    "earned_reward": reward,
                    "earned_reward_one": one(reward),
                }
            )
        for item in e.get("current-epoch-voting-power") or ():
            effective = dec_atto(item["effective-stake"])
            rows.append(
                {
                    **base,
                    "shard_id": item["shard-id"],
                    "bls_public_key": None,
                    "effective_stake": effective,
                    "effective_stake_one": one(effective),
                    "raw_stake": None,
                    "raw_stake_one": None,
                    "group_percent": None,
                    "overall_percent": None,
                    "voting_power_raw": ratio(item["voting-power-raw"]),
                    "voting_power_adjusted": ratio(item["voting-power-adjusted"]),
                    "earned_reward": None,
                    "earned_reward_one": None,
                }
            )
    return sorted(rows, key=lambda r: (r["validator_address"], r["shard_id"], r["bls_public_key"] or ""))


def _delegations(result: Any) -> list[tuple[str, Any, dict[str, Any]]]:
    """(validator, index in its list or None, delegation) of validator pages or delegation records."""
    out = []
    for e in result if isinstance(result, list) else [result]:
        if "validator_address" in e:  # a record of the delegation methods
            out.append((e["validator_address"], None, e))
        else:
            v = unwrap(e)["validator"]
            out += [(v["address"], j, d) for j, d in enumerate(v["delegations"])]
    return out


def expected_delegations(result: Any, block: Any, epoch: Any, exact: bool) -> list[dict[str, Any]]:
    rows = []
    for validator, index, d in _delegations(result):
        undelegations = d["undelegations"] if "undelegations" in d else d["Undelegations"]
        pending = [atto(u["amount"] if "amount" in u else u["Amount"], exact) for u in undelegations]
        amount, reward = atto(d["amount"], exact), atto(d["reward"], exact)
        total = SKIP if SKIP in pending else sum(pending)
        v_one, v_hex = addresses(validator)
        d_one, d_hex = addresses(
            d["delegator-address"] if "delegator-address" in d else d["delegator_address"]
        )
        rows.append(
            {
                "snapshot_block": block,
                "snapshot_epoch": epoch,
                "validator_address": v_one,
                "validator_address_hex": v_hex,
                "delegator_address": d_one,
                "delegator_address_hex": d_hex,
                "delegation_index": index,
                "amount": amount,
                "amount_one": one(amount),
                "reward": reward,
                "reward_one": one(reward),
                "undelegation_count": len(undelegations),
                "undelegating_amount": total,
                "undelegating_amount_one": one(total),
            }
        )
    return sorted(rows, key=lambda r: (r["validator_address"], r["delegator_address"]))


def expected_undelegations(result: Any, block: Any, epoch: Any, exact: bool) -> list[dict[str, Any]]:
    rows = []
    for validator, _, d in _delegations(result):
        undelegations = d["undelegations"] if "undelegations" in d else d["Undelegations"]
        v_one, v_hex = addresses(validator)
        d_one, d_hex = addresses(
            d["delegator-address"] if "delegator-address" in d else d["delegator_address"]
        )
        for j, u in enumerate(undelegations):
            amount = atto(u["amount"] if "amount" in u else u["Amount"], exact)
            rows.append(
                {
                    "snapshot_block": block,
                    "snapshot_epoch": epoch,
                    "validator_address": v_one,
                    "validator_address_hex": v_hex,
                    "delegator_address": d_one,
                    "delegator_address_hex": d_hex,
                    "undelegation_index": j,
                    "amount": amount,
                    "amount_one": one(amount),
                    "epoch": integer(u["epoch"] if "epoch" in u else u["Epoch"]),
                }
            )
    return sorted(
        rows, key=lambda r: (r["validator_address"], r["delegator_address"], r["undelegation_index"])
    )


EXPECTED = {
    "validators": expected_validators,
    "voting_power": expected_voting_power,
    "delegations": expected_delegations,
    "undelegations": expected_undelegations,
}


def big_amounts(result: Any) -> list[int]:
    """Every amount of the answer above 2**64 (what must come through exactly)."""
    found: list[int] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, int) and not isinstance(x, bool) and x > 2**64:
            found.append(x)

    walk(result)
    return found


# --------------------------------------------------------------------------- the node of a page


def page_node(answer: Answer) -> tuple[ReplayNode, int]:
    """The node serving ``answer`` as page 0, and the snapshot block to ask."""
    if answer.params is not None:  # a page recorded with its params: its own block
        block = answer.params[1] if answer.name.endswith("ByBlockNumber") else None
        head = int(block, 16) if isinstance(block, str) else block
        assert head is not None, f"{answer.id}: a getAllValidatorInformation page needs a head"
        served = [answer]
    else:
        head = max(
            max(e["validator"]["update-height"], e["validator"]["creation-height"])
            for e in entries(answer.result)
        )
        ref: Any = hex(head) if answer.namespace == "hmy" else head
        served = [placed(answer, [0, ref] if answer.name.endswith("ByBlockNumber") else [0])]
    # the same suite's validator list, for the empty page after the last
    listed = [
        a
        for a in real_corpus.by_method(f"{answer.namespace}_getAllValidatorAddresses")
        if a.source == answer.source and a.era == answer.era
    ]
    served += [placed(a, []) if a.params is None else a for a in listed]
    return ReplayNode(served, stand_in_head=head, stand_in_blocks=(head,)), head


def test_the_corpus_has_real_pages_in_both_generations() -> None:
    assert {a.namespace for a in PAGES} == {"hmy", "hmyv2"}
    assert len(PAGES) >= 4


@pytest.mark.parametrize("answer", PAGES, ids=lambda a: a.id)
def test_snapshot_through_the_api(answer: Answer) -> None:
    version = 1 if answer.namespace == "hmy" else 2
    node, block = page_node(answer)
    compared = 0
    with node:
        for name in SNAPSHOT_DATASETS:
            fetch = getattr(hmyframe, name)
            df = fetch(block=block, rpc=node.url, cache=False, options=FetchOptions(version=version))
            assert df.attrs["snapshot_block"] == block
            want = EXPECTED[name](answer.result, block, None, answer.exact_numbers)
            compared += assert_rows(frame_rows(df), want, columns=columns(name), what=f"{answer.id} {name}")
        # the generic fetcher (deprecated: it says where to go) gives the same frame
        with pytest.deprecated_call():
            by_name = hmyframe.fetch(
                "validators", block=block, rpc=node.url, cache=False, options=FetchOptions(version=version)
            )
        assert frame_rows(by_name) == frame_rows(
            hmyframe.validators(block=block, rpc=node.url, cache=False, options=FetchOptions(version=version))
        )
    assert node.misses == []
    assert {c.split("_", 1)[0] for c in node.calls if "ValidatorInformation" in c} == {answer.namespace}
    assert any("page 1: []" in d for d in node.derived_calls)
    assert compared >= 40
    big = big_amounts(answer.result)
    assert big, "the page holds amounts above 2**64"
    assert set(big) <= {r for r in _exact_amounts(answer.result)}


def _exact_amounts(result: Any) -> list[int]:
    """The amounts the expected rows hold (to show the big ones are compared)."""
    rows = expected_validators(result, None, None, True) + expected_delegations(result, None, None, True)
    return [v for r in rows for v in r.values() if isinstance(v, int) and not isinstance(v, bool)]


@pytest.mark.parametrize("answer", PAGES, ids=lambda a: a.id)
def test_snapshot_through_the_cli(answer: Answer, tmp_path: Path) -> None:
    node, block = page_node(answer)
    with node:
        code = main(
            [
                "export",
                ",".join(SNAPSHOT_DATASETS),
                "--block",
                str(block),
                "--rpc",
                node.url,
                "--out",
                str(tmp_path),
                "--api",
                "1" if answer.namespace == "hmy" else "2",
                "--no-progress",
            ]
        )
    assert code == 0
    assert node.misses == []
    for name in SNAPSHOT_DATASETS:
        want = EXPECTED[name](answer.result, block, None, answer.exact_numbers)
        assert_rows(
            parquet_rows(tmp_path, name), want, columns=columns(name), what=f"{answer.id} {name} (CLI)"
        )
        # and read back by hmyframe's reader, in the fetch dtypes
        back = frame_rows(hmyframe.read(name, tmp_path))
        assert_rows(back, want, columns=columns(name), what=f"{answer.id} {name} (read)")


@pytest.mark.parametrize("answer", INFORMATION, ids=lambda a: a.id)
@pytest.mark.parametrize("name", list(SNAPSHOT_DATASETS))
def test_every_validator_information_answer_parses(answer: Answer, name: str) -> None:
    """Pages and single validators of every era, the early-2020 format included, through the
    datasets' conversion (no block is known: the snapshot columns are null)."""
    raw = json.dumps(answer.result).encode()
    table = hmyframe.dataset(name).convert([raw], ConvertContext(shard_id=0))
    want = EXPECTED[name](answer.result, None, None, answer.exact_numbers)
    got = [{k: _plain(v) for k, v in r.items()} for r in table.to_pylist()]
    assert_rows(got, want, columns=columns(name), what=f"{answer.id} {name}")


@pytest.mark.parametrize("answer", RECORDS, ids=lambda a: a.id)
@pytest.mark.parametrize("name", ["delegations", "undelegations"])
def test_every_delegation_record_parses(answer: Answer, name: str) -> None:
    raw = json.dumps(answer.result).encode()
    table = hmyframe.dataset(name).convert([raw], ConvertContext(shard_id=0))
    want = EXPECTED[name](answer.result, None, None, answer.exact_numbers)
    got = [{k: _plain(v) for k, v in r.items()} for r in table.to_pylist()]
    assert_rows(got, want, columns=columns(name), what=f"{answer.id} {name}")


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, Decimal) and value == value.to_integral_value() else value


def test_the_early_2020_format_is_among_the_answers() -> None:
    early = [a for a in INFORMATION if any("availability" in e["validator"] for e in entries(a.result))]
    assert early, "no early-2020 validator information in the corpus"
    assert {a.era for a in early} == {"2020"}
