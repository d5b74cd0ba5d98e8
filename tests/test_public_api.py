"""The public API: names, sync/async twins, the Jupyter case, ``$HMYFRAME_RPC``, and every spec
method reachable (asserted from the devnet's per-method statistics)."""

from __future__ import annotations

import asyncio
import inspect
import re
import threading
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import hmyframe
from hmyframe import FetchOptions, aio
from hmyframe._public import REGISTRY
from hmyframe.devnet import Chain, Devnet, DevnetStats
from hmyframe.errors import ConfigError

SYNC_NAMES = sorted(REGISTRY)


def test_every_name_in_all_exists() -> None:
    missing = [name for name in hmyframe.__all__ if not hasattr(hmyframe, name)]
    assert missing == []
    assert len(set(hmyframe.__all__)) == len(hmyframe.__all__)
    for name in aio.__all__:
        assert hasattr(aio, name), name
    # every sync fetcher is exported at the top level
    assert set(SYNC_NAMES) <= set(hmyframe.__all__)


@pytest.mark.parametrize("name", SYNC_NAMES)
def test_each_sync_function_has_an_async_twin_with_the_same_signature(name: str) -> None:
    sync = getattr(hmyframe, name)
    twin = getattr(aio, name)
    assert name in aio.__all__
    assert not inspect.iscoroutinefunction(sync)
    assert inspect.iscoroutinefunction(twin)
    assert inspect.signature(sync) == inspect.signature(twin)
    assert list(inspect.signature(sync).parameters) == list(inspect.signature(twin).parameters)
    assert sync.__doc__
    assert twin.__doc__
    assert sync.__doc__.startswith(twin.__doc__)
    assert f"hmyframe.aio.{name}" in sync.__doc__


async def test_sync_functions_work_inside_a_running_loop(
    devnet: Devnet, devnet_truth: Chain, tmp_path: Path
) -> None:
    # the Jupyter case: a loop runs in this thread, and the plain function is called anyway
    asyncio.get_running_loop()
    df = hmyframe.transactions(0, 29, rpc=devnet, cache=tmp_path)
    assert df["transaction_hash"].tolist() == [t.hash for t in devnet_truth.iter_transactions(0, 0, 29)]
    assert hmyframe.head(rpc=devnet) == devnet_truth.head(0)
    twin = await aio.transactions(0, 29, rpc=devnet, cache=tmp_path)
    pd.testing.assert_frame_equal(df, twin, check_exact=True)
    assert threading.current_thread() is threading.main_thread()


def test_rpc_none_falls_back_to_hmyframe_rpc(
    devnet: Devnet,
    devnet_stats: DevnetStats,
    devnet_truth: Chain,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HMYFRAME_RPC", devnet.url)
    monkeypatch.setenv("HMYFRAME_TRACE_RPC", devnet.trace_url)
    monkeypatch.setenv("HMYFRAME_CACHE", str(tmp_path / "env-cache"))
    assert hmyframe.head() == devnet_truth.head(0)
    df = hmyframe.transactions(0, 19)  # rpc=None, cache=True: both from the environment
    assert df["transaction_hash"].tolist() == [t.hash for t in devnet_truth.iter_transactions(0, 0, 19)]
    traces = hmyframe.traces(0, 19)
    assert len(traces) > 0
    assert devnet_stats.calls_of("hmyv2_getBlocks") > 0
    assert devnet_stats.calls_of("trace_block") == 20
    assert (tmp_path / "env-cache").is_dir()
    assert any((tmp_path / "env-cache").rglob("transactions__*.parquet"))


def test_rpc_devnet_is_the_embedded_devnet() -> None:
    assert hmyframe.head(rpc="devnet") == 1999
    assert hmyframe.head(1, rpc="devnet") == 1999


def test_point_lookups_are_not_fetched_by_name(devnet: Devnet) -> None:
    with pytest.deprecated_call(), pytest.raises(ConfigError, match=r"use hmyframe\.tx_counts\(\)"):
        hmyframe.fetch("tx_counts", 0, 9, rpc=devnet, cache=False)
    with pytest.deprecated_call(), pytest.raises(ConfigError, match="unknown dataset"):
        hmyframe.fetch("nosuch", 0, 9, rpc=devnet, cache=False)
    with pytest.raises(ConfigError, match="rpc must be an http"):
        hmyframe.head(rpc="ftp://example.com")


def test_the_door_by_name_is_deprecated_and_names_the_dataset_s_own(devnet: Devnet) -> None:
    with pytest.warns(DeprecationWarning, match=r"call hmyframe\.blocks\(\.\.\.\)") as caught:
        by_name = hmyframe.fetch("blocks", 0, 9, rpc=devnet, cache=False)
    assert len(caught) == 1
    pd.testing.assert_frame_equal(by_name, hmyframe.blocks(0, 9, rpc=devnet, cache=False), check_exact=True)


def _by_name(*args: Any, **kwargs: Any) -> Any:
    """The deprecated door by name (it warns; its argument checks still hold)."""
    with pytest.deprecated_call():
        return hmyframe.fetch(*args, **kwargs)


SENDER = Chain(blocks=400, seed=7).block(0, 5).transactions[0].sender
TX = Chain(blocks=400, seed=7).block(0, 5).transactions[0].hash


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda net: _by_name("validators", 5, rpc=net, cache=False), "snapshot at one block"),
        (lambda net: _by_name("blocks", 0, 9, block=5, rpc=net, cache=False), "give start/end"),
        (lambda net: hmyframe.tx_counts([SENDER], 10**6, rpc=net), "block 1000000 is beyond the head 399"),
        (lambda net: hmyframe.tx_counts([SENDER], 5, shard=9, rpc=net), "shard 9 is not served"),
        (
            lambda net: hmyframe.blocks(1.5, 3, rpc=net, cache=False),
            "start 1.5 is not understood (floats and booleans are not block numbers)",
        ),
        (lambda net: hmyframe.blocks(0, "ten", rpc=net, cache=False), "end 'ten' is not understood"),
        (lambda net: hmyframe.validators(10**6, rpc=net, cache=False), "beyond the head 399"),
        (lambda net: hmyframe.transactions_by_hash(["0x12"], rpc=net), "64 hex digits"),
        (lambda net: hmyframe.transactions_by_hash([TX], rpc=net, on_missing="x"), "on_missing"),
        (lambda net: hmyframe.traces(0, 9, rpc=net.url, cache=False), "need a trace endpoint"),
        (lambda net: hmyframe.blocks(0, 9, rpc=net, cache=123), "cache must be"),
        (lambda net: hmyframe.head(9, rpc=net), "shard 9 is not served"),
    ],
)
def test_bad_arguments_are_config_errors_naming_the_value(devnet: Devnet, call, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        call(devnet)


@pytest.mark.parametrize("version", [1, 2])
def test_every_spec_method_is_reachable_from_the_public_api(
    devnet: Devnet, devnet_stats: DevnetStats, devnet_truth: Chain, version: int
) -> None:
    prefix = "hmy_" if version == 1 else "hmyv2_"
    options = FetchOptions(version=version, strategy="batch", validator_pacing=None)
    txs = [t for t in devnet_truth.iter_transactions(0, 50, 60) if t.trace is not None][:3]
    address = txs[0].sender

    hmyframe.head(rpc=devnet)
    hmyframe.blocks(50, 60, rpc=devnet, cache=False, options=options)
    hmyframe.transactions_by_hash([t.hash for t in txs], rpc=devnet, options=options)
    hmyframe.tx_counts([address], 60, rpc=devnet)
    hmyframe.validators(100, rpc=devnet, cache=False, options=options)
    hmyframe.shards(rpc=devnet)
    hmyframe.pending_cx_receipts(rpc=devnet)
    hmyframe.traces(50, 60, rpc=devnet, cache=False, options=options)
    hmyframe.traces_by_hash([t.hash for t in txs], rpc=devnet, options=options)

    stats = devnet_stats.total()
    expected = {
        "hmyv2_blockNumber": 1,  # the head is always asked with v2
        f"{prefix}getBlockByNumber": 11,
        f"{prefix}getTransactionByHash": 3,
        "hmyv2_getTransactionCount": 1,
        f"{prefix}getAllValidatorInformationByBlockNumber": 3,
        "hmy_getShardingStructure": 1,
        "hmyv2_getPendingCXReceipts": 1,
        "trace_block": 11,
        "trace_transaction": 3,
    }
    for method, at_least in expected.items():
        assert stats.calls_of(method) >= at_least, (method, dict(stats.calls_by_method))
    assert dict(stats.rpc_errors) == {}


async def test_one_open_session_serves_every_fetcher_in_generation_1(
    devnet: Devnet, devnet_stats: DevnetStats, devnet_truth: Chain
) -> None:
    # an open Session passed as rpc= carries its options (hmy_ methods here) to the point
    # lookups too, which take no options of their own
    txs = list(devnet_truth.iter_transactions(0, 50, 52))
    options = FetchOptions(version=1, validator_pacing=None)
    async with hmyframe.Session(devnet, cache=False, options=options) as session:
        counts = await aio.tx_counts([txs[0].sender], 60, rpc=session)
        receipts = await aio.pending_cx_receipts(1, rpc=session)
        found = await aio.transactions_by_hash([t.hash for t in txs], rpc=session)
        head = await aio.head(rpc=session)
    assert counts["transaction_count"].tolist() == [devnet_truth.transaction_count(0, txs[0].sender, 60)]
    assert len(receipts) == sum(len(p.receipts) for p in devnet_truth.pending_cx_receipts(1))
    assert sorted(found["transaction_hash"]) == sorted(t.hash for t in txs)
    assert head == devnet_truth.head(0)
    stats = devnet_stats.total()
    assert stats.calls_of("hmy_getTransactionCount") == 1
    assert stats.calls_of("hmy_getPendingCXReceipts") == 1
    assert stats.calls_of("hmy_getTransactionByHash") == len(txs)
    assert stats.calls_of("hmyv2_getTransactionByHash") == 0
