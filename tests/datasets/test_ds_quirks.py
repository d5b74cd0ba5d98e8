"""Hand-made payloads for every format quirk of the notes' checklist (§8) and the early-2020 format."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from ds_helpers import A1, A2, A3, BLS, as_bytes, consumed, current_validator, legacy_validator
from hypothesis import given, settings
from hypothesis import strategies as st

from hmyframe.addresses import to_hex, to_one
from hmyframe.datasets import DATASETS, ConvertContext, decode_blocks
from hmyframe.errors import ResponseShapeError

CTX = ConvertContext(shard_id=0)
H = "0x" + "11" * 32
BH = "0x" + "22" * 32
ZERO = "0x" + "00" * 32


def rows(name, payloads, ctx=CTX):
    return (
        DATASETS[name]
        .convert([as_bytes(p) if not isinstance(p, bytes) else p for p in payloads], ctx)
        .to_pylist()
    )


# --------------------------------------------------------------------------------------
# one fact, three renderings: v2 numbers, v1 hex, early-2020 v1 (hex addresses, fewer keys)
# --------------------------------------------------------------------------------------


def tx_fact(i: int, value: int, gas_price: int, frm: str, to: str | None) -> dict:
    return {
        "hash": "0x" + f"{i:064x}",
        "ethHash": "0x" + f"{i + 10**6:064x}",
        "blockHash": BH,
        "blockNumber": 7_000_000 + i // 3,
        "transactionIndex": i % 3,
        "timestamp": 1_600_000_000 + i,
        "from": frm,
        "to": to,
        "gas": 21000 + i,
        "gasPrice": gas_price,
        "nonce": i,
        "value": value,
        "input": "0x" + "ab" * (i % 4),
        "shardID": 0,
        "toShardID": i % 2,
    }


def render(fact: dict, style: str) -> dict:
    out = dict(fact)
    if style in ("v1", "legacy"):
        for k in ("blockNumber", "transactionIndex", "timestamp", "gas", "gasPrice", "nonce", "value"):
            out[k] = hex(out[k])
    if style == "v1" and fact["to"] is None:
        out["to"] = ""  # current node: "" for a contract creation
    if style == "legacy":
        out["from"] = to_hex(out["from"])
        out["to"] = None if out["to"] is None else to_hex(out["to"])
        for k in ("timestamp", "shardID", "toShardID", "ethHash"):
            del out[k]
    return out


COMMON_WITH_LEGACY = [
    "block_number",
    "block_hash",
    "transaction_index",
    "transaction_hash",
    "from_address",
    "from_address_hex",
    "to_address",
    "to_address_hex",
    "value",
    "value_one",
    "gas",
    "gas_price",
    "nonce",
    "input",
    "shard_id",
    "is_contract_creation",
]

addresses = st.binary(min_size=20, max_size=20).map(lambda b: to_one("0x" + b.hex()))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 10**30), st.integers(0, 2**70), addresses, st.one_of(st.none(), addresses)),
        min_size=1,
        max_size=8,
    )
)
def test_v1_v2_and_legacy_renderings_give_equal_values(facts):
    base = [tx_fact(i, v, g, f, t) for i, (v, g, f, t) in enumerate(facts)]
    v2 = rows("transactions", [[render(f, "v2") for f in base]])
    v1 = rows("transactions", [[render(f, "v1") for f in base]])
    legacy = rows("transactions", [[render(f, "legacy") for f in base]])
    assert v1 == v2  # every column
    for col in COMMON_WITH_LEGACY:
        assert [r[col] for r in legacy] == [r[col] for r in v2], col
    for fact, row in zip(
        sorted(base, key=lambda f: (f["blockNumber"], f["transactionIndex"], f["hash"])), v2, strict=True
    ):
        assert row["value"] == Decimal(fact["value"])  # exact to the last atto
        assert row["gas_price"] == Decimal(fact["gasPrice"])
        assert row["is_contract_creation"] is (fact["to"] is None)


def test_block_without_tx_timestamp_uses_the_block_time():
    fact = render(tx_fact(1, 5, 1, A1, A2), "legacy")
    block = {
        "number": "0x6acfc0",
        "hash": BH,
        "parentHash": H,
        "miner": "0x0b585f8daefbc68a311fbd4cb20d9174ad174016",
        "timestamp": "0x5e755a56",
        "size": "0x50c",
        "gasLimit": "0x4c4b400",
        "gasUsed": "0x5208",
        "stateRoot": H,
        "transactionsRoot": H,
        "receiptsRoot": H,
        "extraData": "0x",
        "transactions": [fact],
    }
    (tx,) = rows("transactions", [block])
    assert tx["timestamp"].timestamp() == 0x5E755A56
    (b,) = rows("blocks", [block])
    assert b["miner"] == A3
    assert b["transaction_count"] == 1
    assert b["staking_transaction_count"] is None


def test_contract_creation_from_is_hex_and_to_is_empty_or_null():
    sender_hex = "0xebcd16e8c1d8f493ba04e99a56474122d81a9c58"
    for to in ("", None):
        tx = render(tx_fact(3, 0, 1, A1, A2), "v2") | {"from": sender_hex, "to": to, "input": "0x6080"}
        (row,) = rows("transactions", [tx])
        assert row["from_address"] == A1
        assert row["from_address_hex"] == sender_hex
        assert row["to_address"] is None
        assert row["to_address_hex"] is None
        assert row["is_contract_creation"] is True


def test_miner_empty_string_is_null():
    block = {
        "number": 5,
        "hash": BH,
        "parentHash": H,
        "miner": "",
        "timestamp": 1,
        "size": 1,
        "gasLimit": 1,
        "gasUsed": 0,
        "stateRoot": H,
        "transactionsRoot": H,
        "receiptsRoot": H,
        "vrf": ZERO,
        "transactions": [],
        "stakingTransactions": [],
    }
    (row,) = rows("blocks", [block])
    assert row["miner"] is None
    assert row["miner_hex"] is None
    assert row["vrf"] is None


def test_pending_block_of_the_spec_has_null_number_and_hash():
    block = {
        "number": None, "hash": None, "nonce": None, "logsBloom": None, "parentHash": H, "miner": A1,
        "timestamp": 5, "size": 1, "gasLimit": 1, "gasUsed": 0, "stateRoot": H, "transactionsRoot": H,
        "receiptsRoot": H, "transactions": [], "stakingTransactions": [],
    }  # fmt: skip
    (row,) = rows("blocks", [block])
    assert row["block_number"] is None
    assert row["block_hash"] is None
    assert row["parent_hash"] == H


def test_hash_only_block_is_fine_for_blocks_but_not_for_transactions():
    block = {
        "number": 5, "hash": BH, "parentHash": H, "miner": A1, "timestamp": 1, "size": 1, "gasLimit": 1,
        "gasUsed": 0, "stateRoot": H, "transactionsRoot": H, "receiptsRoot": H,
        "transactions": [H], "transactionsInEthHash": [H], "stakingTransactions": [],
    }  # fmt: skip
    decoded = decode_blocks([as_bytes(block)])
    assert DATASETS["blocks"].build(decoded, CTX).column("transaction_count").to_pylist() == [1]
    with pytest.raises(
        ResponseShapeError, match=r"transactions: field 'payload\[0\]\.transactions\[0\]'.*fullTx"
    ):
        DATASETS["transactions"].build(decoded, CTX)


def test_null_payloads_give_empty_tables_with_the_schema():
    for name in ("blocks", "transactions", "traces", "validators", "cx_receipts", "shards"):
        table = DATASETS[name].convert([b"null"], CTX)
        assert table.num_rows == 0
        assert table.schema == DATASETS[name].schema
    assert DATASETS["validators"].convert([b"[]", b"[]"], CTX).num_rows == 0


def test_edit_validator_optional_fields_and_rates():
    stx = {
        "blockHash": BH, "blockNumber": 9, "from": A1, "timestamp": 1, "gas": 1, "gasPrice": 1,
        "hash": H, "nonce": 1, "transactionIndex": 0, "type": "EditValidator",
        "msg": {
            "validatorAddress": A1, "commissionRate": 0, "minSelfDelegation": None, "maxTotalDelegation": None,
            "name": "n", "website": "w", "identity": "i", "securityContact": "s", "details": "d",
            "slotPubKeyToAdd": None, "slotPubKeyToRemove": BLS, "slotKeyToAddSig": None,
        },
    }  # fmt: skip
    (row,) = rows("staking_transactions", [[stx]])
    assert row["directive"] == "EditValidator"
    assert row["commission_rate"] == 0.0
    assert row["commission_rate_dec"] == "0.000000000000000000"
    assert row["min_self_delegation"] is None
    assert row["max_total_delegation"] is None
    assert row["slot_pub_key_to_add"] is None
    assert row["slot_pub_key_to_remove"] == BLS


def test_delegate_and_collect_rewards_directives():
    base = {"blockHash": BH, "blockNumber": "0x9", "from": A2, "timestamp": "0x1", "gas": "0x1",
            "gasPrice": "0x1", "hash": H, "nonce": "0x1", "transactionIndex": "0x0"}  # fmt: skip
    delegate = base | {
        "type": "Delegate",
        "msg": {"delegatorAddress": A2, "validatorAddress": A1, "amount": "0x3635c9adc5dea00000"},
    }
    collect = base | {
        "hash": "0x" + "33" * 32,
        "transactionIndex": "0x1",
        "type": "CollectRewards",
        "msg": {"delegatorAddress": A2},
    }
    got = rows("staking_transactions", [[delegate, collect]])
    assert [r["directive"] for r in got] == ["Delegate", "CollectRewards"]
    assert got[0]["amount"] == Decimal(1000 * 10**18)
    assert got[0]["validator_address_hex"] == to_hex(A1)
    assert got[1]["amount"] is None
    assert got[1]["delegator_address"] == A2


# --------------------------------------------------------------------------------------
# traces
# --------------------------------------------------------------------------------------


def trace(**kw):
    base = {
        "blockNumber": 100, "blockHash": BH, "transactionHash": H, "transactionPosition": 2,
        "subtraces": 0, "traceAddress": [], "type": "call",
        "action": {"callType": "call", "value": "0x0", "to": to_hex(A2), "gas": "0x5208", "from": to_hex(A1), "input": "0x"},
        "result": {"output": "0x", "gasUsed": "0x5208"},
    }  # fmt: skip
    base.update(kw)
    return base


def test_trace_kinds_errors_and_addresses():
    ctx = ConvertContext(shard_id=0, tx_positions={(100, 2): "0x" + "99" * 32})
    payload = [
        trace(subtraces=3),
        trace(traceAddress=[0], action={"callType": "staticcall", "to": to_hex(A3), "gas": "0x10", "from": to_hex(A2), "input": "0x01"}),
        trace(traceAddress=[1], type="create", action={"from": to_hex(A2), "gas": "0x10", "init": "0x6080", "value": "0xde0b6b3a7640000"},
              result={"address": to_hex(A3), "code": "0x60", "gasUsed": "0x8"}),
        trace(traceAddress=[2], result=None, error="Reverted", revert="0x08c379a0"),
        trace(traceAddress=[2, 0], type="suicide", action={"refundAddress": to_hex(A1), "balance": "0x5", "address": to_hex(A3)}, result=None),
    ]  # fmt: skip
    got = rows("traces", [payload], ctx)
    assert [r["trace_index"] for r in got] == [0, 1, 2, 3, 4]
    assert [r["trace_address"] for r in got] == ["", "0", "1", "2", "2,0"]
    assert [r["trace_depth"] for r in got] == [0, 1, 1, 1, 2]
    assert {r["transaction_hash"] for r in got} == {"0x" + "99" * 32}
    static, create, failed, suicide = got[1:]
    assert static["value"] is None
    assert static["call_type"] == "staticcall"
    assert create["to_address"] == A3
    assert create["input"] == "0x6080"
    assert create["output"] == "0x60"
    assert create["value"] == Decimal(10**18)
    assert create["call_type"] is None
    assert failed["error"] == "Reverted"
    assert failed["revert"] == "0x08c379a0"
    assert failed["gas_used"] is None
    assert failed["output"] is None
    assert (suicide["from_address"], suicide["to_address"], suicide["value"]) == (A3, A1, Decimal(5))


def test_trace_block_null_and_empty():
    assert rows("traces", [b"null", b"[]"]) == []


# --------------------------------------------------------------------------------------
# validators: both formats and the key-spelling / null quirks
# --------------------------------------------------------------------------------------


def test_current_validator_all_columns():
    (v,) = rows("validators", [[current_validator()]])
    assert (v["snapshot_block"], v["snapshot_epoch"]) == (9_000_000, 203)  # from current-epoch-performance
    assert v["epoch_signing_percentage"] == 0.9
    assert (v["epoch_blocks_signed"], v["epoch_blocks_to_sign"]) == (
        90,
        100,
    )
    assert (v["lifetime_blocks_signed"], v["lifetime_blocks_to_sign"]) == (990, 1000)
    assert v["lifetime_reward"] == Decimal(10**24)
    assert v["apr"] == 0.1234
    assert v["epos_winning_stake"] == Decimal(13 * 10**23)
    assert v["booted_status"] is None
    assert v["is_banned"] is False
    assert v["bls_key_count"] == 2
    assert v["delegation_count"] == 2
    assert v["total_delegation"] == Decimal(13 * 10**27)
    (vp,) = rows("voting_power", [[current_validator()]])
    assert vp["bls_public_key"] == BLS
    assert vp["shard_id"] == 1
    assert vp["effective_stake"] == Decimal(13 * 10**23)  # .5 atto rounds half-even to the even atto
    assert vp["raw_stake"] == Decimal(13 * 10**23)
    assert (vp["group_percent"], vp["overall_percent"]) == (0.25, 0.08)
    assert vp["earned_reward"] == Decimal(123456789012345678901)
    d = {r["delegator_address"]: r for r in rows("delegations", [[current_validator()]])}
    assert d[A2]["amount"] == Decimal(12_999_999_999_999_999_999_999_999_999)  # 29 digits, exact
    assert d[A2]["undelegation_count"] == 2
    assert d[A2]["undelegating_amount"] == Decimal(6 * 10**18)
    assert d[A2]["delegation_index"] == 1
    assert d[A1]["delegation_index"] == 0
    u = rows("undelegations", [[current_validator()]])
    assert [(r["amount"], r["epoch"], r["undelegation_index"]) for r in u] == [
        (Decimal(5 * 10**18), 201, 0),
        (Decimal(10**18), 202, 1),
    ]


def test_nulls_of_the_current_format():
    entry = current_validator(**{"current-epoch-performance": None, "metrics": None, "epos-winning-stake": None,
                                 "booted-status": None, "lifetime": {"reward-accumulated": 0, "blocks": {"to-sign": 0, "signed": 0},
                                                                     "apr": "0.000000000000000000", "epoch-apr": None}})  # fmt: skip
    (v,) = rows("validators", [[entry]])
    assert v["snapshot_block"] is None
    assert v["epoch_signing_percentage"] is None
    assert rows("voting_power", [[entry]]) == []
    ctx = ConvertContext(shard_id=0, snapshot_block=5, snapshot_epoch=1)
    (v,) = rows("validators", [[entry]], ctx)
    assert (v["snapshot_block"], v["snapshot_epoch"]) == (5, 1)


def test_banned_status_of_the_current_format():
    status = "banned forever from network because was caught double-signing"
    (v,) = rows("validators", [[current_validator(**{"active-status": status, "epos-status": status})]])
    assert v["is_banned"] is True
    assert v["is_active"] is False


@pytest.mark.parametrize("spelling", ["num-blocks-to-sign", "num-of-blocks-to-sign"])
@pytest.mark.parametrize("wrapped", [True, False])
def test_legacy_validator_spellings(spelling, wrapped):
    page = json.dumps([legacy_validator(spelling, wrapped)]).encode()
    assert b"9.0005e+22" in page  # CLI-mangled float, converted through Decimal from the text
    (v,) = rows("validators", [page])
    assert (v["lifetime_blocks_signed"], v["lifetime_blocks_to_sign"]) == (77, 80)
    assert v["epoch_signing_percentage"] == 0.75
    assert v["is_active"] is True
    assert v["rate_dec"] == "0.100000000000000000"  # "0.1" padded to 18 decimals (exact)
    (d,) = rows("delegations", [page])
    assert d["amount"] == Decimal(90005 * 10**18)
    assert d["undelegating_amount"] == Decimal(10**18)
    (u,) = rows("undelegations", [page])
    assert (u["amount"], u["epoch"]) == (Decimal(10**18), 3)


def test_legacy_and_current_agree_on_shared_columns():
    """The same validator in both formats: every column both carry has equal values."""
    legacy = legacy_validator(wrapped=True)
    current = current_validator(address=A1)
    v = legacy["result"]["validator"]
    for key in ("rate", "max-rate", "max-change-rate"):
        v[key] = current["validator"][key]
    for key in ("name", "identity", "website", "security-contact", "details", "creation-height", "update-height",
                "last-epoch-in-committee", "min-self-delegation", "max-total-delegation", "bls-public-keys", "delegations"):  # fmt: skip
        v[key] = current["validator"][key]
    legacy["result"]["current-epoch-signing-percent"] = {
        "current-epoch-signed": 90,
        "current-epoch-to-sign": 100,
        "percentage": "0.900000000000000000",
    }
    v["availability"] = {"num-blocks-signed": 990, "num-blocks-to-sign": 1000}
    ctx = ConvertContext(shard_id=0, snapshot_block=9_000_000, snapshot_epoch=203)
    (a,) = rows("validators", [[legacy]], ctx)
    (b,) = rows("validators", [[current]], ctx)
    only_current = {"active_status", "epos_status", "booted_status", "is_elected", "epos_winning_stake",
                    "epos_winning_stake_one", "lifetime_reward", "lifetime_reward_one", "apr"}  # fmt: skip
    # the early-2020 format has no total-delegation: it is the exact sum of the listed delegations
    listed = sum(d["amount"] for d in current["validator"]["delegations"])
    assert a["total_delegation"] == Decimal(listed)
    assert a["total_delegation_one"] == listed / 10**18
    only_current |= {"total_delegation", "total_delegation_one"}  # b's total is the fixture's own figure
    for col in DATASETS["validators"].schema.names:
        if col in {"total_delegation", "total_delegation_one"}:
            continue
        if col in only_current:
            assert a[col] is None, col
        else:
            assert a[col] == b[col], col
    assert rows("delegations", [[legacy]], ctx) == rows("delegations", [[current]], ctx)
    assert rows("undelegations", [[legacy]], ctx) == rows("undelegations", [[current]], ctx)


def test_a_validator_repeated_across_pages_is_kept_once():
    page0 = [current_validator(A1), current_validator(A2)]
    page1 = [current_validator(A2), current_validator(A3)]  # a node numbering pages from 1 repeats a row
    decoded = DATASETS["validators"].decode([as_bytes(page0), as_bytes(page1)])
    assert decoded.duplicates == 1
    got = DATASETS["validators"].build(decoded, CTX)
    assert got.column("validator_address").to_pylist() == sorted([A1, A2, A3])
    assert DATASETS["delegations"].build(decoded, CTX).num_rows == 6


def test_delegation_record_spellings():
    record = {"validator_address": A1, "delegator_address": A2, "amount": 10**21, "reward": 5,
              "Undelegations": [{"Amount": 10**20, "Epoch": 77}]}  # fmt: skip
    (d,) = rows("delegations", [[record, record]])  # repeated record kept once
    assert d["amount"] == Decimal(10**21)
    assert d["undelegation_count"] == 1
    (u,) = rows("undelegations", [[record]])
    assert (u["amount"], u["epoch"], u["validator_address"]) == (Decimal(10**20), 77, A1)
    with pytest.raises(ResponseShapeError, match="delegation record"):
        rows("validators", [[record]])


def test_rows_come_sorted_with_pending_last():
    mined = [render(tx_fact(i, i, 1, A1, A2), "v2") for i in range(6)]
    pending = render(tx_fact(9, 1, 1, A1, A2), "v2") | {
        "blockNumber": None,
        "blockHash": ZERO,
        "transactionIndex": 0,
    }
    got = rows("transactions", [[mined[4], pending, *reversed(mined)]])
    keys = [(r["block_number"], r["transaction_index"]) for r in got]
    assert keys[:-1] == sorted(k for k in keys if k[0] is not None)
    assert keys[-1] == (None, None)
    assert len(got) == 8  # nothing dropped: the same transaction listed twice stays twice


# --------------------------------------------------------------------------------------
# validators: the column-at-a-time path for the current format and the row-by-row path agree
# --------------------------------------------------------------------------------------

_VALIDATOR_SAMPLES = [s for s, names in consumed() if "validators" in names]


def _validators_both_ways(payloads, ctx, monkeypatch):
    import hmyframe.datasets.validators as vmod

    ds = DATASETS["validators"]
    used = []
    real = vmod._current_rows

    def spy(entries, c):
        out = real(entries, c)
        used.append(out is not None)
        return out

    monkeypatch.setattr(vmod, "_current_rows", spy)
    fast = ds.convert(payloads, ctx)
    monkeypatch.setattr(vmod, "_current_rows", lambda entries, c: None)
    slow = ds.convert(payloads, ctx)
    assert fast.equals(slow)
    return used[-1]


@pytest.mark.parametrize("sample", _VALIDATOR_SAMPLES, ids=[s.file for s in _VALIDATOR_SAMPLES])
def test_validators_fast_and_row_paths_agree_on_samples(sample, monkeypatch):
    _validators_both_ways([sample.payload], ConvertContext(shard_id=0), monkeypatch)


def _with_perf(**changes):
    entry = current_validator()
    entry["current-epoch-performance"] = {**entry["current-epoch-performance"], **changes}
    return entry


@pytest.mark.parametrize(
    ("entries", "fast"),
    [
        ([current_validator(), current_validator(A2)], True),
        ([_with_perf(block="0x10")], False),
        ([current_validator(lifetime=None), current_validator(A2)], False),
        ([current_validator(**{"active-status": "inactive", "epos-status": "banned"})], True),
        ([current_validator(**{"total-delegation": None})], True),
        # out of the committee: no performance, null signing columns either way
        ([current_validator(), current_validator(A2, **{"current-epoch-performance": None})], True),
        (
            [
                current_validator(
                    **{
                        "current-epoch-performance": None,
                        "current-epoch-signing-percent": {
                            "current-epoch-signed": 1,
                            "current-epoch-to-sign": 2,
                        },
                    }
                )
            ],
            False,
        ),
    ],
)
def test_validators_fast_path_taken_only_for_the_current_format(entries, fast, monkeypatch):
    assert _validators_both_ways([as_bytes(entries)], ConvertContext(shard_id=0), monkeypatch) is fast
    ctx = ConvertContext(shard_id=0, snapshot_block=5, snapshot_epoch=1)
    _validators_both_ways([as_bytes(entries)], ctx, monkeypatch)


def test_validators_fast_path_leaves_a_negative_snapshot_block_to_the_row_path():
    bad = _with_perf(block=-1)
    with pytest.raises(ResponseShapeError, match="-1"):
        DATASETS["validators"].convert([as_bytes([bad])], ConvertContext(shard_id=0))


@pytest.mark.parametrize(
    "bad",
    [
        BLS[:47] + " " + BLS[48:],  # 96 characters, one a space (bytes.fromhex would skip it)
        BLS[:48] + " " + BLS[49:95] + "0",  # a space where a pair starts, still 96 characters
        BLS[:-1],
        BLS + "0",
        BLS[:-1] + "g",
        BLS[:-1] + "\u0663",  # an Arabic-Indic digit: str.isdigit, but not hex
        "0X" + BLS,
        7,
        None,
    ],
)
def test_validators_bad_bls_key_is_named(bad):
    entry = current_validator()
    entry["validator"]["bls-public-keys"] = [BLS, bad]
    with pytest.raises(ResponseShapeError, match="96 hex digits") as info:
        DATASETS["validators"].convert([as_bytes([entry])], CTX)
    assert repr(bad)[:20].strip("'") in str(info.value) or str(bad)[:20] in str(info.value)


def test_validators_bls_keys_of_either_case_and_prefix_pass():
    entry = current_validator()
    entry["validator"]["bls-public-keys"] = [BLS.upper(), "0x" + BLS]
    (row,) = DATASETS["validators"].convert([as_bytes([entry])], CTX).to_pylist()
    assert row["bls_public_keys"] == f"{BLS.upper()},0x{BLS}"


# --------------------------------------------------------------------------------------
# delegations / undelegations: the typed flat path and the row-by-row path agree
# --------------------------------------------------------------------------------------


def _delegations_both_ways(payloads, ctx, monkeypatch):
    """Tables (or error messages) of delegations and undelegations by the flat path, then by
    :func:`delegation_rows` alone; returns whether the flat path was taken."""
    import hmyframe.datasets._validators as vmod
    import hmyframe.datasets.delegations as dmod
    import hmyframe.datasets.undelegations as umod

    def both():
        out = []
        for name in ("delegations", "undelegations"):
            try:
                out.append(DATASETS[name].convert(payloads, ctx))
            except ResponseShapeError as exc:
                out.append(str(exc))
        return out

    taken = []

    def spy(decoded, c, what):
        flat = vmod.flat_delegations(decoded, c, what)
        taken.append(flat is not None)
        return flat

    monkeypatch.setattr(dmod, "flat_delegations", spy)
    monkeypatch.setattr(umod, "flat_delegations", spy)
    fast = both()
    monkeypatch.setattr(dmod, "flat_delegations", lambda decoded, c, what: None)
    monkeypatch.setattr(umod, "flat_delegations", lambda decoded, c, what: None)
    slow = both()
    for a, b in zip(fast, slow, strict=True):
        assert a == b if isinstance(a, str) else a.equals(b), (a, b)
    return any(taken), fast


@pytest.mark.parametrize("sample", _VALIDATOR_SAMPLES, ids=[s.file for s in _VALIDATOR_SAMPLES])
def test_delegations_flat_and_row_paths_agree_on_samples(sample, monkeypatch):
    _delegations_both_ways([sample.payload], ConvertContext(shard_id=0), monkeypatch)


def _with_delegation(**changes):
    entry = current_validator()
    delegation = {**entry["validator"]["delegations"][1], **changes}
    entry["validator"] = {
        **entry["validator"],
        "delegations": [entry["validator"]["delegations"][0], delegation],
    }
    return entry


@pytest.mark.parametrize(
    ("entries", "flat", "error"),
    [
        ([current_validator(), current_validator(A2)], True, None),
        ([current_validator(), {**current_validator(A2), "current-epoch-performance": None}], True, None),
        # another spelling of a member: the row path picks it
        ([_with_delegation(Amount=5, amount=None)], True, "delegations[1].amount"),
        (
            [{**current_validator(), "validator": {**current_validator()["validator"], "delegations": None}}],
            False,
            None,
        ),
        ([_with_delegation(undelegations=None)], True, None),
        # bad values are named alike, with the delegation's path
        ([_with_delegation(amount="12x")], True, "payload[0][0].validator.delegations[1].amount"),
        ([_with_delegation(reward=-1)], True, "payload[0][0].validator.delegations[1].reward"),
        (
            [_with_delegation(undelegations=[{"amount": "x", "epoch": 1}])],
            True,
            "delegations[1].undelegations[0].amount",
        ),
        (
            [_with_delegation(undelegations=[7])],
            True,
            "payload[0][0].validator.delegations[1].undelegations[0]",
        ),
        (
            [_with_delegation(undelegations="no")],
            True,
            "payload[0][0].validator.delegations[1].undelegations",
        ),
        ([_with_delegation(**{"delegator-address": "one1nope"})], True, "delegations[1].delegator-address"),
        ([_with_perf(block="0xzz")], True, "current-epoch-performance.block"),
    ],
)
def test_delegations_flat_path_keeps_the_row_paths_rows_and_messages(entries, flat, error, monkeypatch):
    for ctx in (ConvertContext(shard_id=0), ConvertContext(shard_id=0, snapshot_block=5, snapshot_epoch=1)):
        taken, out = _delegations_both_ways([as_bytes(entries)], ctx, monkeypatch)
        messages = [o for o in out if isinstance(o, str)]
        if error is None:
            assert not messages
        elif ctx.snapshot_block is None or "performance" not in error:
            assert messages
            assert any(error in m for m in messages), messages
    assert taken is flat


def test_delegations_other_spellings_take_the_row_path(monkeypatch):
    entry = current_validator()
    entry["validator"]["delegations"] = [
        {
            "delegator_address": A2,
            "Amount": 3 * 10**18,
            "Reward": 1,
            "Undelegations": [{"Amount": 10**18, "Epoch": 9}],
        }
    ]
    taken, (delegations, undelegations) = _delegations_both_ways(
        [as_bytes([entry])], ConvertContext(shard_id=0), monkeypatch
    )
    assert not taken
    assert delegations["amount"].to_pylist() == [3 * 10**18]
    assert undelegations["epoch"].to_pylist() == [9]
