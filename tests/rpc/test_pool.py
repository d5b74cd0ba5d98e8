"""Several endpoints of one chain (``rpc=[...]``, ``--rpc`` repeated): spread by measured speed,
a failing endpoint set aside and tried again later, every endpoint's chain checked before use.
Devnets over real HTTP on 127.0.0.1; each devnet counts what it served (``net.stats``)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

import hmyframe
from hmyframe.cli import main
from hmyframe.devnet import Devnet
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._ranges import fetch_range
from hmyframe.errors import ConfigError, WrongChainError
from hmyframe.rpc import Client, RetryPolicy
from hmyframe.rpc.pool import EndpointPool

#: Retries without sleeping (the pool's cool-downs still apply).
FAST = RetryPolicy(attempts=12, backoff_base=0, jitter=False, honour_retry_after=False)
BLOCKS = "hmyv2_getBlocks"


def _free_port_url() -> str:
    """The URL of a port nobody listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def test_calls_go_mostly_to_the_faster_endpoint(make_devnet: Callable[..., Devnet]) -> None:
    fast = make_devnet(blocks=2000, seed=3, validator_rate_limit=False)
    slow = make_devnet(blocks=2000, seed=3, validator_rate_limit=False, latency_ms=250)
    options = FetchOptions(blocks_per_request=10, max_concurrent_chunks=2, retry=FAST)
    alone = await hmyframe.aio.blocks(0, 1999, rpc=fast, cache=False, options=options)
    fast.stats.reset()
    pooled = await hmyframe.aio.blocks(0, 1999, rpc=[fast, slow], cache=False, options=options)
    pd.testing.assert_frame_equal(pooled, alone)
    to_fast = fast.stats.total().calls_of(BLOCKS)
    to_slow = slow.stats.total().calls_of(BLOCKS)
    assert to_fast + to_slow == 200  # every block asked once, of one of them
    assert to_slow >= 1  # measured, then avoided
    assert to_fast > 2 * to_slow, (to_fast, to_slow)


async def test_a_failing_endpoint_is_set_aside_and_used_again_after_its_cooldown(
    make_devnet: Callable[..., Devnet],
) -> None:
    good = make_devnet(blocks=1500, seed=4, validator_rate_limit=False, latency_ms=5)
    flaky = make_devnet(blocks=1500, seed=4, validator_rate_limit=False, latency_ms=5)
    flaky.faults.add("status", status=503, times=3, method=BLOCKS)  # its next 3 getBlocks fail
    pool = EndpointPool(
        [Client(good.url, retry=RetryPolicy(attempts=1)), Client(flaky.url, retry=RetryPolicy(attempts=1))],
        retry=FAST,
        cooldown=(0.05, 0.2),
    )
    options = FetchOptions(blocks_per_request=20, max_concurrent_chunks=1, retry=FAST)
    async with pool, Session(pool, cache=False, options=options) as session:
        tables = await fetch_range(session, ["blocks"], 0, 1499)
    expected = await hmyframe.aio.blocks(0, 1499, rpc=good, cache=False, options=options)
    pd.testing.assert_frame_equal(hmyframe.to_pandas(tables["blocks"]), expected)
    served = flaky.stats.total()
    assert served.faults == {"status": 3}
    assert served.by_status.get(200, 0) > 3  # used again after the failures, and it answered
    state = pool.endpoints[1]
    assert state.failures == 3
    assert state.failures_in_a_row == 0
    assert state.calls > 0
    assert pool.endpoints[0].failures == 0


async def test_an_endpoint_failing_part_of_the_time_loses_nothing(make_devnet: Callable[..., Devnet]) -> None:
    good = make_devnet(blocks=1500, seed=5, validator_rate_limit=False)
    flaky = make_devnet(blocks=1500, seed=5, validator_rate_limit=False)
    flaky.faults.add("status", status=503, probability=0.3)
    flaky.faults.add("reset", probability=0.1)
    options = FetchOptions(blocks_per_request=50, retry=FAST)
    pooled = await hmyframe.aio.transactions(0, 1499, rpc=[flaky, good], cache=False, options=options)
    alone = await hmyframe.aio.transactions(0, 1499, rpc=good, cache=False, options=options)
    pd.testing.assert_frame_equal(pooled, alone)
    assert sum(flaky.stats.total().faults.values()) >= 1


async def test_endpoints_of_different_chains_are_refused_before_anything_is_written(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    one = make_devnet(blocks=300, seed=1, validator_rate_limit=False)
    other = make_devnet(blocks=300, seed=2, validator_rate_limit=False)
    with pytest.raises(WrongChainError) as caught:
        await hmyframe.aio.blocks(0, 99, rpc=[one.url, other.url], cache=tmp_path)
    message = str(caught.value)
    assert one.url in message
    assert other.url in message
    assert "genesis" in message
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # noqa: ASYNC240
    assert other.stats.total().calls_of(BLOCKS) == 0  # never used for data


async def test_an_endpoint_down_at_the_start_is_set_aside(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(blocks=500, seed=6, validator_rate_limit=False)
    down = _free_port_url()
    pool = EndpointPool(
        [Client(down, retry=RetryPolicy(attempts=1)), Client(net.url, retry=RetryPolicy(attempts=1))],
        retry=FAST,
        cooldown=(30.0, 60.0),
    )
    async with pool, Session(pool, cache=False, options=FetchOptions(retry=FAST)) as session:
        tables = await fetch_range(session, ["blocks"], 0, 499)
    assert tables["blocks"]["block_number"].to_pylist() == list(range(500))
    assert pool.endpoints[0].failures == 1
    assert pool.endpoints[0].genesis is None  # never trusted
    assert pool.endpoints[1].calls > 0


def test_bad_endpoint_lists_are_refused() -> None:
    with pytest.raises(ConfigError, match="empty list"):
        Session([])
    with pytest.raises(ConfigError, match="list of URLs"):
        Session(["http://127.0.0.1:1", 42])
    with pytest.raises(ConfigError, match="given twice"):
        EndpointPool([Client("http://127.0.0.1:1"), Client("http://127.0.0.1:1")])
    with pytest.raises(ConfigError, match="at least two"):
        EndpointPool([Client("http://127.0.0.1:1")])


def test_cli_export_with_two_endpoints(
    make_devnet: Callable[..., Devnet], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = make_devnet(blocks=2000, seed=8, validator_rate_limit=False)
    two = make_devnet(blocks=2000, seed=8, validator_rate_limit=False)
    code = main(
        ["export", "blocks", "--rpc", one.url, "--rpc", two.url, "--start", "0", "--end", "1999",
         "--blocks-per-request", "50", "--out", str(tmp_path), "--no-progress"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    exported = hmyframe.read("blocks", tmp_path)
    assert exported["block_number"].tolist() == list(range(2000))
    asked = [net.stats.total().calls_of(BLOCKS) for net in (one, two)]
    assert sum(asked) == 40, asked
    assert min(asked) >= 1, asked
