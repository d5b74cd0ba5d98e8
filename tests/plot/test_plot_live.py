"""hmyframe.plot.live against a devnet mining a block every 0.5 s: the view grows with the
chain, its bars are the window's blocks, it stops (by stop(), after ``seconds``, or when the
cell awaiting it is interrupted) leaving no task behind. Frames: build/plots/live_*.png."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import hmyframe.plot
from hmyframe.devnet import Devnet
from hmyframe.errors import ConfigError
from hmyframe.plot import LiveView

BUILD = Path(__file__).resolve().parents[2] / "build" / "plots"


async def _frames(view: LiveView, count: int, within: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while view.frames < count:
        assert not view.done, view.error
        assert loop.time() < deadline, f"{view.frames} frames after {within} s"
        await asyncio.sleep(0.05)


def _bar_totals(ax: object) -> dict[str, float]:
    """Each legend label's (shard's) bar heights summed."""
    out: dict[str, float] = {}
    for container in ax.containers:  # type: ignore[attr-defined]
        out[container.get_label()] = float(sum(bar.get_height() for bar in container))
    return out


def _others() -> set[asyncio.Task[object]]:
    return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}


async def test_live_view_grows_with_the_chain_and_stop_leaves_no_task(
    make_devnet: Callable[..., Devnet],
) -> None:
    net = make_devnet(blocks=300, seed=11, validator_rate_limit=False, mine_every=0.5)
    before = _others()
    view = hmyframe.plot.live(rpc=net, minutes=4, every=0.5, display=False)
    await _frames(view, 1)
    assert view.blocks is not None
    first_low, first_head = int(view.blocks["block_number"].min()), int(view.blocks["block_number"].max())
    BUILD.mkdir(parents=True, exist_ok=True)
    (BUILD / "live_first.png").write_bytes(view.png)
    await _frames(view, view.frames + 3)
    view.stop()
    await view  # a stopped view ends quietly
    assert view.done
    assert view.error is None
    assert _others() == before  # the follower's tasks, sockets and session are gone
    (BUILD / "live_last.png").write_bytes(view.png)
    assert view.png.startswith(b"\x89PNG")

    blocks = view.blocks
    assert blocks is not None
    assert int(blocks["block_number"].max()) > first_head  # new blocks came in
    assert int(blocks["block_number"].min()) >= first_low  # the window slides, never back
    assert set(blocks["shard_id"]) == {0, 1}
    assert not blocks.duplicated(["shard_id", "block_number"]).any()
    for _, group in blocks.groupby("shard_id"):  # each shard's window is gap-free
        numbers = group["block_number"].to_numpy()
        assert (np.diff(np.sort(numbers)) == 1).all()
    # the window: the last 4 minutes of chain time, from a minute's start
    newest = blocks["timestamp"].max()
    assert blocks["timestamp"].min() >= (newest - pd.Timedelta(minutes=4)).ceil("min")
    assert newest - blocks["timestamp"].min() > pd.Timedelta(minutes=3)

    top, bottom = view.figure.axes
    assert top.get_title(loc="left").startswith("Transactions per minute, by shard")
    assert bottom.get_title(loc="left").startswith("Gas used per minute, by shard")
    frame = view.figure.draw_without_rendering
    frame()
    for shard, group in blocks.groupby("shard_id"):  # the bars are the window's blocks
        assert _bar_totals(top)[f"shard {shard}"] == float(group["transaction_count"].sum())
        assert _bar_totals(bottom)[f"shard {shard}"] == float(group["gas_used"].sum())
    assert "Live: the last 4 minutes" in view.figure.get_suptitle()


async def test_live_view_stops_after_seconds_and_when_the_awaiting_cell_is_interrupted(
    make_devnet: Callable[..., Devnet],
) -> None:
    net = make_devnet(blocks=60, seed=12, validator_rate_limit=False, mine_every=0.5)
    before = _others()
    loop = asyncio.get_running_loop()
    began = loop.time()
    timed = hmyframe.plot.live(rpc=net, shard=0, minutes=1, every=0.2, seconds=2.5, display=False)
    await timed
    assert 2.0 < loop.time() - began < 20
    assert timed.done
    assert timed.frames >= 2
    assert set(timed.blocks["shard_id"]) == {0}  # type: ignore[index]

    view = hmyframe.plot.live(rpc=net, shard=1, minutes=1, every=0.2, display=False)
    cell = loop.create_task(view.wait())  # a cell running `await view`
    await _frames(view, 1)
    cell.cancel()  # the cell is interrupted
    with pytest.raises(asyncio.CancelledError):
        await cell
    assert view.done
    assert _others() == before


async def test_live_view_refuses_bad_arguments_and_reports_a_failing_node(
    make_devnet: Callable[..., Devnet],
) -> None:
    for bad, match in (
        ({"minutes": 0}, "minutes must be a number > 0, got 0"),
        ({"every": "1s"}, "every must be a number > 0, got '1s'"),
        ({"seconds": -1}, "seconds must be a number > 0, got -1"),
        ({"heads": "sse"}, "heads must be one of"),
        ({"size": 6}, r"size must be \(width, height\)"),
    ):
        with pytest.raises(ConfigError, match=match):
            hmyframe.plot.live(rpc="http://127.0.0.1:9", **bad)  # type: ignore[arg-type]
    net = make_devnet(blocks=20, seed=13, validator_rate_limit=False)
    view = hmyframe.plot.live(rpc=net, shard=5, display=False)  # the devnet has shards 0 and 1
    with pytest.raises(ConfigError, match="shard"):
        await view
    assert view.done
    assert isinstance(view.error, ConfigError)


def test_live_view_needs_a_running_loop() -> None:
    with pytest.raises(ConfigError, match="running event loop"):
        hmyframe.plot.live(rpc="http://127.0.0.1:9")
