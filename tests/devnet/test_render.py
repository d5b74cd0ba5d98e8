"""Unit tests of the devnet renderer on hand-built model objects (no chain, no HTTP)."""

from __future__ import annotations

import base64
import json
from decimal import Decimal

import pytest

from hmyframe.devnet.model import (
    ZERO_HASH,
    Block,
    BlsKeyMetric,
    CxProof,
    CxReceipt,
    Delegation,
    StakingTransaction,
    TraceFrame,
    Transaction,
    Undelegation,
    ValidatorSnapshot,
)
from hmyframe.devnet.render import (
    EMPTY_BLOOM,
    BlockCache,
    block_obj,
    cx_proof_obj,
    dec18,
    encode,
    legacy_validator_obj,
    sharding_structure_obj,
    staking_transaction_obj,
    trace_objs,
    transaction_obj,
    validator_obj,
    wrap_legacy_validators,
)
from hmyframe.errors import ConfigError

A1 = "0xebcd16e8c1d8f493ba04e99a56474122d81a9c58"
A1_ONE = "one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9"
A2 = "0x1f2213a52f7409ff4f103458e6d202e0b3aa805a"
A2_ONE = "one1ru3p8ff0wsyl7ncsx3vwd5szuze64qz60upg37"
BIG = 100000000000000000000000  # 1e23 > 2**64


def h(n: int) -> str:
    return "0x" + f"{n:064x}"


def make_tx(**over: object) -> Transaction:
    fields: dict[str, object] = {
        "hash": h(1),
        "eth_hash": h(2),
        "shard_id": 0,
        "to_shard_id": 1,
        "block_number": 26,
        "block_hash": h(100),
        "index": 3,
        "timestamp": 1_767_225_652,
        "sender": A1,
        "to": A2,
        "value": BIG,
        "gas": 21000,
        "gas_price": 30_000_000_000,
        "nonce": 9,
        "input": "0x",
        "v": 0x28,
        "r": 0x76B6130BC018CEDB9F8891343FD8982E0D7F923D57EA5250B8BFEC9129D4AE22,
        "s": 0x0FBC01C988D72235B4C71B21CE033D4FC5F82C96710B84685DE0578CFF075A0A,
        "gas_used": 21000,
    }
    fields.update(over)
    return Transaction(**fields)  # type: ignore[arg-type]


def make_stx(directive: str = "Delegate", msg: dict[str, object] | None = None) -> StakingTransaction:
    return StakingTransaction(
        hash=h(7),
        block_number=26,
        block_hash=h(100),
        index=0,
        timestamp=1_767_225_652,
        sender=A1,
        nonce=2,
        gas=5_000_000,
        gas_price=1_000_000_000,
        v=0x27,
        r=0x1234,
        s=0x5678,
        directive=directive,  # type: ignore[arg-type]
        msg=msg if msg is not None else {"delegatorAddress": A1, "validatorAddress": A2, "amount": BIG},
    )


def make_block(txs: tuple[Transaction, ...] = (), stxs: tuple[StakingTransaction, ...] = ()) -> Block:
    return Block(
        shard_id=0,
        number=26,
        hash=h(100),
        parent_hash=h(99),
        timestamp=1_767_225_652,
        epoch=1,
        view_id=27,
        leader=A1,
        size=1239,
        gas_limit=80_000_000,
        gas_used=105_000,
        state_root=h(5),
        transactions_root=h(6),
        receipts_root=h(8),
        extra_data="0x",
        vrf=ZERO_HASH,
        vrf_proof="0x",
        transactions=txs,
        staking_transactions=stxs,
    )


def make_validator(**over: object) -> ValidatorSnapshot:
    fields: dict[str, object] = {
        "snapshot_block": 390,
        "snapshot_epoch": 1,
        "address": A1,
        "name": "alice",
        "identity": "alice-id",
        "website": "https://alice.example",
        "security_contact": "alice@example",
        "details": "first",
        "bls_keys": ("ab" * 48,),
        "rate": Decimal("0.1"),
        "max_rate": Decimal("0.9"),
        "max_change_rate": Decimal("0.05"),
        "min_self_delegation": 10**22,
        "max_total_delegation": 10**25,
        "update_height": 4,
        "creation_height": 4,
        "last_epoch_in_committee": 1,
        "delegations": (
            Delegation(A1, 10**22, 5 * 10**18, (Undelegation(10**18, 3),)),
            Delegation(A2, 3 * 10**21, 0),
        ),
        "total_delegation": 13 * 10**21,
        "currently_in_committee": True,
        "epos_status": "currently elected",
        "epos_winning_stake": Decimal("13000000000000000000000"),
        "booted_status": "not booted",
        "active_status": "active",
        "banned": False,
        "current_epoch_signed": 10,
        "current_epoch_to_sign": 12,
        "current_epoch_signing_percentage": Decimal("0.833333333333333333"),
        "lifetime_signed": 300,
        "lifetime_to_sign": 320,
        "reward_accumulated": 7 * 10**20,
        "apr": Decimal("0.12"),
        "epoch_apr": ((0, Decimal("0.1")), (1, Decimal("0.14"))),
        "metrics": (
            BlsKeyMetric(
                "ab" * 48,
                0,
                Decimal("0.25"),
                Decimal("0.08"),
                Decimal("13000000000000000000000"),
                Decimal("13000000000000000000000"),
                10**19,
            ),
        ),
        "epoch_blocks": ((0, 100, 99), (1, 12, 10)),
    }
    fields.update(over)
    return ValidatorSnapshot(**fields)  # type: ignore[arg-type]


# -- bech32 ----------------------------------------------------------------------------------


# -- scalars ---------------------------------------------------------------------------------


def test_dec18_is_exact_with_18_decimals() -> None:
    assert dec18(Decimal("0.1")) == "0.100000000000000000"
    assert dec18(Decimal("25415000000000000000")) == "25415000000000000000.000000000000000000"
    assert dec18(Decimal("123456789012345678901234567890.123456789012345678")) == (
        "123456789012345678901234567890.123456789012345678"
    )
    assert dec18(0) == "0.000000000000000000"


def test_big_integers_encode_as_bare_digits() -> None:
    data = encode({"v": 10**40, "w": [BIG]})
    assert data == b'{"v":10000000000000000000000000000000000000000,"w":[100000000000000000000000]}'
    assert json.loads(data)["v"] == 10**40


# -- transactions ----------------------------------------------------------------------------

CURRENT_TX_KEYS = [
    "blockHash", "blockNumber", "from", "timestamp", "gas", "gasPrice", "hash", "ethHash", "input",
    "nonce", "to", "transactionIndex", "value", "shardID", "toShardID", "v", "r", "s",
]  # fmt: skip


def test_current_v1_transaction() -> None:
    obj = transaction_obj(make_tx(), gen=1)
    assert list(obj) == CURRENT_TX_KEYS
    assert obj["value"] == hex(BIG) == "0x152d02c7e14af6800000"
    assert obj["blockNumber"] == "0x1a"
    assert obj["nonce"] == "0x9"
    assert obj["transactionIndex"] == "0x3"
    assert obj["from"] == A1_ONE
    assert obj["to"] == A2_ONE
    assert obj["shardID"] == 0
    assert obj["toShardID"] == 1
    assert obj["v"] == "0x28"
    assert obj["s"].startswith("0xfbc01c98")
    assert obj["ethHash"] == h(2)
    assert obj["hash"] == h(1)


def test_current_v2_transaction_numbers_and_sorted_variant() -> None:
    obj = transaction_obj(make_tx(), gen=2)
    assert obj["value"] == BIG
    assert obj["gasPrice"] == 30_000_000_000
    assert obj["timestamp"] == 1_767_225_652
    assert obj["v"] == "0x28"  # v/r/s stay hex in v2
    sorted_obj = transaction_obj(make_tx(), gen=2, sort_keys=True)
    assert list(sorted_obj) == sorted(CURRENT_TX_KEYS)
    assert b'"value":100000000000000000000000' in encode(obj)


def test_contract_creation_current_and_legacy() -> None:
    tx = make_tx(to=None, sender="0xEBCD16E8C1D8F493BA04E99A56474122D81A9C58", contract_address=A2)
    cur = transaction_obj(tx, gen=2)
    assert cur["to"] == ""
    assert cur["from"] == A1
    assert transaction_obj(tx, gen=1)["from"] == A1
    legacy1 = transaction_obj(tx, gen=1, profile="legacy")
    assert legacy1["to"] is None
    assert legacy1["from"] == A1
    legacy2 = transaction_obj(tx, gen=2, profile="legacy")
    assert legacy2["to"] is None
    assert legacy2["from"] == A1_ONE


def test_legacy_transactions() -> None:
    v1 = transaction_obj(make_tx(), gen=1, profile="legacy")
    assert list(v1) == [
        "blockHash", "blockNumber", "from", "gas", "gasPrice", "hash", "input", "nonce", "to",
        "transactionIndex", "value", "v", "r", "s",
    ]  # fmt: skip
    assert v1["from"] == A1
    assert v1["to"] == A2
    assert v1["value"] == hex(BIG)
    v2 = transaction_obj(make_tx(), gen=2, profile="legacy")
    assert "ethHash" not in v2
    assert v2["shardID"] == 0
    assert v2["toShardID"] == 1
    assert v2["from"] == A1_ONE
    assert v2["timestamp"] == 1_767_225_652


# -- staking transactions ----------------------------------------------------------------------

STX_KEYS = [
    "blockHash", "blockNumber", "from", "timestamp", "gas", "gasPrice", "hash", "nonce",
    "transactionIndex", "v", "r", "s", "type", "msg",
]  # fmt: skip


def test_staking_delegate_v1_hex_v2_numbers() -> None:
    v1 = staking_transaction_obj(make_stx(), gen=1)
    assert list(v1) == STX_KEYS
    assert v1["msg"] == {"delegatorAddress": A1_ONE, "validatorAddress": A2_ONE, "amount": hex(BIG)}
    v2 = staking_transaction_obj(make_stx(), gen=2)
    assert v2["msg"]["amount"] == BIG
    assert v2["type"] == "Delegate"
    assert v2["from"] == A1_ONE


def test_create_validator_msg_order_rates_and_sigs() -> None:
    msg: dict[str, object] = {
        "validatorAddress": A1,
        "commissionRate": 10**17,
        "maxCommissionRate": 9 * 10**17,
        "maxChangeRate": 5 * 10**16,
        "minSelfDelegation": 10**22,
        "maxTotalDelegation": 10**25,
        "amount": 10**22,
        "name": "alice",
        "website": "w",
        "identity": "i",
        "securityContact": "s",
        "details": "d",
        "slotPubKeys": ["ab" * 48, "cd" * 48],
    }
    v1 = staking_transaction_obj(make_stx("CreateValidator", msg), gen=1)["msg"]
    assert next(iter(v1)) == "validatorAddress"
    assert list(v1)[-1] == "slotPubKeys"
    assert v1["commissionRate"] == "0x16345785d8a0000"  # 0.1 as the raw 1e18-scaled integer
    assert "slotKeySigs" not in v1
    v2 = staking_transaction_obj(make_stx("CreateValidator", msg), gen=2)["msg"]
    assert v2["commissionRate"] == 100000000000000000
    sigs = v2["slotKeySigs"]
    assert len(sigs) == 2
    assert all(len(s) == 96 and all(0 <= b < 256 for b in s) for s in sigs)


def test_edit_validator_nulls() -> None:
    msg: dict[str, object] = {
        "validatorAddress": A1,
        "commissionRate": 0,
        "minSelfDelegation": None,
        "maxTotalDelegation": None,
        "name": "n",
        "website": "w",
        "identity": "i",
        "securityContact": "s",
        "details": "d",
        "slotPubKeyToAdd": None,
        "slotPubKeyToRemove": None,
    }
    v1 = staking_transaction_obj(make_stx("EditValidator", msg), gen=1)["msg"]
    assert v1["commissionRate"] == "0x0"
    assert v1["minSelfDelegation"] is None
    v2 = staking_transaction_obj(make_stx("EditValidator", msg), gen=2)["msg"]
    assert v2["slotKeyToAddSig"] is None
    assert v2["maxTotalDelegation"] is None


def test_collect_rewards_and_unknown_directive() -> None:
    obj = staking_transaction_obj(make_stx("CollectRewards", {"delegatorAddress": A2}), gen=2)
    assert obj["msg"] == {"delegatorAddress": A2_ONE}
    with pytest.raises(ConfigError, match="Stake"):
        staking_transaction_obj(make_stx("Stake", {}), gen=2)


# -- blocks ----------------------------------------------------------------------------------

CURRENT_BLOCK_HEAD = [
    "number", "viewID", "epoch", "hash", "parentHash", "nonce", "mixHash", "logsBloom", "stateRoot",
    "miner", "difficulty", "extraData", "size", "gasLimit", "gasUsed", "vrf", "vrfProof", "timestamp",
    "transactionsRoot", "receiptsRoot", "uncles",
]  # fmt: skip


def test_current_block_hash_only_variant() -> None:
    block = make_block((make_tx(),), (make_stx(),))
    obj = block_obj(block, gen=1, full_tx=False, incl_staking=True)
    assert list(obj) == [*CURRENT_BLOCK_HEAD, "transactions", "transactionsInEthHash", "stakingTransactions"]
    assert obj["nonce"] == 0
    assert obj["difficulty"] == 0
    assert obj["number"] == "0x1a"
    assert obj["viewID"] == "0x1b"
    assert obj["epoch"] == "0x1"
    assert obj["miner"] == A1_ONE
    assert obj["logsBloom"] == EMPTY_BLOOM
    assert obj["transactions"] == [h(1)]
    assert obj["transactionsInEthHash"] == [h(2)]
    assert obj["stakingTransactions"] == [h(7)]


def test_current_block_full_and_staking_flags() -> None:
    block = make_block((make_tx(),), (make_stx(),))
    full = block_obj(block, gen=2, full_tx=True, incl_staking=False)
    assert "transactionsInEthHash" not in full
    assert full["stakingTransactions"] == []  # always present
    assert full["transactions"][0]["value"] == BIG
    assert full["number"] == 26
    with_staking = block_obj(block, gen=2, full_tx=True, incl_staking=True)
    assert with_staking["stakingTransactions"][0]["msg"]["amount"] == BIG
    assert "signers" not in with_staking


def test_current_signers_omitted_when_empty() -> None:
    block = make_block()
    assert block_obj(block, gen=2, signers=[A1, A2])["signers"] == [A1_ONE, A2_ONE]
    assert "signers" not in block_obj(block, gen=2, signers=[])


def test_current_miner_empty_when_no_leader() -> None:
    from dataclasses import replace

    assert block_obj(replace(make_block(), leader=""), gen=2)["miner"] == ""


def test_legacy_block_shapes() -> None:
    block = make_block((make_tx(),), (make_stx(),))
    hashes = block_obj(block, gen=1, profile="legacy", full_tx=False, incl_staking=False)
    assert list(hashes) == sorted(hashes)
    for key in (
        "viewID",
        "epoch",
        "vrf",
        "vrfProof",
        "transactionsInEthHash",
        "transactions",
        "stakingTransactions",
    ):
        assert key not in hashes
    assert hashes["miner"] == A1
    staking = block_obj(block, gen=2, profile="legacy", full_tx=False, incl_staking=True, signers=[])
    assert staking["stakingTransactions"] == [h(7)]
    assert staking["signers"] == []
    assert list(staking) == sorted(staking)
    full = block_obj(block, gen=1, profile="legacy", full_tx=True, incl_staking=True)
    assert full["transactions"][0]["from"] == A1
    assert "timestamp" not in full["transactions"][0]


# -- validators ------------------------------------------------------------------------------


def test_current_validator_format_and_order() -> None:
    obj = validator_obj(make_validator())
    assert list(obj) == [
        "validator", "current-epoch-performance", "metrics", "total-delegation", "currently-in-committee",
        "epos-status", "epos-winning-stake", "booted-status", "active-status", "lifetime",
    ]  # fmt: skip
    v = obj["validator"]
    assert next(iter(v)) == "bls-public-keys"
    assert list(v)[-2:] == ["address", "delegations"]
    assert v["address"] == A1_ONE
    assert v["rate"] == "0.100000000000000000"
    assert v["min-self-delegation"] == 10**22
    assert v["delegations"][0] == {
        "delegator-address": A1_ONE,
        "amount": 10**22,
        "reward": 5 * 10**18,
        "undelegations": [{"amount": 10**18, "epoch": 3}],
    }
    perf = obj["current-epoch-performance"]
    assert perf["epoch"] == 1
    assert perf["block"] == 390
    assert perf["current-epoch-signing-percent"]["current-epoch-signing-percentage"] == "0.833333333333333333"
    key = obj["metrics"]["by-bls-key"][0]
    assert key["key"]["earning-account"] == A1_ONE
    assert key["key"]["group-percent"] == "0.250000000000000000"
    assert key["earned-reward"] == 10**19
    life = obj["lifetime"]
    assert life["blocks"] == {"to-sign": 320, "signed": 300}
    assert life["epoch-apr"] == [
        {"epoch": 0, "apr": "0.100000000000000000"},
        {"epoch": 1, "apr": "0.140000000000000000"},
    ]
    assert life["epoch-blocks"][1] == {"epoch": 1, "blocks": {"to-sign": 12, "signed": 10}}


def test_current_validator_null_cases() -> None:
    obj = validator_obj(
        make_validator(
            currently_in_committee=False,
            metrics=None,
            epos_winning_stake=None,
            booted_status=None,
            epoch_apr=None,
            epoch_blocks=None,
        )
    )
    assert obj["current-epoch-performance"] is None
    assert obj["metrics"] is None
    assert obj["epos-winning-stake"] is None
    assert obj["booted-status"] is None
    assert obj["lifetime"]["epoch-apr"] is None
    assert obj["lifetime"]["epoch-blocks"] is None
    assert b'"metrics":null' in encode(obj)


def test_legacy_validator_format() -> None:
    snap = make_validator()
    new = legacy_validator_obj(snap, old_availability_key=False)
    old = legacy_validator_obj(snap, old_availability_key=True)
    assert list(new) == ["current-epoch-signing-percent", "current-epoch-voting-power", "validator"]
    assert new["current-epoch-signing-percent"] == {
        "current-epoch-signed": 10,
        "current-epoch-to-sign": 12,
        "percentage": "0.833333333333333333",
    }
    assert new["current-epoch-voting-power"] == [
        {
            "effective-stake": "13000000000000000000000.000000000000000000",
            "shard-id": 0,
            "voting-power-adjusted": "0.080000000000000000",
            "voting-power-raw": "0.250000000000000000",
        }
    ]
    v = new["validator"]
    assert list(v) == sorted(v)
    assert v["active"] is True
    assert v["banned"] is False
    assert v["availability"] == {"num-blocks-signed": 300, "num-blocks-to-sign": 320}
    assert old["validator"]["availability"] == {"num-blocks-signed": 300, "num-of-blocks-to-sign": 320}
    assert v["max-total-delegation"] == 10**25
    assert list(v["delegations"][0]) == ["amount", "delegator-address", "reward", "undelegations"]
    wrapped = wrap_legacy_validators([new, old])
    assert [w["id"] for w in wrapped] == ["0", "1"]
    assert wrapped[1]["result"] is old
    assert all(w["jsonrpc"] == "2.0" for w in wrapped)


def test_legacy_validator_without_metrics_and_inactive() -> None:
    obj = legacy_validator_obj(
        make_validator(metrics=None, active_status="inactive"), old_availability_key=False
    )
    assert obj["current-epoch-voting-power"] == []
    assert obj["validator"]["active"] is False


# -- cx proofs, sharding ---------------------------------------------------------------------


def test_cx_proof_shape() -> None:
    proof = CxProof(
        receipts=(CxReceipt(h(11), A1, A2, 1, 0, 5 * 10**20),),
        header=make_block(),
        shard_ids=(0,),
        shard_hashes=(h(12),),
        receipt_hash=h(13),
        commit_sig=bytes(range(96)),
        commit_bitmap=b"?",
    )
    obj = cx_proof_obj(proof)
    assert list(obj) == ["receipts", "merkleProof", "header", "commitSig", "commitBitmap"]
    assert obj["receipts"][0] == {
        "txHash": h(11),
        "from": A1_ONE,
        "to": A2_ONE,
        "shardID": 1,
        "toShardID": 0,
        "amount": 5 * 10**20,
    }
    assert obj["merkleProof"] == {
        "blockNum": 26,
        "blockHash": h(100),
        "shardID": 0,
        "receiptHash": h(13),
        "shardIDs": [0],
        "shardHashes": [h(12)],
    }
    header = obj["header"]
    assert header["number"] == "0x1a"
    assert header["viewID"] == 27
    assert header["epoch"] == 1
    assert header["miner"] == A1
    assert header["shardID"] == 0
    assert obj["commitBitmap"] == "Pw=="
    assert base64.b64decode(obj["commitSig"]) == bytes(range(96))


def test_sharding_structure() -> None:
    obj = sharding_structure_obj(["http://a:1", "http://a:3"], ["ws://a:1", "ws://a:3"], current=1)
    assert obj == [
        {"current": False, "http": "http://a:1", "shardID": 0, "ws": "ws://a:1"},
        {"current": True, "http": "http://a:3", "shardID": 1, "ws": "ws://a:3"},
    ]


# -- traces ----------------------------------------------------------------------------------


def _tree() -> TraceFrame:
    static = TraceFrame("call", "staticcall", A2, A1, 0, 5000, 300, "0xaa", "0xbb")
    failed = TraceFrame(
        "call", "call", A2, A1, 7, 4000, 4000, "0x", "0x", error="Reverted", revert="0x08c379a0"
    )
    created = TraceFrame("create", None, A2, "0x" + "cc" * 20, 0, 9000, 800, "0x6080", "0x60ff")
    suicide = TraceFrame("suicide", None, "0x" + "cc" * 20, A1, 12345, 0, 0)
    inner = TraceFrame("call", "delegatecall", A2, A1, 0, 8000, 500, "0x01", "0x", children=(suicide,))
    return TraceFrame(
        "call",
        "call",
        A1,
        A2,
        BIG,
        100000,
        50000,
        "0xa9059cbb",
        "0x01",
        children=(static, failed, created, inner),
    )


def test_trace_flattening_and_shapes() -> None:
    tx = make_tx(trace=_tree())
    entries = trace_objs(tx, transaction_hash=tx.eth_hash)
    assert [e["traceAddress"] for e in entries] == [[], [0], [1], [2], [3], [3, 0]]
    assert [e["subtraces"] for e in entries] == [4, 0, 0, 0, 1, 0]
    root = entries[0]
    assert list(root) == [
        "blockNumber", "blockHash", "transactionHash", "transactionPosition", "subtraces",
        "traceAddress", "type", "action", "result",
    ]  # fmt: skip
    assert root["blockNumber"] == 26
    assert root["transactionPosition"] == 3
    assert root["transactionHash"] == h(2)
    assert list(root["action"]) == ["callType", "value", "to", "gas", "from", "input"]
    assert root["action"]["value"] == hex(BIG)
    assert root["action"]["gas"] == "0x186a0"
    assert root["result"] == {"output": "0x01", "gasUsed": "0xc350"}
    assert "value" not in entries[1]["action"]  # staticcall
    assert "value" not in entries[4]["action"]  # delegatecall
    failed = entries[2]
    assert failed["error"] == "Reverted"
    assert failed["revert"] == "0x08c379a0"
    assert "result" not in failed
    created = entries[3]
    assert list(created["action"]) == ["from", "gas", "init", "value"]
    assert created["result"] == {"address": "0x" + "cc" * 20, "code": "0x60ff", "gasUsed": "0x320"}
    suicide = entries[5]
    assert suicide["action"] == {"refundAddress": A1, "balance": "0x3039", "address": "0x" + "cc" * 20}
    assert "result" in suicide
    assert suicide["result"] is None
    assert b'"result":null' in encode(suicide)


def test_no_trace_gives_nothing() -> None:
    assert trace_objs(make_tx(trace=None), transaction_hash=ZERO_HASH) == []


# -- cache -----------------------------------------------------------------------------------


def test_block_cache_is_bounded_by_bytes_and_lru() -> None:
    cache = BlockCache(max_bytes=10)
    cache.put("a", b"1234")
    cache.put("b", b"5678")
    assert cache.get("a") == b"1234"  # a is now most recent
    cache.put("c", b"90ab")  # 12 bytes > 10: drops the least recent (b)
    assert cache.get("b") is None
    assert cache.get("a") == b"1234"
    assert cache.get("c") == b"90ab"
    assert cache.size == 8
    assert len(cache) == 2
    cache.put("huge", b"x" * 11)
    assert cache.get("huge") is None
    calls = []
    assert cache.get_or_render("d", lambda: calls.append(1) or b"dd") == b"dd"
    assert cache.get_or_render("d", lambda: calls.append(1) or b"zz") == b"dd"
    assert calls == [1]
    with pytest.raises(ConfigError, match="-1"):
        BlockCache(-1)
