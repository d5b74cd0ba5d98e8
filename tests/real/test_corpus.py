"""The corpus of real node answers checks itself: complete, sourced, free of placeholders, exact.

The corpus (``tests/real_corpus.py``) is the oracle other tests compare hmyframe and the devnet
with, so a hand-written example slipping into it, or a big number rounded on the way in, would
make those tests confirm a fiction. These tests keep it honest:

* every collection file parses, names its call, its source, era and network;
* nothing in it (collections and listed samples) is a placeholder or an invented value, and
  hashes and addresses have their real shapes (the detector, ``corpus_checks.py``, is tested
  here too, on what it must and must not flag);
* floats appear only in answers marked ``exact_numbers: false`` (CLI re-prints);
* ids are unique; every vendored sample is classified once, as an answer or rejected, and each
  listed one exists and names its sample's method;
* integers beyond 2**53 come out of the loader exactly, to the last digit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import corpus_checks as cc
import pytest
import real_corpus as rc

REAL = rc.REAL_DIR
SAMPLES = rc.SAMPLES_DIR
YEAR = re.compile(r"20(19|2[0-9])")
NETWORKS = {"mainnet", "testnet", "localnet"}
SAMPLES_JSON = json.loads((REAL / "samples.json").read_text())


def _collection_files() -> list[Path]:
    return [
        p
        for folder in rc.collection_folders()
        for p in sorted(folder.glob("*.json"))
        if p.name != "collection.json"
    ]


COLLECTION_FILES = _collection_files()
ANSWERS = rc.load()


def _payload(answer: rc.Answer) -> dict[str, Any]:
    return {"method": answer.method, "params": answer.params, "result": answer.result, "error": answer.error}


# --------------------------------------------------------------------------- the detector


@pytest.mark.parametrize(
    "text",
    [
        "0x...",
        "one1…",
        "<ACCESS-TOKEN>",
        "<address>",
        "{{api_key}}",
        "${RPC_URL}",
        "YOUR_API_KEY",
        "0xXXXX",
        "0x1234567890abcdef1234567890abcdef12345678",
        "0xdeadbeef",
        "0x1111111111111111111111111111111111111111",
        "0x" + "0" * 48 + "1234123412341234",  # an invented topic
        # the provider's 2026 page: a 65-digit "hash" made of a keyboard run
        "0x3c8a1f5b2d9e4076c1a8b3d5e7f9021436587a9cbdef012345678abcdef901234",
        # docs-home's edited CLI sample: not bech32
        "one188345hbsgdsgstw6eenjgxsgusgs",
        # a real address with one character changed: the checksum catches it
        "one1qku72aj98fskvge07h9j0gtfu9sdw62ucgff68",
        "0xZZ",
    ],
)
def test_detector_flags_placeholders_and_invented_values(text: str) -> None:
    assert cc.placeholder_findings({"result": text}), text


@pytest.mark.parametrize(
    "text",
    [
        "0x",
        "0x0",
        "0x5208",
        "0x0000000000000000000000000000000000000000",
        "0x0000000000000000000000000000000000000000000000000000000000000000",
        "0x910c18611575d42685a4d122a71c9d359a68c3f9786e1ca5a18c27819f8504ff",
        "0xeeeeeb57642040be42185f49c52f7e9b38f8eeee",  # a real vanity token address (mainnet-2023 logs)
        "0xffffffffffffffffffffffffffffffffffffffff",
        "one1qku72aj98fskvge07h9j0gtfu9sdw62ucgff67",
        "ONE1QKU72AJ98FSKVGE07H9J0GTFU9SDW62UCGFF67",
        "Harmony (C) 2023. harmony, version v7647-v2023.1.0-0-g09dba416 (runner@ 2023-01-26T10:25:00+0000)",
        "missing trie node d415596d6e84fb80bcce0cb183592969547169aac226fc8e58c4de28d38d9d5c (path )",
        "0.100000000000000000",
        # long data may hold bit-mask constants: not looked at for hex patterns
        "0x6080" + "55" * 40 + "deadbeef" + "11" * 30,
        "0x" + "0" * 512,
    ],
)
def test_detector_leaves_real_values_alone(text: str) -> None:
    assert cc.placeholder_findings({"result": text}) == [], text


def test_detector_walks_keys_lists_and_names_the_path() -> None:
    found = cc.placeholder_findings({"result": [{"ok": "0x0"}, {"to": "<to>"}], "...": 1})
    assert found[0].startswith("$.result[1].to: a <placeholder>")
    assert found[1].startswith("$....#key: an ellipsis")
    assert len(found) == 2


def test_bech32_checks_length_case_and_checksum() -> None:
    good = "one1gh043zc95e6mtutwy5a2zhvsxv7lnlklkj42ux"
    assert cc.bech32_valid(good)
    assert cc.bech32_valid(good.upper())
    assert not cc.bech32_valid(good[:-1] + "y")  # checksum
    assert not cc.bech32_valid(good[:-1])  # length
    assert not cc.bech32_valid("One1" + good[4:])  # mixed case
    assert not cc.bech32_valid("bnb1" + good[4:])  # another prefix


def test_shape_check_flags_wrong_hashes_and_addresses_only_under_their_keys() -> None:
    bad = {
        "transactionHash": "0x3c8a1f5b2d9e4076c1a8b3d5e7f9021436587a9cbdef012345678abcdef901234",
        "from": "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA9604",
        "to": "one1qku72aj98fskvge07h9j0gtfu9sdw62ucgff68",
    }
    assert len(cc.malformed_findings(bad)) == 3
    good = {
        "transactionHash": "0xef7ec4991840bd66569fa070ea9ab39b38a2233bbc5b3cfd272fa456e893b135",
        "blockHash": None,
        "from": "0x05b9e576453a6166232ff5cb27a169e160d7695c",
        "to": "",  # contract creation
        "miner": "one1gh043zc95e6mtutwy5a2zhvsxv7lnlklkj42ux",
        "input": "0x5f4f9286",  # not a hash key
    }
    assert cc.malformed_findings(good) == []


def test_float_paths_finds_floats_not_ints_or_bools() -> None:
    assert cc.float_paths({"a": [1, True, 10**30, {"b": 3.46e19}]}) == ["$.a[3].b: 3.46e+19"]


# ------------------------------------------------------------------------- the collections


def test_the_corpus_is_not_empty_and_spans_eras() -> None:
    assert len(COLLECTION_FILES) >= 78
    assert len(ANSWERS) >= 250
    assert {a.era for a in ANSWERS} >= {"2019", "2020", "2022", "2023", "2025"}


@pytest.mark.parametrize("path", COLLECTION_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_collection_file_parses_and_names_call_source_era_network(path: Path) -> None:
    meta = json.loads((path.parent / "collection.json").read_text())
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    method = data.get("method")
    assert isinstance(method, str), method
    assert "_" in method, method
    assert method.split("_", 1)[0] in rc.NAMESPACES, method
    assert path.name.startswith(method + "__"), "the file is named <method>__<source>.json"
    assert ("result" in data) != ("error" in data), "exactly one of result and error"
    if "error" in data:
        assert isinstance(data["error"].get("code"), int)
        assert data["error"].get("message")
    source = data.get("source", meta.get("source"))
    assert isinstance(source, str)
    assert len(source) > 10
    assert re.search(r"@[0-9a-f]{12}|github\.com/", source), f"source without a commit or URL: {source}"
    era = str(data.get("era", meta.get("era")))
    assert YEAR.fullmatch(era), era
    assert data.get("network", meta.get("network")) in NETWORKS


@pytest.mark.parametrize("answer", ANSWERS, ids=lambda a: a.id)
def test_no_placeholder_anywhere(answer: rc.Answer) -> None:
    found = cc.placeholder_findings(_payload(answer))
    echoed = set()
    if answer.id.startswith("samples/"):
        entry = SAMPLES_JSON["answers"][answer.id.removeprefix("samples/")]
        sample = json.loads((SAMPLES / answer.id.removeprefix("samples/")).read_text())
        request = json.dumps(sample.get("request")).lower()
        echoed = {value.lower() for value in entry.get("echoed_inputs", ())}
        assert all(value in request for value in echoed), "an echoed input must be in the request"
    found = [f for f in found if not any(value in f.lower() for value in echoed)]
    assert found == []


@pytest.mark.parametrize("answer", ANSWERS, ids=lambda a: a.id)
def test_hashes_and_addresses_have_real_shapes(answer: rc.Answer) -> None:
    assert cc.malformed_findings(_payload(answer)) == []


@pytest.mark.parametrize("answer", ANSWERS, ids=lambda a: a.id)
def test_floats_only_where_marked_inexact(answer: rc.Answer) -> None:
    floats = cc.float_paths(_payload(answer))
    if answer.exact_numbers:
        assert floats == [], "a node prints integers: mark a re-printed answer exact_numbers: false"
    else:
        assert any("float64" in note for note in answer.notes), "say why the numbers are inexact"


def test_ids_are_unique() -> None:
    ids = [a.id for a in ANSWERS]
    assert len(ids) == len(set(ids))
    assert rc.by_id(ids[0]) is ANSWERS[0]
    with pytest.raises(KeyError, match="no answer"):
        rc.by_id("nowhere/none.json")


# ----------------------------------------------------------------------------- the samples


def test_every_vendored_sample_is_classified_exactly_once() -> None:
    index = {entry["file"] for entry in json.loads((SAMPLES / "_index.json").read_text())}
    answers, rejected = set(SAMPLES_JSON["answers"]), set(SAMPLES_JSON["rejected"])
    assert not answers & rejected
    assert answers | rejected == index
    assert all(len(entry["reason"]) > 20 for entry in SAMPLES_JSON["rejected"].values())


@pytest.mark.parametrize("file", sorted(SAMPLES_JSON["answers"]))
def test_listed_sample_exists_and_names_its_method(file: str) -> None:
    entry = SAMPLES_JSON["answers"][file]
    sample = json.loads((SAMPLES / file).read_text())
    index = {e["file"]: e for e in json.loads((SAMPLES / "_index.json").read_text())}
    assert entry["method"] == index[file]["method"] == file.split("__", 1)[0]
    request_method = (sample.get("request") or {}).get("method")
    assert request_method in (None, entry["method"])
    assert YEAR.fullmatch(entry["era"])
    assert entry["network"] in NETWORKS
    assert re.fullmatch(r"20\d\d-\d\d-\d\d", entry["date"])
    assert entry["notes"], "say why the sample is a node's answer"
    if "harmony-test" in file:
        assert entry["network"] == "localnet"
        assert int(entry["era"]) >= 2020
        assert entry["date"] >= "2020-07-10"


def test_harmony_test_debug_replies_are_dated_2025() -> None:
    debug = [e for f, e in SAMPLES_JSON["answers"].items() if f.startswith("debug_traceCall__")]
    assert len(debug) == 10
    assert {e["era"] for e in debug} == {"2025"}


# ------------------------------------------------------------------------------- exactness


def _digits_by_path(text: str) -> dict[str, str]:
    """Every integer literal of a JSON text as written, by its path (parsed with ints as text)."""
    tagged = json.loads(text, parse_int=lambda digits: f"{digits}\0int")
    found: dict[str, str] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")
        elif isinstance(value, str) and value.endswith("\0int"):
            found[path] = value[:-4]

    walk(tagged, "$")
    return found


def _ints_by_path(value: Any, path: str = "$") -> dict[str, int]:
    found: dict[str, int] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            found.update(_ints_by_path(item, f"{path}.{key}"))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.update(_ints_by_path(item, f"{path}[{index}]"))
    elif isinstance(value, int) and not isinstance(value, bool):
        found[path] = value
    return found


def _written_prefix(answer: rc.Answer) -> tuple[Path, str]:
    """The file an answer was loaded from, and where its result (or error) sits in it."""
    folder, name = answer.id.split("/", 1)
    key = "result" if answer.has_result else "error"
    if folder != "samples":
        return REAL / folder / name, f"$.{key}"
    sample = json.loads((SAMPLES / name).read_text())
    if sample["response_part"] == "full JSON-RPC envelope":
        return SAMPLES / name, f"$.response.{key}"
    return SAMPLES / name, "$.response"


def test_every_integer_comes_out_of_the_loader_digit_for_digit() -> None:
    """Each integer the loader gives equals the digits written in the file, big ones included."""
    big = 0
    for answer in ANSWERS:
        path, prefix = _written_prefix(answer)
        written = _digits_by_path(path.read_text())
        loaded = answer.result if answer.has_result else answer.error
        for where, value in _ints_by_path(loaded).items():
            assert written[prefix + where[1:]] == str(value), f"{answer.id} {where}"
            big += abs(value) >= 2**53
    assert big >= 60  # not vacuous: dozens of integers beyond 2**53 are in the corpus


@pytest.mark.parametrize(
    ("answer_id", "path", "digits"),
    [
        (
            "samples/hmyv2_getBlockByHash__harmony-test.test_blockchain.test_get_block_by_hash_v2.json",
            ["transactions", 0, "value"],
            "100000000000000000000000",
        ),
        (
            "samples/hmy_getDelegationsByDelegator__docs-home.api.staking.hmy_getdelegationsbydelegator.json",
            [0, "reward"],
            "2474220695683427208655",
        ),
        (
            "samples/hmyv2_getValidators__harmony-test.test_staking.test_get_validators_v2.json",
            ["validators", 0, "balance"],
            "42857730340142857139",
        ),
        (
            "samples/debug_traceCall__harmony-test.test_debug.test_debug_traceCall_state_override_same_simulated_call.json",
            ["structLogs", 0, "gas"],
            "9223372036854754727",
        ),
        (
            "samples/hmy_getCurrentUtilityMetrics__harmony-test.test_staking.test_get_current_utility_metrics.json",
            ["AccumulatorSnapshot"],
            "5768000000000000000000",
        ),
    ],
)
def test_known_big_numbers_load_exactly(answer_id: str, path: list[str | int], digits: str) -> None:
    value: Any = rc.by_id(answer_id).result
    for step in path:
        value = value[step]
    assert type(value) is int
    assert str(value) == digits
    assert value >= 2**53  # beyond what a float64 holds exactly


#: Token amounts (atto) of block 42,379,341's swap logs, as decoded from the log data words.
MAINNET_LOG_AMOUNTS = {
    0: [19897679572082912228],
    3: [2446193148015440508909, 158165821856737881439131],
    9: [147282885930844314720338, 16818288518879334583107],
}


@pytest.mark.parametrize(
    "answer_id",
    [
        "mainnet-2023/hmy_getBlockReceipts__getblock-docs.json",
        "mainnet-2023/hmyv2_getBlockReceipts__getblock-docs.json",
        "mainnet-2023/eth_getBlockReceipts__getblock-docs.json",
        "mainnet-2023/hmy_getTransactionReceipt__getblock-docs.json",
        "mainnet-2023/hmyv2_getTransactionReceipt__getblock-docs.json",
        "mainnet-2023/eth_getTransactionReceipt__getblock-docs.json",
    ],
)
def test_mainnet_amounts_are_exact_to_the_last_digit_in_every_namespace(answer_id: str) -> None:
    result = rc.by_id(answer_id).result
    receipt = result[0] if isinstance(result, list) else result
    logs = receipt["logs"]
    assert len(logs) == 11
    for index, amounts in MAINNET_LOG_AMOUNTS.items():
        data = logs[index]["data"][2:]
        words = [int(data[i : i + 64], 16) for i in range(0, len(data), 64)]
        assert [w for w in words if 2**53 < w < 2**200] == amounts
        assert all(float(a) != a for a in amounts)  # none of them would survive a float64
