"""The throughput report's DEX section, fetched from a devnet with a busy exchange (plain and with
hostile token symbols), opened in a real headless Chromium; its figures checked against the Swap
logs the devnet's chain holds, decoded here by hand."""

from __future__ import annotations

import html
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest
from report_browser import PageReport, open_page

import hmyframe
from hmyframe import report
from hmyframe.devnet import Chain, Devnet

SCREENSHOTS = Path(__file__).parents[2] / "build" / "reports"
NET = {"blocks": 600, "seed": 5, "dex_density": 0.5}
START, END = 300, 599
SWAP = "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822"
DEX_CHARTS = ("Volume in ONE per time bucket", "Each pair's price", "Each pair's liquidity")

pytestmark = pytest.mark.slow


@dataclass
class Written:
    path: Path
    page: PageReport
    truth: Chain


def _write(folder: Path, hostile: bool) -> Written:
    with Devnet(**NET, hostile_text=hostile, validator_rate_limit=False) as net:
        wone = [net.chain.dex(s).wone for s in range(net.n_shards)]
        options = hmyframe.FetchOptions(validator_pacing=None)
        name = "throughput_dex_hostile" if hostile else "throughput_dex"
        path = report.throughput_report(
            folder / f"{name}.html", START, END, rpc=net, cache=folder / name, options=options, wone=wone
        )
    page = open_page(path)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"{name}.png").write_bytes(page.screenshot)
    return Written(path, page, Chain(**NET, hostile_text=hostile))


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Written:
    return _write(tmp_path_factory.mktemp("dex-report"), False)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Written:
    return _write(tmp_path_factory.mktemp("dex-report-hostile"), True)


def swap_logs(truth: Chain) -> list[tuple[int, str, list[int]]]:
    """(shard, pair, [amount0In, amount1In, amount0Out, amount1Out]) of every Swap log of the range."""
    out = []
    for shard in range(truth.n_shards):
        for number in range(START, END + 1):
            for tx in truth.block(shard, number).transactions:
                for log in tx.logs:
                    if log.topics[0] == SWAP:
                        data = log.data[2:]
                        out.append(
                            (shard, log.address, [int(data[64 * k : 64 * k + 64], 16) for k in range(4)])
                        )
    return out


def card(text: str, label: str) -> str:
    found = re.search(rf'<div class="label">{label}</div><div class="value">([^<]*)', text)
    assert found is not None, label
    return html.unescape(found.group(1)).strip()


def test_the_dex_section_opens_with_its_charts_and_states_the_swaps(plain: Written) -> None:
    seen = plain.page
    alts = [image["alt"] for image in seen.images]
    for caption in DEX_CHARTS:
        (image,) = [i for i in seen.images if i["alt"].startswith(caption)]
        assert image["complete"], caption
        assert min(image["shown"]) > 0, caption
    assert len(alts) >= 12
    assert seen.console_errors == []
    assert seen.requests == []
    text = plain.path.read_text()
    logs = swap_logs(plain.truth)
    assert card(text, "Swaps") == f"{len(logs):,}"
    assert card(text, "Pairs traded") == f"{len({(s, p) for s, p, _ in logs})}"
    assert "<h2>DEX</h2>" in text
    assert "Top pairs by volume" in seen.text


def test_the_pairs_table_gives_the_wone_pairs_volume_in_one(plain: Written) -> None:
    """A WONE pair's volume in ONE is the WONE it swapped, summed from the raw Swap logs."""
    truth = plain.truth
    wone_side: dict[tuple[int, str], int] = {}
    for shard in range(truth.n_shards):
        dex = truth.dex(shard)
        for pair in dex.pairs:
            if dex.wone in (pair.token0, pair.token1):
                wone_side[(shard, pair.address)] = 0 if pair.token0 == dex.wone else 1
    volume: dict[tuple[int, str], int] = defaultdict(int)
    for shard, pair, (in0, in1, out0, out1) in swap_logs(truth):
        side = wone_side.get((shard, pair))
        if side is not None:
            volume[(shard, pair)] += in0 + out0 if side == 0 else in1 + out1
    text = plain.page.text.split("Top pairs by volume", 1)[1]  # the pairs are in the Tokens table too
    assert len(volume) == 6  # three WONE pairs per shard
    for (shard, pair), atto in volume.items():
        one1 = hmyframe.addresses.to_one(pair)
        row = next(line for line in text.splitlines() if one1[:12] in line)
        assert row.split("\t")[1] == str(shard), row
        assert f"{atto / 10**18:,.0f}" in row, row


def test_hostile_symbols_leave_the_dex_section_intact(hostile: Written) -> None:
    page = hostile.page
    layout = page.layout
    assert layout["wide"] == []  # nothing sticks out of the page
    assert layout["scroll_width"] == layout["width"]
    assert layout["scripts"] == 0
    assert layout["h1"] == 1  # "<h1>HUGE" in a symbol stays text
    for caption in DEX_CHARTS:
        (image,) = [i for i in page.images if i["alt"].startswith(caption)]
        assert image["complete"]
        assert min(image["shown"]) > 0
    section = page.text.split("Top pairs by volume", 1)[1]
    assert "\\u202eevil" in section  # dUSD's symbol: the override written out
    assert "\\x1b[31mRED" in section  # B32's: an ANSI escape written out
    assert "</td></tr><" in section  # HUGE's: markup shown as text
    markup = hostile.path.read_text()
    assert "\u202e" not in markup
    assert "\x1b" not in markup
