"""Malformed payloads raise ResponseShapeError naming the dataset, the field and the value;
random payloads (random JSON and mutations of real samples) raise nothing but HmyframeError."""

from __future__ import annotations

import copy
import json
import random

import pytest
from ds_helpers import as_bytes, consumed, load
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hmyframe.datasets import DATASETS, ConvertContext, decode_blocks, get
from hmyframe.errors import ConfigError, HmyframeError, ResponseShapeError

CTX = ConvertContext(
    shard_id=0, block_numbers=[3] * 8, addresses_blocks=[("one1rgl8538wyygp6ltyl0efkrm0rlpftaertskl80", 1)]
)
TX_V2 = load(
    "hmyv2_getTransactionByHash__harmony-test.test_transaction.test_get_transaction_by_hash_v2.json"
).result
BLOCK_V2 = load("hmyv2_getBlockByHash__harmony-test.test_blockchain.test_get_block_by_hash_v2.json").result
VALIDATOR = load(
    "hmyv2_getAllValidatorInformation__harmony-test.test_staking.test_get_all_validator_information.json"
).result


def with_(obj, **changes):
    out = copy.deepcopy(obj)
    for key, value in changes.items():
        if value is ...:
            del out[key]
        else:
            out[key] = value
    return out


@pytest.mark.parametrize(
    ("dataset", "payload", "field", "shown", "expected"),
    [
        ("transactions", with_(TX_V2, hash=...), "payload[0].hash", "None", "missing or null"),
        ("transactions", with_(TX_V2, value=[1]), "payload[0].value", "[1]", "integer"),
        ("transactions", with_(TX_V2, value="0xZZ"), "payload[0].value", "'0xZZ'", "integer"),
        ("transactions", with_(TX_V2, value=-5), "payload[0].value", "-5", "non-negative"),
        ("transactions", with_(TX_V2, value=10**38), "payload[0].value", str(10**38), "38 decimal digits"),
        ("transactions", with_(TX_V2, gas=1.5), "payload[0].gas", "Decimal('1.5')", "whole number"),
        ("transactions", with_(TX_V2, hash=12), "payload[0].hash", "12", "str | null (got int)"),
        ("transactions", with_(TX_V2, hash="0x1234"), "payload[0].hash", "'0x1234'", "32-byte hex hash"),
        ("transactions", with_(TX_V2, input="zz"), "payload[0].input", "'zz'", "hex data"),
        (
            "transactions",
            with_(TX_V2, **{"from": "one1zksj3evekayy90xt4psrz8h6j2v3hla4qwz4uq"}),
            "payload[0].from",
            "one1zksj3evekayy90xt4psrz8h6j2v3hla4qwz4uq",
            "bad bech32 checksum",
        ),
        ("transactions", with_(TX_V2, blockNumber=2**64), "payload[0].blockNumber", str(2**64), "int64"),
        ("transactions", with_(TX_V2, shardID="x"), "payload[0].shardID", "'x'", "integer"),
        (
            "transactions",
            with_(BLOCK_V2, transactions=[with_(TX_V2, gasPrice=None)]),
            "payload[0].transactions[0].gasPrice",
            "None",
            "missing or null",
        ),
        ("blocks", with_(BLOCK_V2, number="latest"), "payload[0].number", "'latest'", "integer"),
        ("blocks", with_(BLOCK_V2, transactions=5), "payload[0].transactions", "5", "array"),
        ("blocks", with_(BLOCK_V2, miner="0xnothex"), "payload[0].miner", "0xnothex", "valid address"),
        ("blocks", {"foo": 1}, "payload[0]", "{}", "block, transaction or staking transaction"),
        ("blocks", 17, "payload[0]", "17", "got int"),
        (
            "validators",
            [with_(VALIDATOR[0], validator=with_(VALIDATOR[0]["validator"], rate="ten percent"))],
            "payload[0][0].validator.rate",
            "'ten percent'",
            "decimal string",
        ),
        (
            "validators",
            [with_(VALIDATOR[0], validator=with_(VALIDATOR[0]["validator"], address="one1nope"))],
            "payload[0][0].validator.address",
            "one1nope",
            "valid address",
        ),
        ("validators", [with_(VALIDATOR[0], lifetime=[])], "payload[0][0].lifetime", "[]", "JSON object"),
        ("validators", "page", "payload[0]", "'page'", "array of validator"),
        (
            "delegations",
            [with_(VALIDATOR[0], validator=with_(VALIDATOR[0]["validator"], delegations=[{"amount": 1}]))],
            "payload[0][0].validator.delegations[0].delegator-address",
            "None",
            "address",
        ),
        ("traces", [{"blockNumber": 1}], "payload[0][0].transactionPosition", "None", "missing or null"),
        ("traces", {"not": "a list"}, "payload[0]", "{'not': 'a list'}", "array"),
        ("cx_receipts", [{"receipts": "x"}], "payload[0][0].receipts", "'x'", "JSON array"),
        ("shards", [{"shardID": -1}], "payload[0][0].shardID", "-1", "non-negative"),
        ("tx_counts", "0xgg", "payload[0]", "'0xgg'", "integer"),
    ],
)
def test_malformed_payload_names_dataset_field_and_value(dataset, payload, field, shown, expected):
    with pytest.raises(ResponseShapeError) as info:
        DATASETS[dataset].convert([as_bytes(payload)], CTX)
    err = info.value
    assert err.what == dataset
    assert err.field == field
    assert shown in str(err)
    assert expected in err.expected


def test_garbage_bytes():
    for name in DATASETS:
        with pytest.raises(ResponseShapeError, match=rf"^{name}: field 'payload\[1\]'.*valid JSON"):
            DATASETS[name].convert([b"null", b"{not json"], CTX)


def test_caller_mistakes_are_config_errors():
    with pytest.raises(ConfigError, match="valid names: blocks, transactions"):
        get("block")
    with pytest.raises(ConfigError, match="sequence of bytes"):
        DATASETS["blocks"].convert(b"{}", CTX)
    with pytest.raises(ConfigError, match=r"payloads\[0\] must be bytes"):
        DATASETS["blocks"].convert([{"number": 1}], CTX)
    with pytest.raises(ConfigError, match="DecodedBlocks"):
        DATASETS["transactions"].build(DATASETS["traces"].decode([b"[]"]), CTX)
    with pytest.raises(ConfigError, match="shard_id"):
        ConvertContext(shard_id=-1)
    with pytest.raises(ConfigError, match="ConvertContext"):
        DATASETS["blocks"].build(decode_blocks([b"null"]), {"shard_id": 0})
    with pytest.raises(ConfigError, match="one \\(address, block\\) per payload"):
        DATASETS["tx_counts"].convert([b"1", b"2"], CTX)
    with pytest.raises(ConfigError, match="invalid address"):
        DATASETS["tx_counts"].convert([b"1"], ConvertContext(shard_id=0, addresses_blocks=[("one1bad", 1)]))


# --------------------------------------------------------------------------------------
# property-based: nothing but HmyframeError escapes
# --------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=50)
    | st.sampled_from(
        ["0x", "0x1f", "0x" + "ab" * 32, "one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9", "", "1e999"]
    ),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=6)
    ),
    max_leaves=30,
)
KEYS = sorted(
    {
        *TX_V2,
        *BLOCK_V2,
        *VALIDATOR[0],
        *VALIDATOR[0]["validator"],
        "metrics",
        "action",
        "result",
        "traceAddress",
        "receipts",
        "msg",
        "type",
        "signers",
        "stakingTransactions",
        "staking_transactions",
        "Undelegations",
        "jsonrpc",
    }
)
keyed_objects = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=10)


def _convert_all(payloads: list[bytes]) -> None:
    for name, ds in DATASETS.items():
        ctx = ConvertContext(
            shard_id=0,
            block_numbers=[1] * len(payloads),
            addresses_blocks=[("one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9", 1)] * len(payloads),
            requested_tx_hash=None,
        )
        try:
            ds.convert(payloads, ctx)
        except HmyframeError:
            pass
        except Exception as exc:  # pragma: no cover - the failure report
            raise AssertionError(f"{name} let {type(exc).__name__} escape: {exc}") from exc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(json_values | keyed_objects | st.lists(keyed_objects, max_size=4), min_size=1, max_size=3))
def test_random_json_raises_only_hmyframe_errors(values):
    _convert_all([json.dumps(v).encode() for v in values])


SAMPLES = [s for s, _ in consumed()]


def _mutate(node, rnd: random.Random, pool) -> object:
    """Replace, delete or retype one random member somewhere in the JSON tree."""
    if isinstance(node, dict) and node:
        key = rnd.choice(sorted(node))
        choice = rnd.random()
        if choice < 0.25:
            del node[key]
        elif choice < 0.6 and isinstance(node[key], (dict, list)) and node[key]:
            _mutate(node[key], rnd, pool)
        else:
            node[key] = copy.deepcopy(rnd.choice(pool))
    elif isinstance(node, list) and node:
        i = rnd.randrange(len(node))
        if isinstance(node[i], (dict, list)) and node[i] and rnd.random() < 0.7:
            _mutate(node[i], rnd, pool)
        else:
            node[i] = copy.deepcopy(rnd.choice(pool))
    return node


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(range(len(SAMPLES))), st.integers(0, 2**32), st.lists(json_values, min_size=1, max_size=4)
)
def test_mutated_samples_raise_only_hmyframe_errors(which, seed, pool):
    rnd = random.Random(seed)
    result = copy.deepcopy(SAMPLES[which].result)
    for _ in range(rnd.randint(1, 3)):
        result = _mutate(result, rnd, [*pool, None, "", "0x", -1, 2**130, [], {}, "one1x"])
    _convert_all([json.dumps(result).encode()])
