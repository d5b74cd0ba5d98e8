"""What the fee and token plots show, checked against the devnet's raw receipts and transfers."""

from __future__ import annotations

import datetime as dt

import matplotlib.dates as mdates
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from hmyframe import plot
from hmyframe.errors import ConfigError
from tests.fee_token_frames import frames

ONE = 10**18
ZERO = "0x" + "0" * 40


def _texts(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.texts]


def _minutes(receipts: pd.DataFrame, blocks: pd.DataFrame) -> pd.DataFrame:
    merged = receipts.merge(
        blocks[["shard_id", "block_number", "timestamp"]], on=["shard_id", "block_number"]
    )
    merged["minute"] = pd.to_datetime(merged["timestamp"], utc=True).dt.floor("min")
    return merged


def test_fees_are_stacked_per_minute_and_shard(ax: Axes) -> None:
    data = frames()
    receipts, blocks = data["receipts"], data["blocks"]
    plot.fees(receipts, blocks, "min", ax=ax)
    merged = _minutes(receipts, blocks)
    bars = {c.get_label(): [p for p in c.patches if isinstance(p, Rectangle)] for c in ax.containers}
    assert set(bars) == {"shard 0", "shard 1"}
    for shard in (0, 1):
        expected = {
            mdates.date2num(minute.tz_localize(None).to_pydatetime()): sum(int(f) for f in group["fee"]) / ONE
            for minute, group in merged[merged["shard_id"] == shard].groupby("minute")
        }
        drawn = {round(p.get_x(), 9): p.get_height() for p in bars[f"shard {shard}"]}
        assert drawn == pytest.approx({round(x, 9): v for x, v in expected.items()})
    # shard 1 is stacked on shard 0
    assert [p.get_y() for p in bars["shard 1"]] == pytest.approx([p.get_height() for p in bars["shard 0"]])
    total = sum(int(f) for f in receipts["fee"]) / ONE
    assert any(
        t.startswith(f"{total:,.2f} ONE in all (exact sum) over {len(receipts):,} transactions")
        for t in _texts(ax)
    )
    assert ax.get_ylabel() == "fees per minute (ONE)"
    assert ax.get_title(loc="left").strip() == "Fees paid per minute, by shard"
    assert isinstance(ax.xaxis.get_major_formatter(), mdates.ConciseDateFormatter)


def test_failed_share_lines_per_shard(ax: Axes) -> None:
    data = frames()
    receipts, blocks = data["receipts"], data["blocks"]
    plot.failed_share(receipts, blocks, "min", ax=ax)
    merged = _minutes(receipts, blocks)
    lines = {line.get_label(): line for line in ax.lines}
    for shard in (0, 1):
        mine = merged[merged["shard_id"] == shard]
        expected = mine.groupby("minute")["status"].apply(lambda s: float((s == False).sum() / len(s)))  # noqa: E712
        line = lines[f"shard {shard}"]
        assert list(line.get_ydata()) == pytest.approx(expected.tolist())
        assert list(line.get_xdata()) == [m.tz_localize(None).to_datetime64() for m in expected.index]
        share = (receipts.loc[receipts["shard_id"] == shard, "status"] == False).mean()  # noqa: E712
        assert f"shard {shard}: {share * 100:.1f}%" in _texts(ax)[-1]
    assert ax.yaxis.get_major_formatter()(0.25, 0) == "25%"
    assert ax.get_ylim()[0] == 0


def test_top_tokens_bars_labels_and_volumes(ax: Axes) -> None:
    transfers = frames()["token_transfers"]
    hrc20 = transfers[transfers["standard"] == "hrc20"]
    top20 = hrc20.groupby("token_address_hex").size().idxmax()
    shard = int(hrc20.loc[hrc20["token_address_hex"] == top20, "shard_id"].iloc[0])
    tokens = pd.DataFrame(
        {"address_hex": [top20], "shard_id": [shard], "name": ["Top"], "symbol": ["TOP"], "decimals": [6]}
    )
    plot.top_tokens(transfers, tokens, n=5, ax=ax)
    counts = transfers.groupby(["shard_id", "token_address"]).size().sort_values(ascending=False)
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    widths = sorted((p.get_width() for p in bars), reverse=True)
    assert widths == counts.head(5).tolist()
    labels = [t.get_text() for t in ax.get_yticklabels()][::-1]  # top bar first
    first_shard, first_token = counts.index[0]
    assert labels[0] == f"{first_token[:8]}…{first_token[-4:]} (shard {first_shard})"
    volume = sum(int(a) for a in hrc20.loc[hrc20["token_address_hex"] == top20, "amount"])
    one = transfers.loc[transfers["token_address_hex"] == top20, "token_address"].iloc[0]
    # the busiest HRC-20 is among the top 5, named by its symbol, its address beside
    assert f"TOP · {one[:8]}…{one[-4:]} (shard {shard})" in labels
    assert f"volume {volume / 10**6:.3g} TOP" in _texts(ax)  # scaled by its 6 decimals
    nft = transfers[transfers["standard"] == "hrc721"].groupby("token_address").size().max()
    assert f"volume {nft} NFTs" in _texts(ax)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert set(legend) <= {"HRC-20", "HRC-721", "HRC-1155"}
    assert "HRC-721" in legend
    assert f"{len(transfers):,} transfers of {counts.size} tokens; top 5 shown" in _texts(ax)
    with pytest.raises(ConfigError, match="n must be a positive number of tokens, got 0"):
        plot.top_tokens(transfers, n=0, ax=ax)


@pytest.mark.parametrize(
    ("draw", "message"),
    [
        (
            lambda f, ax: plot.fees(f["receipts"].iloc[:0], f["blocks"], ax=ax),
            "No transactions in this range",
        ),
        (lambda f, ax: plot.failed_share(f["receipts"].iloc[:0], ax=ax), "No transactions in this range"),
        (
            lambda f, ax: plot.top_tokens(f["token_transfers"].iloc[:0], ax=ax),
            "No token transfers in this range",
        ),
    ],
)
def test_empty_frames_give_plots_that_say_so(ax: Axes, draw: object, message: str) -> None:
    draw(frames(), ax)  # type: ignore[operator]
    assert message in _texts(ax)


def test_the_time_axis_is_utc(ax: Axes) -> None:
    data = frames()
    plot.fees(data["receipts"], data["blocks"], "min", ax=ax)
    assert ax.xaxis.get_major_formatter()._tz == dt.UTC
