"""Every dataset fetched over HTTP from the devnet equals the devnet's own ground truth.

The session devnet (seed 7, 400 blocks, 2 shards) serves; ``devnet_truth`` is an identical
:class:`~hmyframe.devnet.Chain` built separately. Sums are exact (``int``/``Decimal``), hashes and
block numbers are compared as sets or lists, traces per transaction, signers per block.
"""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fetch_helpers import atto, exact_sum, signer_pairs, trace_rows, values
from fetch_helpers import blocks as truth_blocks
from fetch_helpers import transactions as truth_transactions

import hmyframe
from hmyframe import FetchOptions, NotFoundWarning
from hmyframe.devnet import Chain, Devnet, DevnetStats
from hmyframe.errors import NotFoundError

#: The range checked on each shard: crosses the epoch boundary at 200 and several chunks.
START, END = 150, 269
#: An early snapshot block at which some validators do not exist yet.
EARLY = 30
RANGE_NAMES = ("blocks", "transactions", "staking_transactions", "signers", "traces")
SNAPSHOT_NAMES = ("validators", "voting_power", "delegations", "undelegations")
#: The devnets here run without the validator limiter: no client-side pacing needed either.
UNPACED = FetchOptions(validator_pacing=None)


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("truth-cache")


@pytest.fixture(scope="module")
def fetched(devnet: Devnet, cache_root: Path) -> dict[tuple[str, int], pd.DataFrame]:
    """Every range dataset of blocks START..END of shards 0 and 1 (chunks of 50: 3 files each)."""
    options = FetchOptions(chunk_size=50, blocks_per_request=20)
    out = {}
    for shard in (0, 1):
        for name in RANGE_NAMES:
            out[name, shard] = getattr(hmyframe, name)(
                START, END, shard, rpc=devnet, cache=cache_root, options=options
            )
    return out


@pytest.fixture(scope="module")
def snapshots(devnet: Devnet, cache_root: Path) -> dict[tuple[str, int | None], pd.DataFrame]:
    out: dict[tuple[str, int | None], pd.DataFrame] = {}
    for block in (None, EARLY):
        for name in SNAPSHOT_NAMES:
            out[name, block] = getattr(hmyframe, name)(
                block=block, rpc=devnet, cache=cache_root, options=UNPACED
            )
    return out


# --------------------------------------------------------------------------- block ranges


@pytest.mark.parametrize("shard", [0, 1])
def test_blocks_equal_truth(fetched: dict, devnet_truth: Chain, shard: int) -> None:
    df = fetched["blocks", shard]
    truth = truth_blocks(devnet_truth, shard, START, END)
    assert df["block_number"].tolist() == list(range(START, END + 1))
    assert df["block_hash"].tolist() == [b.hash for b in truth]
    assert df["parent_hash"].tolist() == [b.parent_hash for b in truth]
    assert df["shard_id"].unique().tolist() == [shard]
    assert df["epoch"].tolist() == [b.epoch for b in truth]
    assert df["view_id"].tolist() == [b.view_id for b in truth]
    assert df["miner_hex"].tolist() == [b.leader.lower() for b in truth]
    assert [int(t.timestamp()) for t in df["timestamp"]] == [b.timestamp for b in truth]
    assert df["transaction_count"].tolist() == [len(b.transactions) for b in truth]
    assert df["staking_transaction_count"].tolist() == [len(b.staking_transactions) for b in truth]
    assert int(df["gas_used"].sum()) == sum(b.gas_used for b in truth)
    assert df["state_root"].tolist() == [b.state_root for b in truth]


@pytest.mark.parametrize("shard", [0, 1])
def test_transactions_equal_truth(fetched: dict, devnet_truth: Chain, shard: int) -> None:
    df = fetched["transactions", shard]
    truth = truth_transactions(devnet_truth, shard, START, END)
    assert len(df) == len(truth) > 100
    # same rows, in block then index order
    assert list(zip(df["block_number"], df["transaction_index"], strict=True)) == [
        (t.block_number, t.index) for t in truth
    ]
    assert df["transaction_hash"].tolist() == [t.hash for t in truth]
    assert df["eth_hash"].tolist() == [t.eth_hash for t in truth]
    assert df["transaction_hash"].is_unique
    # exact amounts: row by row and summed, never through a float
    assert [int(v) for v in df["value"]] == [t.value for t in truth]
    assert exact_sum(df["value"]) == sum(t.value for t in truth)
    assert max(t.value for t in truth) > 2**64  # the exactness is really exercised
    assert exact_sum(df["gas_price"]) == sum(t.gas_price for t in truth)
    assert df["nonce"].tolist() == [t.nonce for t in truth]
    assert df["gas"].tolist() == [t.gas for t in truth]
    assert df["from_address_hex"].tolist() == [t.sender.lower() for t in truth]
    assert values(df["to_address_hex"]) == [t.to.lower() if t.to else None for t in truth]
    assert df["to_shard_id"].tolist() == [t.to_shard_id for t in truth]
    assert int(df["is_cross_shard"].sum()) == sum(t.is_cross_shard for t in truth) > 0
    assert int(df["is_contract_creation"].sum()) == sum(t.is_contract_creation for t in truth) > 0
    assert df["input"].tolist() == [t.input for t in truth]


@pytest.mark.parametrize("shard", [0, 1])
def test_staking_transactions_equal_truth(fetched: dict, devnet_truth: Chain, shard: int) -> None:
    df = fetched["staking_transactions", shard]
    truth = [s for b in truth_blocks(devnet_truth, shard, START, END) for s in b.staking_transactions]
    if shard == 1:
        assert truth == []
        assert df.empty
        assert list(df.columns) == hmyframe.schema("staking_transactions").names
        return
    assert len(df) == len(truth) > 5
    assert df["transaction_hash"].tolist() == [s.hash for s in truth]
    assert Counter(df["directive"]) == Counter(s.directive for s in truth)
    assert df["from_address_hex"].tolist() == [s.sender.lower() for s in truth]
    amounts = [s.msg.get("amount") for s in truth]
    assert exact_sum(df["amount"]) == sum(int(a) for a in amounts if a is not None) > 0
    assert [None if a is None else int(a) for a in values(df["amount"])] == amounts
    delegators = [s.msg.get("delegatorAddress") for s in truth]
    assert values(df["delegator_address_hex"]) == [d.lower() if d else None for d in delegators]


@pytest.mark.parametrize("shard", [0, 1])
def test_signers_equal_truth(fetched: dict, devnet_truth: Chain, shard: int) -> None:
    df = fetched["signers", shard]
    pairs = set(zip(df["block_number"], df["signer_address_hex"], strict=True))
    assert len(pairs) == len(df)  # no duplicate (block, signer)
    assert pairs == signer_pairs(devnet_truth, shard, START, END)
    per_block = df.groupby("block_number").size()
    assert per_block.to_dict() == {
        n: len(set(devnet_truth.signers(shard, n) or ())) for n in range(START, END + 1)
    }
    # the node lists one address per signing key: key_count is how often it lists each
    keys = {(n, a.lower()): 0 for n, a in pairs}
    for n in range(START, END + 1):
        for address in devnet_truth.signers(shard, n) or ():
            keys[(n, address.lower())] += 1
    got = dict(
        zip(zip(df["block_number"], df["signer_address_hex"], strict=True), df["key_count"], strict=True)
    )
    assert got == keys
    assert max(keys.values()) > 1  # validators with several keys on the shard
    hashes = dict(zip(df["block_number"], df["block_hash"], strict=False))
    assert hashes == {n: devnet_truth.block(shard, n).hash for n in range(START, END + 1)}


@pytest.mark.parametrize("shard", [0, 1])
def test_traces_equal_truth(fetched: dict, devnet_truth: Chain, shard: int) -> None:
    df = fetched["traces", shard]
    truth = trace_rows(devnet_truth, shard, START, END)
    assert len(df) == len(truth) > 100
    # per transaction: trace counts, keyed by the Harmony hash (the node reports the eth hash)
    assert Counter(df["transaction_hash"]) == Counter(r["transaction_hash"] for r in truth)
    by_hash = {t.hash: t for t in truth_transactions(devnet_truth, shard, START, END)}
    assert df["reported_transaction_hash"].tolist() == [by_hash[h].eth_hash for h in df["transaction_hash"]]
    keys = [
        "block_number",
        "transaction_hash",
        "transaction_position",
        "trace_index",
        "trace_address",
        "type",
    ]
    assert [tuple(r) for r in df[keys].itertuples(index=False)] == [tuple(r[k] for k in keys) for r in truth]
    # the node omits value for static/delegate calls (0 in the truth): exact sum over the rest
    assert exact_sum(df["value"]) == sum(r["value"] for r in truth)
    # failed frames carry no result (so no gasUsed), suicides a null result
    ok = [r for r in truth if r["error"] is None and r["type"] != "suicide"]
    assert int(df["gas_used"].sum()) == sum(r["gas_used"] for r in ok)
    assert int(df["gas_used"].notna().sum()) == len(ok)
    assert int(df["error"].notna().sum()) == sum(r["error"] is not None for r in truth) > 0


# --------------------------------------------------------------------------- snapshots


@pytest.mark.parametrize("block", [None, EARLY])
def test_validator_snapshots_equal_truth(snapshots: dict, devnet_truth: Chain, block: int | None) -> None:
    at = devnet_truth.head(0) if block is None else block
    truth = devnet_truth.validators(at)
    vals = snapshots["validators", block]
    assert vals.attrs["snapshot_block"] == at
    assert vals["snapshot_block"].unique().tolist() == [at]
    assert vals["validator_address_hex"].is_unique
    assert set(vals["validator_address_hex"]) == {v.address.lower() for v in truth}
    assert len(vals) == len(truth)
    assert exact_sum(vals["total_delegation"]) == sum(v.total_delegation for v in truth)
    by_address = dict(zip(vals["validator_address_hex"], vals["total_delegation"], strict=True))
    assert {a: int(d) for a, d in by_address.items()} == {
        v.address.lower(): v.total_delegation for v in truth
    }
    elected = set(vals.loc[vals["is_elected"].fillna(False), "validator_address_hex"])
    assert elected == {v.address.lower() for v in truth if v.currently_in_committee}
    assert vals["delegation_count"].tolist() == [
        len({v.address.lower(): v for v in truth}[a].delegations) for a in vals["validator_address_hex"]
    ]

    dels = snapshots["delegations", block]
    assert len(dels) == sum(len(v.delegations) for v in truth)
    assert exact_sum(dels["amount"]) == sum(d.amount for v in truth for d in v.delegations)
    assert exact_sum(dels["reward"]) == sum(d.reward for v in truth for d in v.delegations)
    assert set(zip(dels["validator_address_hex"], dels["delegator_address_hex"], strict=True)) == {
        (v.address.lower(), d.delegator.lower()) for v in truth for d in v.delegations
    }

    undel = snapshots["undelegations", block]
    truth_undel = [u for v in truth for d in v.delegations for u in d.undelegations]
    assert len(undel) == len(truth_undel) > 0
    assert exact_sum(undel["amount"]) == sum(u.amount for u in truth_undel)
    assert Counter(undel["epoch"]) == Counter(u.epoch for u in truth_undel)

    power = snapshots["voting_power", block]
    metrics = {m.key: (v.address.lower(), m) for v in truth for m in (v.metrics or ())}
    assert len(power) == len(metrics) > 0
    assert set(power["bls_public_key"]) == set(metrics)
    for key, owner, stake in power[["bls_public_key", "validator_address_hex", "effective_stake"]].itertuples(
        index=False
    ):
        assert owner == metrics[key][0]
        assert int(stake) == atto(metrics[key][1].effective_stake)


def test_early_snapshot_lacks_validators_created_later(snapshots: dict, devnet_truth: Chain) -> None:
    head = set(snapshots["validators", None]["validator_address_hex"])
    early = snapshots["validators", EARLY]
    missing = head - set(early["validator_address_hex"])
    assert missing, "the early block should miss some validators"
    head_df = snapshots["validators", None].set_index("validator_address_hex")
    assert all(head_df.loc[a, "creation_height"] > EARLY for a in missing)
    assert early.attrs["snapshot_block"] == EARLY
    assert set(early["snapshot_epoch"]) == {devnet_truth.epoch_of(EARLY)}


# --------------------------------------------------------------------------- generations, strategies


@pytest.mark.parametrize("shard", [0, 1])
@pytest.mark.parametrize("name", RANGE_NAMES)
async def test_generations_and_strategies_give_identical_frames(
    devnet: Devnet, name: str, shard: int
) -> None:
    frames = {}
    for version in (1, 2):
        for strategy in ("range", "batch"):
            # misaligned request size and chunk size: several requests per chunk, a short last one
            options = FetchOptions(version=version, strategy=strategy, chunk_size=16, blocks_per_request=7)
            frames[version, strategy] = await getattr(hmyframe.aio, name)(
                190, 229, shard, rpc=devnet, cache=False, options=options
            )
    base = frames[2, "range"]
    assert len(base) > 0 or (name, shard) == ("staking_transactions", 1)
    for key, df in frames.items():
        pd.testing.assert_frame_equal(df, base, check_exact=True, obj=f"{name} {key}")


@pytest.mark.parametrize("name", SNAPSHOT_NAMES)
async def test_snapshot_generations_give_identical_frames(devnet: Devnet, name: str) -> None:
    v2 = await getattr(hmyframe.aio, name)(block=EARLY, rpc=devnet, cache=False, options=UNPACED)
    v1 = await getattr(hmyframe.aio, name)(
        block=EARLY, rpc=devnet, cache=False, options=UNPACED.with_(version=1)
    )
    assert len(v2) > 0
    pd.testing.assert_frame_equal(v1, v2, check_exact=True)


# --------------------------------------------------------------------------- legacy profile

#: Columns the legacy (early-2020) format does not carry at all: null there.
LEGACY_ABSENT = {
    "blocks": {"epoch", "view_id", "vrf"},
    "transactions": {"eth_hash"},
    "staking_transactions": set(),
    "signers": set(),
    "traces": set(),
    "validators": {
        "snapshot_epoch",
        "active_status",
        "epos_status",
        "booted_status",
        "is_elected",
        "epos_winning_stake",
        "epos_winning_stake_one",
        "lifetime_reward",
        "lifetime_reward_one",
        "apr",
    },
    "voting_power": {
        "snapshot_epoch",
        "bls_public_key",
        "raw_stake",
        "raw_stake_one",
        "group_percent",
        "overall_percent",
        "earned_reward",
        "earned_reward_one",
    },
    "delegations": {"snapshot_epoch"},
    "undelegations": {"snapshot_epoch"},
}


@pytest.fixture(scope="module")
def legacy_devnet() -> Any:
    with Devnet(blocks=400, seed=7, profile="legacy", validator_rate_limit=False) as net:
        yield net


@pytest.mark.parametrize("name", RANGE_NAMES)
async def test_legacy_profile_gives_the_same_values(devnet: Devnet, legacy_devnet: Devnet, name: str) -> None:
    current = await getattr(hmyframe.aio, name)(190, 229, 0, rpc=devnet, cache=False)
    legacy = await getattr(hmyframe.aio, name)(190, 229, 0, rpc=legacy_devnet, cache=False)
    assert len(legacy) == len(current) > 0
    absent = LEGACY_ABSENT[name]
    for column in absent:
        assert legacy[column].isna().all(), column
    if name == "traces":
        # the legacy node reports the Harmony hash itself; current nodes the eth hash
        assert legacy["reported_transaction_hash"].tolist() == legacy["transaction_hash"].tolist()
        absent = {"reported_transaction_hash"}
    shared = [c for c in current.columns if c not in absent]
    pd.testing.assert_frame_equal(legacy[shared], current[shared], check_exact=True)


@pytest.mark.parametrize("block", [None, EARLY])
async def test_legacy_validator_pages_lose_and_repeat_nothing(
    devnet: Devnet, legacy_devnet: Devnet, devnet_truth: Chain, block: int | None
) -> None:
    legacy_devnet.stats.reset()
    at = devnet_truth.head(0) if block is None else block
    truth = {v.address.lower() for v in devnet_truth.validators(at)}
    assert len(truth) > 200  # several pages of 100
    vals = await hmyframe.aio.validators(block, rpc=legacy_devnet, cache=False, options=UNPACED)
    assert vals["validator_address_hex"].is_unique
    assert set(vals["validator_address_hex"]) == truth
    dels = await hmyframe.aio.delegations(block, rpc=legacy_devnet, cache=False, options=UNPACED)
    truth_dels = [d for v in devnet_truth.validators(at) for d in v.delegations]
    assert len(dels) == len(truth_dels)
    assert exact_sum(dels["amount"]) == sum(d.amount for d in truth_dels)
    # 300 validator addresses: pages 0, 1, 2 (counted from 0, each one asked once: the
    # validators and delegations fetches), then the empty page 3
    pages = legacy_devnet.stats.calls_of("hmyv2_getAllValidatorInformationByBlockNumber")
    assert pages == 2 * 4

    current = {
        n: await getattr(hmyframe.aio, n)(block=block, rpc=devnet, cache=False, options=UNPACED)
        for n in ("validators", "voting_power", "delegations", "undelegations")
    }
    legacy = {
        "validators": vals,
        "delegations": dels,
        "undelegations": await hmyframe.aio.undelegations(
            block, rpc=legacy_devnet, cache=False, options=UNPACED
        ),
        "voting_power": await hmyframe.aio.voting_power(
            block, rpc=legacy_devnet, cache=False, options=UNPACED
        ),
    }
    for name, frame in legacy.items():
        absent = LEGACY_ABSENT[name]
        for column in absent:
            assert frame[column].isna().all(), (name, column)
        # legacy-only: the early-2020 per-key voting power (null in the current format)
        legacy_only = {"voting_power_raw", "voting_power_adjusted"} if name == "voting_power" else set()
        for column in legacy_only:
            assert current[name][column].isna().all()
            assert frame[column].notna().all()
        shared = [
            c for c in current[name].columns if c not in absent | legacy_only and not c.startswith("epoch_")
        ]
        pd.testing.assert_frame_equal(frame[shared], current[name][shared], check_exact=True, obj=name)
    # the legacy availability block carries the signing counts of elected validators alike
    cur = current["validators"]
    elected = cur["is_elected"].fillna(False).to_numpy()
    for column in ("epoch_blocks_signed", "epoch_blocks_to_sign"):
        assert vals.loc[elected, column].tolist() == cur.loc[elected, column].tolist()


async def test_a_node_numbering_validator_pages_from_one_loses_and_repeats_nothing(
    legacy_devnet: Devnet, devnet_truth: Chain
) -> None:
    """A proxy in front of the legacy devnet answers page p with page max(p, 1) - 1 (pages 0 and 1
    alike, as a node numbering pages from 1 would): the snapshot still holds each validator once."""
    import json

    import aiohttp
    from aiohttp import web

    asked: list[int] = []

    async def handle(request: web.Request) -> web.Response:
        body = json.loads(await request.read())
        for call in body if isinstance(body, list) else [body]:
            if call.get("method", "").endswith("getAllValidatorInformationByBlockNumber"):
                asked.append(call["params"][0])
                call["params"][0] = max(call["params"][0], 1) - 1
        async with aiohttp.ClientSession() as http, http.post(legacy_devnet.url, json=body) as answer:
            return web.Response(body=await answer.read(), content_type="application/json")

    app = web.Application()
    app.router.add_post("/", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        vals = await hmyframe.aio.validators(rpc=f"http://127.0.0.1:{port}", cache=False, options=UNPACED)
    finally:
        await runner.cleanup()
    truth = {v.address.lower() for v in devnet_truth.validators(devnet_truth.head(0))}
    assert vals["validator_address_hex"].is_unique
    assert set(vals["validator_address_hex"]) == truth
    assert asked[:5] == [0, 1, 2, 3, 4]  # page 1 repeated page 0; page 4 (= page 3) was empty


# --------------------------------------------------------------------------- point lookups


def test_head_and_shards(devnet: Devnet, devnet_truth: Chain) -> None:
    assert hmyframe.head(rpc=devnet) == devnet_truth.head(0)
    assert hmyframe.head(1, rpc=devnet) == devnet_truth.head(1)
    df = hmyframe.shards(rpc=devnet)
    assert df["shard_id"].tolist() == [0, 1]
    assert df["http_url"].tolist() == devnet.urls
    assert df["is_current"].tolist() == [True, False]
    # asked at shard 1's own endpoint, that shard is the current one
    df1 = hmyframe.shards(rpc=devnet.urls[1])
    assert df1["is_current"].tolist() == [False, True]
    assert df1["queried_shard_id"].unique().tolist() == [1]


@pytest.mark.parametrize("shard", [0, 1])
def test_tx_counts_equal_truth(devnet: Devnet, devnet_truth: Chain, shard: int) -> None:
    senders = list(dict.fromkeys(t.sender for t in truth_transactions(devnet_truth, shard, 10, 30)))[:6]
    at = hmyframe.tx_counts(senders, 120, shard, rpc=devnet)
    assert dict(zip(at["address_hex"], at["transaction_count"], strict=True)) == {
        a.lower(): devnet_truth.transaction_count(shard, a, 120) for a in senders
    }
    assert set(at["block_number"]) == {120}
    head = hmyframe.tx_counts(senders, shard=shard, rpc=devnet)
    assert set(head["block_number"]) == {devnet_truth.head(shard)}
    counts = dict(zip(head["address_hex"], head["transaction_count"], strict=True))
    assert counts == {
        a.lower(): devnet_truth.transaction_count(shard, a, devnet_truth.head(shard)) for a in senders
    }
    assert sum(counts.values()) > sum(at["transaction_count"])  # they kept sending after block 120


@pytest.mark.parametrize("shard", [0, 1])
def test_pending_cx_receipts_equal_truth(devnet: Devnet, devnet_truth: Chain, shard: int) -> None:
    df = hmyframe.pending_cx_receipts(shard, rpc=devnet)
    receipts = [(p.header.number, r) for p in devnet_truth.pending_cx_receipts(shard) for r in p.receipts]
    assert len(df) == len(receipts) > 0
    assert set(df["transaction_hash"]) == {r.tx_hash for _, r in receipts}
    assert exact_sum(df["amount"]) == sum(r.amount for _, r in receipts)
    assert set(df["to_shard_id"]) == {shard}
    assert set(zip(df["transaction_hash"], df["block_number"], strict=True)) == {
        (r.tx_hash, n) for n, r in receipts
    }


@pytest.mark.parametrize("shard", [0, 1])
def test_transactions_by_hash_equal_truth_and_report_unknown(
    devnet: Devnet, devnet_truth: Chain, shard: int
) -> None:
    txs = truth_transactions(devnet_truth, shard, 100, 104)[:8]
    unknown = "0x" + "ab" * 32
    with pytest.warns(NotFoundWarning, match="1 transactions not found"):
        df = hmyframe.transactions_by_hash([t.hash for t in txs] + [unknown], shard, rpc=devnet)
    assert df.attrs["not_found"] == [unknown]
    assert df["transaction_hash"].tolist() == [t.hash for t in txs]
    assert [int(v) for v in df["value"]] == [t.value for t in txs]
    assert df["block_number"].tolist() == [t.block_number for t in txs]
    with pytest.raises(NotFoundError, match=unknown):
        hmyframe.transactions_by_hash([unknown], shard, rpc=devnet, on_missing="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = hmyframe.transactions_by_hash([txs[0].hash, unknown], shard, rpc=devnet, on_missing="ignore")
    assert quiet.attrs["not_found"] == [unknown]
    assert len(quiet) == 1


@pytest.mark.parametrize("shard", [0, 1])
def test_traces_by_hash_equal_truth(devnet: Devnet, devnet_truth: Chain, shard: int) -> None:
    txs = [t for t in truth_transactions(devnet_truth, shard, 100, 110) if t.trace is not None][:5]
    assert len(txs) == 5
    unknown = "0x" + "cd" * 32
    with pytest.warns(NotFoundWarning):
        df = hmyframe.traces_by_hash([t.hash for t in txs] + [unknown], shard, rpc=devnet)
    assert df.attrs["not_found"] == [unknown]
    # trace_transaction reports a zero hash: rows are keyed by the hash asked for
    rows = [
        r for r in trace_rows(devnet_truth, shard, 100, 110) if r["transaction_hash"] in {t.hash for t in txs}
    ]
    assert Counter(df["transaction_hash"]) == Counter(r["transaction_hash"] for r in rows)
    assert exact_sum(df["value"]) == sum(r["value"] for r in rows)
    assert sorted(zip(df["transaction_hash"], df["trace_address"], strict=True)) == sorted(
        (r["transaction_hash"], r["trace_address"]) for r in rows
    )


def test_snapshot_through_a_shard_1_url_is_asked_of_the_beacon_chain(
    devnet: Devnet, devnet_stats: DevnetStats, snapshots: dict
) -> None:
    vals = hmyframe.validators(EARLY, rpc=devnet.urls[1], cache=False, options=UNPACED)
    pd.testing.assert_frame_equal(vals, snapshots["validators", EARLY], check_exact=True)
    by_endpoint = devnet_stats.endpoints()
    assert by_endpoint["s0"].calls_of("hmyv2_getAllValidatorInformationByBlockNumber") >= 3
    assert by_endpoint["s1"].calls_of("hmyv2_getAllValidatorInformationByBlockNumber") == 0
