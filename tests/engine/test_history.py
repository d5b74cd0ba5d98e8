"""hmyframe.staking_history on the devnet: six epochs, both formats, checked against the chain."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import hmyframe
from hmyframe import metrics
from hmyframe.addresses import to_one
from hmyframe.devnet import Chain, Devnet
from hmyframe.errors import ConfigError

CHAIN = {"blocks": 1200, "seed": 11}  # epochs of 200 blocks: 0..5, the head 1199 ends epoch 5
OPTIONS = hmyframe.FetchOptions(validator_pacing=None)
NOT_SERVED = "rpc_error=-32601,message=the method {m} does not exist/is not available,method={m}"


@pytest.fixture(scope="module")
def truth() -> Chain:
    return Chain(**CHAIN)


@pytest.fixture(scope="module", params=["current", "legacy"])
def net(request: pytest.FixtureRequest) -> Iterator[Devnet]:
    with Devnet(**CHAIN, profile=request.param, validator_rate_limit=False) as devnet:
        yield devnet


def test_six_epochs_match_the_chain(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    history = hmyframe.staking_history(0, rpc=net, cache=tmp_path, options=OPTIONS)
    network = history.network
    assert network["epoch"].tolist() == [0, 1, 2, 3, 4, 5]
    assert network["block"].tolist() == [199, 399, 599, 799, 999, 1199]
    assert network["complete"].all()
    assert network["timestamp"].tolist() == [
        pd.Timestamp(truth.block(0, b).timestamp, unit="s", tz="UTC") for b in network["block"]
    ]
    for row in network.itertuples():
        snapshot = truth.validators(row.block)
        elected = [v for v in snapshot if v.currently_in_committee]
        assert row.validators == len(snapshot)
        assert row.elected == len(elected)
        assert int(row.total_stake) == sum(v.total_delegation for v in snapshot)  # exact atto
        assert row.median_signing == pytest.approx(
            float(statistics.median(v.current_epoch_signing_percentage for v in elected))
        )
        assert row.gini == metrics.gini([v.total_delegation for v in elected])
        power = hmyframe.voting_power(block=row.block, rpc=net, cache=tmp_path, options=OPTIONS)
        by_shard = metrics.nakamoto(power)
        assert row.nakamoto_shard_0 == by_shard.loc[0]
        assert row.nakamoto_shard_1 == by_shard.loc[1]
        assert row.nakamoto == by_shard.min()
    # per-validator rows: one per validator and epoch, the epoch filled in (also in the early-2020
    # format, whose headers lack it), stake and election added for both formats
    validators = history.validators
    assert len(validators) == network["validators"].sum()
    assert validators.groupby("snapshot_epoch").size().tolist() == network["validators"].tolist()
    assert (
        validators["elected"].groupby(validators["snapshot_epoch"]).sum().tolist()
        == network["elected"].tolist()
    )
    assert history.voting_power["snapshot_epoch"].notna().all()
    assert set(history.delegations["snapshot_epoch"]) == set(range(6))


def test_one_validator_through_the_cheap_method(net: Devnet, truth: Chain, tmp_path: Path) -> None:
    address = to_one(truth.validators(1199)[7].address)
    net.stats.reset()
    alone = hmyframe.staking_history(1, 5, rpc=net, cache=tmp_path, options=OPTIONS, validator=address)
    assert net.stats.calls_of("hmyv2_getAllValidatorInformationByBlockNumber") == 0
    assert net.stats.calls_of("hmyv2_getValidatorInformationByBlockNumber") == 5
    assert list(alone.network.columns) == ["epoch", "block", "timestamp", "complete"]
    rows = alone.validator(address)
    assert rows["snapshot_epoch"].tolist() == [1, 2, 3, 4, 5]
    for row in rows.itertuples():
        snapshot = truth.validator(truth.validators(row.snapshot_block)[7].address, row.snapshot_block)
        assert snapshot is not None
        assert int(row.stake) == snapshot.total_delegation
        assert row.elected == snapshot.currently_in_committee
        assert row.epoch_signing_percentage == pytest.approx(float(snapshot.current_epoch_signing_percentage))
    # the same rows as in a full history (whose snapshots are then cached and reused)
    full = hmyframe.staking_history(1, 5, rpc=net, cache=tmp_path, options=OPTIONS).validator(address)
    columns = [
        "snapshot_epoch",
        "snapshot_block",
        "stake",
        "elected",
        "epoch_signing_percentage",
        "rate",
        "delegation_count",
    ]
    pd.testing.assert_frame_equal(rows[columns], full[columns])
    net.stats.reset()
    again = hmyframe.staking_history(1, 5, rpc=net, cache=tmp_path, options=OPTIONS, validator=address)
    assert net.stats.calls_of("hmyv2_getValidatorInformationByBlockNumber") == 0
    pd.testing.assert_frame_equal(again.validator(address)[columns], rows[columns])


def test_history_snapshots_are_cached(net: Devnet, tmp_path: Path) -> None:
    first = hmyframe.staking_history(-3, rpc=net, cache=tmp_path, options=OPTIONS)
    net.stats.reset()
    second = hmyframe.staking_history(-3, rpc=net, cache=tmp_path, options=OPTIONS)
    assert net.stats.calls_of("hmyv2_getAllValidatorInformationByBlockNumber") == 0
    pd.testing.assert_frame_equal(first.network, second.network)
    assert first.network["epoch"].tolist() == [3, 4, 5]


def test_epoch_last_blocks_without_epoch_last_block(truth: Chain, tmp_path: Path) -> None:
    """A node that does not serve epochLastBlock: the blocks' epoch field is bisected."""
    with Devnet(
        **CHAIN, validator_rate_limit=False, faults=NOT_SERVED.format(m="hmyv2_epochLastBlock")
    ) as net:
        history = hmyframe.staking_history(0, 4, every=2, rpc=net, cache=False, options=OPTIONS)
        assert net.stats.calls_of("hmyv2_epochLastBlock") >= 1  # asked, refused
        assert net.stats.calls_of("hmyv2_getBlockByNumber") > 3
    assert history.network["epoch"].tolist() == [0, 2, 4]
    assert history.network["block"].tolist() == [truth.epoch_first_block(e + 1) - 1 for e in (0, 2, 4)]
    assert history.network["complete"].all()


def test_an_early_2020_node_without_epoch_last_block_is_a_clear_error() -> None:
    with (
        Devnet(**CHAIN, profile="legacy", faults=NOT_SERVED.format(m="hmyv2_epochLastBlock")) as net,
        pytest.raises(ConfigError, match="neither epochLastBlock nor an epoch field"),
    ):
        hmyframe.staking_history(0, 1, rpc=net, cache=False, options=OPTIONS)


def test_the_epoch_in_progress_is_taken_at_the_head(tmp_path: Path) -> None:
    calls: list[int] = []
    with Devnet(blocks=1100, seed=11, validator_rate_limit=False) as net:
        history = hmyframe.staking_history(
            -2, rpc=net, cache=tmp_path, options=OPTIONS, progress=calls.append
        )
    assert history.network[["epoch", "block", "complete"]].values.tolist() == [
        [4, 999, True],
        [5, 1099, False],
    ]
    assert calls == [1, 1]  # one per epoch


def test_every_takes_every_nth_epoch(net: Devnet) -> None:
    history = hmyframe.staking_history(-3, every=2, rpc=net, cache=False, options=OPTIONS)
    assert history.network["epoch"].tolist() == [3, 5]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"every": 0}, "every must be a positive integer"),
        ({"start_epoch": 1, "end_epoch": 9}, "end_epoch 9 is beyond the current epoch 5"),
        ({"start_epoch": 4, "end_epoch": 2}, "start_epoch 4 is after end_epoch 2"),
        ({"start_epoch": "first"}, "start_epoch must be a non-negative integer, got 'first'"),
        ({"validator": "one1xyz"}, "one1"),
    ],
)
def test_bad_arguments_are_named(net: Devnet, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        hmyframe.staking_history(rpc=net, cache=False, options=OPTIONS, **kwargs)  # type: ignore[arg-type]


def test_an_unknown_validator_has_no_rows(net: Devnet) -> None:
    nobody = to_one("0x" + "12" * 20)
    history = hmyframe.staking_history(-2, rpc=net, cache=False, options=OPTIONS, validator=nobody)
    assert history.validator(nobody).empty
    assert len(history.network) == 2
