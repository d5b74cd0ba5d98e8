"""Every recorded sample of a consumed method converts, with real values checked."""

from __future__ import annotations

import json
from decimal import Decimal

import pyarrow as pa
import pytest
import real_corpus
from ds_helpers import as_bytes, consumed, load

from hmyframe.addresses import to_hex, to_one
from hmyframe.datasets import DATASETS, ConvertContext, decode_blocks, traces_context
from hmyframe.errors import ConfigError, ResponseShapeError

CTX = ConvertContext(
    shard_id=0,
    block_numbers=[2],
    addresses_blocks=[("one1rgl8538wyygp6ltyl0efkrm0rlpftaertskl80", 1)],
    token_calls=[("one1rgl8538wyygp6ltyl0efkrm0rlpftaertskl80", 1, "name")],
)
CONSUMED = consumed()


def _rows(table: pa.Table) -> list[dict[str, object]]:
    return table.to_pylist()


@pytest.mark.parametrize(("sample", "names"), CONSUMED, ids=[s.file for s, _ in CONSUMED])
def test_every_consumed_sample_converts(sample, names):
    payload = sample.payload
    produced = 0
    for name in names:
        ds = DATASETS[name]
        table = ds.convert([payload], CTX)
        assert table.schema == ds.schema
        produced += table.num_rows
        # sorted by sort_by
        keys = [tuple(r[c] for c in ds.sort_by) for r in _rows(table)]
        non_null = [k for k in keys if None not in k]
        assert non_null == sorted(non_null)
    if sample.result not in (None, [], {}):
        assert produced > 0, f"{sample.file} gave no rows in {names}"


#: Datasets whose only recorded sample is not JSON (the docs' hmy_getLogs answer, with comments
#: and a "..." placeholder): tests/datasets/test_receipts_logs.py parses it repaired.
UNPARSED_SAMPLES = {"logs", "token_transfers"}
#: Datasets with no node method of their own (built from other datasets' tables, or from
#: ``balanceOf`` / pair calls no sample shows): tests/datasets/test_ds_tables.py builds them.
DERIVED = {"account_transactions", "native_transfers", "token_balances", "dex_pairs"}


def test_consumed_samples_cover_every_dataset():
    covered = {n for _, names in CONSUMED for n in names}
    assert covered == set(DATASETS) - UNPARSED_SAMPLES - DERIVED
    assert len(CONSUMED) >= 75


# --------------------------------------------------------------------------------------
# transactions
# --------------------------------------------------------------------------------------


def test_v2_transaction_value_1e23_survives_exactly():
    s = load("hmyv2_getTransactionByHash__harmony-test.test_transaction.test_get_transaction_by_hash_v2.json")
    (row,) = _rows(DATASETS["transactions"].convert([s.payload], CTX))
    assert row["value"] == Decimal(10**23)
    assert row["value_one"] == 100000.0
    assert row["gas_price"] == Decimal(30_000_000_000)
    assert row["from_address"] == "one1zksj3evekayy90xt4psrz8h6j2v3hla4qwz4ur"
    assert row["from_address_hex"] == to_hex("one1zksj3evekayy90xt4psrz8h6j2v3hla4qwz4ur")
    assert row["block_number"] == 4
    assert row["timestamp"].timestamp() == 1594802478


TWINS = [
    (
        "hmy_getTransactionByHash__harmony-test.test_transaction.test_get_transaction_by_hash_v1.json",
        "hmyv2_getTransactionByHash__harmony-test.test_transaction.test_get_transaction_by_hash_v2.json",
        ("transactions",),
    ),
    (
        "hmy_getTransactionByBlockHashAndIndex__harmony-test.test_transaction.test_get_transaction_by_block_hash_and_index_v1.json",
        "hmyv2_getTransactionByBlockHashAndIndex__harmony-test.test_transaction.test_get_transaction_by_block_hash_and_index_v2.json",
        ("transactions",),
    ),
    (
        "hmy_getTransactionByBlockNumberAndIndex__harmony-test.test_transaction.test_get_transaction_by_block_number_and_index_v1.json",
        "hmyv2_getTransactionByBlockNumberAndIndex__harmony-test.test_transaction.test_get_transaction_by_block_number_and_index_v2.json",
        ("transactions",),
    ),
    (
        "hmy_getBlockByHash__harmony-test.test_blockchain.test_get_block_by_hash_v1.json",
        "hmyv2_getBlockByHash__harmony-test.test_blockchain.test_get_block_by_hash_v2.json",
        ("blocks", "transactions"),
    ),
    (
        "hmy_getBlocks__harmony-test.test_blockchain.test_get_blocks_v1.json",
        "hmyv2_getBlocks__harmony-test.test_blockchain.test_get_blocks_v2.json",
        ("blocks", "transactions"),
    ),
    (
        "hmy_getBlockByNumber__harmony-test.test_blockchain.test_get_block_by_number_v1.json",
        "hmyv2_getBlockByNumber__harmony-test.test_blockchain.test_get_block_by_number_v2.json",
        ("blocks",),
    ),
    (
        "hmy_getAllValidatorInformation__harmony-test.test_staking.test_get_all_validator_information.json",
        "hmyv2_getAllValidatorInformation__harmony-test.test_staking.test_get_all_validator_information.json",
        ("validators", "delegations"),
    ),
    (
        "hmy_getPendingCXReceipts__harmony-test.test_transaction.test_get_pending_cx_receipts.json",
        "hmyv2_getPendingCXReceipts__harmony-test.test_transaction.test_get_pending_cx_receipts.json",
        ("cx_receipts",),
    ),
    (
        "hmy_getCXReceiptByHash__harmony-test.test_transaction.test_get_cx_receipt_by_hash_v1.json",
        "hmyv2_getCXReceiptByHash__harmony-test.test_transaction.test_get_cx_receipt_by_hash_v2.json",
        ("cx_receipts",),
    ),
]


@pytest.mark.parametrize(
    ("v1", "v2", "names"), TWINS, ids=[t[0].split("__")[0] + "/" + t[2][0] for t in TWINS]
)
def test_v1_hex_sample_equals_its_v2_twin(v1, v2, names):
    a, b = load(v1), load(v2)
    for name in names:
        ta = DATASETS[name].convert([a.payload], CTX)
        tb = DATASETS[name].convert([b.payload], CTX)
        assert ta.num_rows == tb.num_rows > 0
        ra, rb = _rows(ta), _rows(tb)
        for col in DATASETS[name].schema.names:
            left = [r[col] for r in ra]
            right = [r[col] for r in rb]
            if col == "staking_transaction_count":
                # the v2 getBlockByHash sample omits the list; v1 sends []
                continue
            assert left == right, (name, col)


def test_hex_value_in_v1_sample_is_decoded_from_hex():
    s = load("hmy_getTransactionByHash__harmony-test.test_transaction.test_get_transaction_by_hash_v1.json")
    assert s.result["value"] == "0x152d02c7e14af6800000"
    (row,) = _rows(DATASETS["transactions"].convert([s.payload], CTX))
    assert row["value"] == Decimal(0x152D02C7E14AF6800000) == Decimal(10**23)


def test_early_2020_v1_transaction_with_hex_addresses():
    s = load("hmy_getTransactionByHash__docs-home.api.transaction.hmy_gettransactionbyhash.json")
    (row,) = _rows(DATASETS["transactions"].convert([s.payload], ConvertContext(shard_id=1)))
    assert row["from_address"] == to_one("0x0b585f8daefbc68a311fbd4cb20d9174ad174016")
    assert row["from_address"] == "one1pdv9lrdwl0rg5vglh4xtyrv3wjk3wsqket7zxy"
    assert row["to_address_hex"] == "0x3aea49553ce2e478f1c0c5acc304a84f5f4d1f98"
    assert row["value"] == Decimal(10**18)
    # the format has no timestamp / shardID / toShardID / ethHash
    assert row["timestamp"] is None
    assert row["shard_id"] == 1  # from the context
    assert row["to_shard_id"] is None
    assert row["is_cross_shard"] is None
    assert row["eth_hash"] is None


def test_cli_transaction_is_cross_shard():
    s = load("hmy_getTransactionByHash__docs-home.cli.querying-the-blockchain.json")
    (row,) = _rows(DATASETS["transactions"].convert([s.payload], CTX))
    assert (row["shard_id"], row["to_shard_id"], row["is_cross_shard"]) == (0, 1, True)
    assert row["block_number"] == 0xA35
    assert row["nonce"] == 14


def test_pending_transactions_have_null_block_fields():
    for file in (
        "hmy_pendingTransactions__harmony-test.test_transaction.test_pending_transactions_v1.json",
        "hmyv2_pendingTransactions__harmony-test.test_transaction.test_pending_transactions_v2.json",
    ):
        (row,) = _rows(DATASETS["transactions"].convert([load(file).payload], CTX))
        assert row["block_number"] is None
        assert row["block_hash"] is None  # the node sends the zero hash
        assert row["transaction_index"] is None
        assert row["timestamp"] is None
        assert row["value"] > 0


def test_pending_transactions_skip_the_pool_gaps():
    """The 2020 node's pool listings held ``null`` where a pool entry was not of the asked kind
    (harmony-one/harmony#2922, fixed by harmony 579250a07): those slots hold no transaction, the
    others convert at their own paths; a ``null`` among blocks or signers is still refused."""
    answer = real_corpus.by_id("issues/hmy_pendingTransactions__harmony-2922.json")
    assert answer.result[:2] == [None, None]
    payload = json.dumps(answer.result).encode()
    decoded = decode_blocks([payload], "transactions")
    assert decoded.tx_paths == ["payload[0][2]"]
    (row,) = _rows(DATASETS["transactions"].convert([payload], CTX))
    real = answer.result[2]
    assert row["transaction_hash"] == real["hash"]
    assert row["from_address"] == real["from"]
    assert row["value"] == int(real["value"], 16)  # 0x1144a18dd4735dc100000: past 2**64, exact
    assert row["block_number"] is None
    assert row["block_hash"] is None  # the zero hash of a pending transaction
    assert DATASETS["transactions"].convert([b"[null, null]"], CTX).num_rows == 0
    block = json.dumps(load("hmyv2_getBlocks__harmony-test.test_staking.test_get_blocks_v2.json").result)
    for bad, expected in ((f"[{block}, null]", "a block"), ('["one1x", null]', "a signer address")):
        with pytest.raises(ResponseShapeError, match=rf"'payload\[0\]\[1\]' has None; expected {expected}"):
            decode_blocks([bad.encode()], "blocks")


def test_block_sample_full_and_legacy_fields():
    s = load("hmy_getBlockByNumber__docs-home.cli.querying-the-blockchain.json")
    (row,) = _rows(DATASETS["blocks"].convert([s.payload], CTX))
    assert row["block_number"] == 0x29A1
    assert row["miner"] == to_one("0x3f6e680ec5456f540a833e77df4c8ed20a20f274")
    assert row["miner_hex"] == "0x3f6e680ec5456f540a833e77df4c8ed20a20f274"
    assert row["epoch"] is None
    assert row["view_id"] is None
    assert row["vrf"] is None
    assert row["gas_limit"] == 0x4C4B400
    assert row["size"] == 0x50C
    assert row["transaction_count"] == 0
    assert row["staking_transaction_count"] == 0
    assert row["signer_count"] is None
    assert row["timestamp"].timestamp() == 0x5E755A56

    docs = load("hmy_getBlockByNumber__docs-home.api.transaction.hmy_getblockbynumber.json")
    (legacy,) = _rows(DATASETS["blocks"].convert([docs.payload], CTX))
    assert legacy["staking_transaction_count"] is None  # the early-2020 answer has no list


def test_current_block_has_epoch_view_and_zero_miner():
    s = load("hmyv2_getBlocks__harmony-test.test_staking.test_get_blocks_v2.json")
    (row,) = _rows(DATASETS["blocks"].convert([s.payload], CTX))
    assert (row["block_number"], row["epoch"], row["view_id"]) == (11, 1, 11)
    assert row["miner"] == "one1pdv9lrdwl0rg5vglh4xtyrv3wjk3wsqket7zxy"
    assert row["gas_used"] == 5317060


def test_get_blocks_with_signers_feeds_signers_and_counts():
    s = load("hmyv2_getBlocks__docs-home.api.transaction.hmy_getblocks.json")
    decoded = decode_blocks([s.payload])
    blocks = DATASETS["blocks"].build(decoded, CTX)
    signers = DATASETS["signers"].build(decoded, CTX)
    assert blocks.column("signer_count").to_pylist() == [7, 7]
    assert signers.num_rows == 14
    first = _rows(signers)[0]
    assert first["block_number"] == 1
    assert first["signer_address"] == "one1pdv9lrdwl0rg5vglh4xtyrv3wjk3wsqket7zxy"
    assert first["signer_address_hex"] == "0x0b585f8daefbc68a311fbd4cb20d9174ad174016"
    assert first["block_hash"] == s.result[0]["hash"]


def test_get_block_signers_needs_its_block_number():
    s = load("hmy_getBlockSigners__docs-home.api.staking.hmy_getblocksigners.json")
    table = DATASETS["signers"].convert([s.payload], ConvertContext(shard_id=0, block_numbers=[1]))
    assert table.num_rows == 7
    assert set(table.column("block_number").to_pylist()) == {1}
    assert table.column("block_hash").null_count == 7
    with pytest.raises(ConfigError, match="block_numbers"):
        DATASETS["signers"].convert([s.payload], ConvertContext(shard_id=0))


# --------------------------------------------------------------------------------------
# staking transactions
# --------------------------------------------------------------------------------------


def _with_msg(file: str) -> bytes:
    """The sample's staking transaction with the separately recorded CreateValidator msg put back."""
    s = load(file)
    result = s.result
    txs = result["staking_transactions"] if isinstance(result, dict) else result
    for tx in txs:
        tx["msg"] = s.data["extra_references"]["reference_create_validator_msg"]
    return as_bytes(result)


def test_create_validator_message_v1_hex_equals_v2_numbers():
    v1 = _with_msg(
        "hmy_getStakingTransactionsHistory__harmony-test.test_staking.test_get_staking_transaction_history_v1.json"
    )
    v2 = _with_msg(
        "hmyv2_getStakingTransactionsHistory__harmony-test.test_staking.test_get_staking_transaction_history_v2.json"
    )
    ds = DATASETS["staking_transactions"]
    (a,) = _rows(ds.convert([v1], CTX))
    (b,) = _rows(ds.convert([v2], CTX))
    assert a == b
    assert a["directive"] == "CreateValidator"
    assert a["validator_address"] == "one109r0tns7av5sjew7a7fkekg4fs3pw0h76pp45e"
    assert a["amount"] == Decimal(10**22)
    assert a["commission_rate"] == 0.1
    assert a["commission_rate_dec"] == "0.100000000000000000"
    assert a["max_commission_rate_dec"] == "0.900000000000000000"
    assert a["max_change_rate_dec"] == "0.050000000000000000"
    assert a["min_self_delegation"] == Decimal(10**22)
    assert a["max_total_delegation"] == Decimal(10**25)
    assert a["slot_pub_keys"] == (
        "4f41a37a3a8d0695dd6edcc58142c6b7d98e74da5c90e79b587b3b960b6a4f5e048e6d8b8a000d77a478d44cd640270c"
    )
    assert a["block_number"] == 11
    assert a["gas"] == 5317060


def test_staking_transaction_with_null_msg_keeps_the_row():
    s = load(
        "hmy_pendingStakingTransactions__harmony-test.test_staking.test_pending_staking_transactions_v1.json"
    )
    (row,) = _rows(DATASETS["staking_transactions"].convert([s.payload], CTX))
    assert row["directive"] == "CreateValidator"
    assert row["amount"] is None
    assert row["validator_address"] is None
    assert row["block_number"] is None  # pending


def test_staking_tx_inside_a_block():
    s = load("hmyv2_getBlocks__harmony-test.test_staking.test_get_blocks_v2.json")
    block = s.result
    stx = dict(s.data["extra_references"]["reference_staking_response"])
    stx["msg"] = s.data["extra_references"]["reference_create_validator_msg"]
    stx.update(blockNumber=11, blockHash=block["hash"], timestamp=block["timestamp"])
    block["stakingTransactions"] = [stx]
    decoded = decode_blocks([as_bytes(block)])
    (row,) = _rows(DATASETS["staking_transactions"].build(decoded, CTX))
    assert row["block_number"] == 11
    assert row["block_hash"] == block["hash"]
    assert DATASETS["blocks"].build(decoded, CTX).column("staking_transaction_count").to_pylist() == [1]


# --------------------------------------------------------------------------------------
# validators and friends
# --------------------------------------------------------------------------------------

LEGACY = "hmy_getAllValidatorInformation__docs-home.api.staking.hmy_getallvalidatorinformation.json"
CURRENT = (
    "hmyv2_getAllValidatorInformation__harmony-test.test_staking.test_get_all_validator_information.json"
)


def test_legacy_cli_mangled_validator_page():
    s = load(LEGACY)
    assert s.result[0]["result"]["validator"]["delegations"][0]["amount"] == 3.46e19  # a float in the sample
    page = json.dumps(s.result).encode()
    assert b"3.46e+19" in page
    ctx = ConvertContext(shard_id=0, snapshot_block=7376688, snapshot_epoch=100)
    (v,) = _rows(DATASETS["validators"].convert([page], ctx))
    assert v["validator_address"] == "one14438psd5vrjes7qm97jrj3t0s5l4qff5j5cn4h"
    assert (v["snapshot_block"], v["snapshot_epoch"]) == (7376688, 100)
    assert v["max_total_delegation"] == Decimal(80 * 10**18)
    assert v["min_self_delegation"] == Decimal(32 * 10**17)
    assert v["rate_dec"] == "0.127983520183826780"
    assert v["rate"] == 0.12798352018382678
    assert v["is_active"] is False
    assert v["is_banned"] is False
    assert v["lifetime_blocks_signed"] == 0
    assert v["lifetime_blocks_to_sign"] == 75
    assert v["epoch_blocks_signed"] == 0
    assert v["epoch_blocks_to_sign"] == 5
    assert v["epoch_signing_percentage"] == 0.0
    # no total-delegation in this format: the exact sum of the listed delegations (3.46e19 + ...)
    listed = [int(Decimal(repr(d["amount"]))) for d in s.result[0]["result"]["validator"]["delegations"]]
    assert v["total_delegation"] == Decimal(sum(listed)) == Decimal(361 * 10**17)
    assert v["apr"] is None
    assert v["active_status"] is None
    assert v["bls_key_count"] == 1
    assert v["delegation_count"] == 2
    d = _rows(DATASETS["delegations"].convert([page], ctx))
    assert [r["amount"] for r in d] == [Decimal(346 * 10**17), Decimal(15 * 10**17)]
    (vp,) = _rows(DATASETS["voting_power"].convert([page], ctx))
    assert vp["shard_id"] == 2
    assert vp["effective_stake"] == Decimal(25415 * 10**15)
    assert (vp["voting_power_raw"], vp["voting_power_adjusted"]) == (1.0, 0.32)
    assert vp["bls_public_key"] is None
    assert vp["group_percent"] is None


def test_current_validator_page():
    s = load(CURRENT)
    (v,) = _rows(DATASETS["validators"].convert([s.payload], CTX))
    assert v["total_delegation"] == Decimal(10**22)
    assert v["max_total_delegation"] == Decimal(10**25)
    assert v["is_active"] is True
    assert v["active_status"] == "active"
    assert v["is_elected"] is True
    assert v["epos_status"] == "currently elected"
    assert v["booted_status"] == "not booted"
    assert v["epos_winning_stake"] is None
    assert v["apr"] == 0.0
    assert v["lifetime_reward"] == Decimal(0)
    # metrics is null (not in committee yet): no voting-power rows
    assert DATASETS["voting_power"].convert([s.payload], CTX).num_rows == 0


def test_single_validator_answer_and_the_wrapped_legacy_form_convert_alike():
    single = load("hmy_getValidatorInformation__docs-home.api.staking.hmy_getvalidatorinformation.json")
    page = load(LEGACY)
    a = DATASETS["validators"].convert([single.payload], CTX)
    b = DATASETS["validators"].convert([page.payload], CTX)
    assert a.equals(b)


def test_delegation_method_records():
    s = load("hmy_getDelegationsByDelegator__docs-home.api.staking.hmy_getdelegationsbydelegator.json")
    (row,) = _rows(DATASETS["delegations"].convert([s.payload], CTX))
    assert row["validator_address"] == "one1km7xg8e3xjys7azp9f4xp8hkw79vm2h3f2lade"
    assert row["delegator_address"] == "one129r9pj3sk0re76f7zs3qz92rggmdgjhtwge62k"
    assert row["amount"] == Decimal(9899 * 10**18)
    assert row["reward"] == Decimal(2474220695683427208655)
    assert row["delegation_index"] is None


# --------------------------------------------------------------------------------------
# receipts, shards, counts, traces
# --------------------------------------------------------------------------------------


def test_pending_cx_receipt_proof():
    s = load("hmyv2_getPendingCXReceipts__harmony-test.test_transaction.test_get_pending_cx_receipts.json")
    (row,) = _rows(DATASETS["cx_receipts"].convert([s.payload], CTX))
    assert row["amount"] == Decimal(500 * 10**18)
    assert (row["block_number"], row["shard_id"], row["to_shard_id"], row["epoch"]) == (35, 1, 0, 5)
    assert row["transaction_hash"] == "0x819b0d7902134dadd07851edba0e8694e60c1aee057a96d2ceb4a9118cee0298"
    assert row["receipt_index"] == 0


def test_cx_receipt_by_hash_uses_value_and_hash_keys():
    s = load("hmy_getCXReceiptByHash__harmony-test.test_transaction.test_get_cx_receipt_by_hash_v1.json")
    (row,) = _rows(DATASETS["cx_receipts"].convert([s.payload], CTX))
    assert row["amount"] == Decimal(0x3635C9ADC5DEA00000)
    assert row["block_number"] == 0x21
    assert row["receipt_index"] is None
    assert row["epoch"] is None


def test_sharding_structure():
    s = load("hmy_getShardingStructure__docs-home.api.blockchain.hmy_getshardingstructure.json")
    rows = _rows(DATASETS["shards"].convert([s.payload], CTX))
    assert [(r["shard_id"], r["is_current"], r["http_url"]) for r in rows] == [
        (0, True, "https://api.s0.b.hmny.io"),
        (1, False, "https://api.s1.b.hmny.io"),
    ]


def test_transaction_count_v1_hex_equals_v2_number():
    v1 = load("hmy_getTransactionCount__docs-home.api.account-methods.hmy_gettransactioncount.json")
    v2 = load("hmyv2_getTransactionCount__docs-home.api.account-methods.hmy_gettransactioncount.json")
    ctx = ConvertContext(shard_id=0, addresses_blocks=[("one1rgl8538wyygp6ltyl0efkrm0rlpftaertskl80", 1)] * 2)
    rows = _rows(DATASETS["tx_counts"].convert([v1.payload, v2.payload], ctx))
    assert [r["transaction_count"] for r in rows] == [9, 9]
    assert rows[0]["address_hex"] == to_hex("one1rgl8538wyygp6ltyl0efkrm0rlpftaertskl80")


def test_trace_block_resolves_the_harmony_hash_from_the_eth_hash():
    s = load("trace_block__docs-home.api.tracing-methods.hmy_getcirculatingsupply.json")
    eth_hash = s.result[0]["transactionHash"]
    harmony_hash = "0x" + "ab" * 32
    block = {
        "number": 15077401,
        "hash": s.result[0]["blockHash"],
        "transactions": [
            {"hash": harmony_hash, "ethHash": eth_hash, "blockNumber": 15077401, "transactionIndex": 0}
        ],
    }
    ctx = traces_context(decode_blocks([as_bytes(block)]), shard_id=0)
    (row,) = _rows(DATASETS["traces"].convert([s.payload], ctx))
    assert row["transaction_hash"] == harmony_hash
    assert row["reported_transaction_hash"] == eth_hash
    assert (row["block_number"], row["transaction_position"], row["trace_index"]) == (15077401, 0, 0)
    assert row["trace_address"] == ""
    assert row["trace_depth"] == 0
    assert row["subtraces"] == 15
    assert row["from_address_hex"] == "0x01f2eb240a4e1187c9ee3f4125257f4716a32d75"
    assert row["from_address"] == to_one("0x01f2eb240a4e1187c9ee3f4125257f4716a32d75")
    assert row["gas"] == 0x5C7AC
    assert row["gas_used"] == 0x4E41C
    assert row["value"] == Decimal(0)
    assert row["call_type"] == "call"
    # without a context the hash cannot be resolved: null, not the Ethereum hash
    (bare,) = _rows(DATASETS["traces"].convert([s.payload], CTX))
    assert bare["transaction_hash"] is None


def test_trace_transaction_keyed_by_the_requested_hash():
    s = load("trace_transaction__docs-home.api.tracing-methods.hmy_getcirculatingsupply-1.json")
    asked = s.data["request"]["params"][0]
    result = s.result
    result[0]["transactionHash"] = "0x" + "0" * 64  # what the current node sends
    ctx = ConvertContext(shard_id=0, requested_tx_hash=asked)
    (row,) = _rows(DATASETS["traces"].convert([as_bytes(result)], ctx))
    assert row["transaction_hash"] == asked
    assert row["reported_transaction_hash"] is None
    assert row["transaction_position"] == 79
    assert row["output"] == "0x" + "0" * 63 + "1"
