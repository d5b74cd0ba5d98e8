"""The three reports, fetched from a devnet and opened offline in a real headless Chromium."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from report_browser import install_chromium, open_page

import hmyframe
from hmyframe import metrics, report
from hmyframe.devnet import Chain, Devnet
from hmyframe.errors import ConfigError

SCREENSHOTS = Path(__file__).parents[2] / "build" / "reports"
DEVNET = {"blocks": 1200, "seed": 5}  # 6 epochs of 200 blocks
OPTIONS = hmyframe.FetchOptions(validator_pacing=None)


@dataclass
class Written:
    staking: Path
    throughput: Path
    validator: Path
    legacy_staking: Path
    address: str
    net: Devnet


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Written]:
    folder = tmp_path_factory.mktemp("reports")
    cache = folder / "cache"
    with (
        Devnet(**DEVNET, validator_rate_limit=False) as net,
        Devnet(**DEVNET, validator_rate_limit=False, profile="legacy") as legacy,
    ):
        common = {"rpc": net, "cache": cache, "options": OPTIONS}
        staking = report.staking_report(folder / "staking.html", compare=599, history=5, **common)
        throughput = report.throughput_report(folder / "throughput.html", 900, 1199, **common)
        head = hmyframe.validators(rpc=net, cache=cache, options=OPTIONS)
        address = metrics.below_threshold(head)["validator_address"].iloc[0]
        validator = report.validator_report(folder / "validator.html", address, epochs=6, **common)
        legacy_staking = report.staking_report(
            # its own cache: both devnets serve the same chain (same genesis, same cache key)
            folder / "legacy_staking.html",
            rpc=legacy,
            cache=folder / "legacy",
            options=OPTIONS,
            compare=599,
            history=3,
        )
        yield Written(staking, throughput, validator, legacy_staking, address, net)


def chart_count(path: Path) -> int:
    return len(re.findall(r"<img ", path.read_text()))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "title", "least"),
    [
        ("staking", "Harmony staking report", 13),
        ("throughput", "Harmony throughput report", 9),
        ("validator", "Validator report: ", 5),
        ("legacy_staking", "Harmony staking report", 13),
    ],
)
def test_report_opens_offline_in_chromium(written: Written, name: str, title: str, least: int) -> None:
    path: Path = getattr(written, name)
    seen = open_page(path)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"{name}.png").write_bytes(seen.screenshot)
    (SCREENSHOTS / f"{name}.pdf").write_bytes(seen.pdf)
    assert seen.title.startswith(title)
    assert len(seen.images) == chart_count(path) >= least
    for image in seen.images:
        assert image["complete"], image["alt"]
        assert min(image["natural"]) > 0, image["alt"]
        assert min(image["shown"]) > 0, image["alt"]
        assert image["scheme"] == "data", image["alt"]  # embedded, nothing to fetch
    assert seen.console_errors == []
    assert seen.requests == []  # the page asked for nothing beyond itself (and the network was off)
    assert seen.screenshot.startswith(b"\x89PNG")
    assert seen.pdf.startswith(b"%PDF")
    assert "no network is needed to view or print it" in seen.text


@pytest.mark.slow
def test_the_browser_check_has_teeth(tmp_path: Path) -> None:
    """A broken image, a console error and a network request are all reported."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<html><head><title>broken</title></head><body><img class="chart" src="missing.svg" alt="gone">'
        '<img src="http://example.invalid/x.png" alt="remote">'
        "<script>console.error('boom')</script></body></html>"
    )
    seen = open_page(page)
    assert seen.images[0]["natural"] == [0, 0]
    assert any("boom" in e for e in seen.console_errors)
    assert "http://example.invalid/x.png" in seen.requests


def test_staking_report_states_the_snapshot_figures(written: Written) -> None:
    text = written.staking.read_text()
    truth = Chain(**DEVNET)
    snapshot = truth.validators(1199)
    total = sum(v.total_delegation for v in snapshot)
    assert f'Total stake</div><div class="value">{total / 10**18:,.0f} <span class="unit">ONE</span>' in text
    elected = sum(v.currently_in_committee for v in snapshot)
    assert re.search(rf'Elected</div><div class="value">{elected:,}<', text)
    below = [v for v in snapshot if v.currently_in_committee and v.current_epoch_signing_percentage < 0.66]
    for validator in below:
        assert hmyframe.addresses.to_one(validator.address) in text
    assert "Changes since block 599 (epoch 2)" in text
    assert "History over 5 epochs" in text
    assert "Snapshots at the last block of each epoch (epochs 1–5)" in text


def test_legacy_staking_report_says_what_the_format_lacks(written: Written) -> None:
    text = written.legacy_staking.read_text()
    assert 'Median APR</div><div class="value">–<' in text
    assert "not in this format" in text
    assert "History over 3 epochs" in text


def test_throughput_report_counts_the_range(written: Written) -> None:
    text = written.throughput.read_text()
    truth = Chain(**DEVNET)
    count = sum(len(truth.block(shard, n).transactions) for shard in (0, 1) for n in range(900, 1200))
    assert re.search(rf'Transactions</div><div class="value">{count:,}<', text)
    assert "shard 0: blocks 900–1,199; shard 1: blocks 900–1,199" in text


def test_throughput_report_has_fees_and_tokens(written: Written) -> None:
    text = written.throughput.read_text()
    common = {"rpc": written.net, "cache": False, "options": OPTIONS, "shard": "all"}
    receipts = hmyframe.receipts(900, 1199, **common)
    transfers = hmyframe.token_transfers(900, 1199, **common)
    assert "<h2>Fees</h2>" in text
    assert "<h2>Tokens</h2>" in text
    total = sum(int(f) for f in receipts["fee"])  # exact, from the fetched receipts
    assert f'Fees paid</div><div class="value">{total / 10**18:,.2f} <span class="unit">ONE</span>' in text
    failed = int((receipts["status"] == False).sum())  # noqa: E712
    assert f"{failed:,} of {len(receipts):,} transactions" in text
    assert len(transfers) > 0  # the devnet's default token activity
    assert re.search(rf'Token transfers</div><div class="value">{len(transfers):,}<', text)
    payer = receipts.groupby("from_address")["fee"].sum().sort_values(ascending=False).index[0]
    top = text[text.index("<h3>Top payers</h3>") :]
    assert top.index(payer) < top.index("</table>")
    busiest = transfers.groupby(["shard_id", "token_address"]).size().idxmax()
    listed = text[text.index("<h3>Most active tokens</h3>") :]
    assert busiest[1] in listed
    # the listed tokens are named by the tokens dataset, read at the range's last block
    meta = hmyframe.tokens([busiest[1]], block=1199, shard=int(busiest[0]), rpc=written.net, cache=False)
    symbol, name = meta["symbol"].iloc[0], meta["name"].iloc[0]
    assert f'<td class="chain">{symbol} ({name})</td>' in listed  # a chain-text cell


def test_validator_report_lists_each_epoch(written: Written) -> None:
    text = written.validator.read_text()
    assert written.address in text
    history = hmyframe.staking_history(
        -6, rpc=written.net, cache=False, options=OPTIONS, validator=written.address
    )
    rows = history.validator(written.address)
    assert len(rows) == 6
    table = text[text.index("<h2>Per epoch</h2>") :]
    assert table.count("<tr>") == 1 + len(rows)
    status = report.validator.status_changes(rows)
    assert status["change"].iloc[0] == "first epoch reported"
    for change in status["change"]:
        assert change.replace("→", "→") in text.replace("&gt;", ">")


def test_render_from_frames_without_fetching() -> None:
    empty = hmyframe.to_pandas
    frames = {
        name: empty(hmyframe.dataset(name).schema.empty_table())
        for name in ("validators", "voting_power", "delegations")
    }
    page = report.staking.render(
        report.Snapshot(frames["validators"], frames["voting_power"], frames["delegations"], 7)
    )
    html = page.render()
    assert "Validator snapshot at block 7" in html
    assert page.charts == 7
    assert "No elected validator is below the threshold." in html
    blocks = empty(hmyframe.dataset("blocks").schema.empty_table())
    txs = empty(hmyframe.dataset("transactions").schema.empty_table())
    staking = empty(hmyframe.dataset("staking_transactions").schema.empty_table())
    assert "an empty range" in report.throughput.render(blocks, txs, staking).render()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: report.staking_report("x.txt", rpc="devnet"), "must name an .html file"),
        (lambda: report.staking_report(42, rpc="devnet"), "out must be a path"),
        (lambda: report.validator_report("v.html", "one1nope", rpc="devnet"), "one1"),
        (lambda: report.throughput_report("t.html", 0, 10, shard="some", rpc="devnet"), "shard must be"),
        (
            lambda: report.throughput_report("t.html", 0, 10, freq="fortnightly", rpc="devnet"),
            "pandas frequency",
        ),
    ],
)
def test_bad_report_arguments_are_named(call: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        call()  # type: ignore[operator]


def test_compare_must_precede_the_snapshot(written: Written, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="compare block 1199 must be before the snapshot block 1199"):
        report.staking_report(
            tmp_path / "s.html", rpc=written.net, cache=False, options=OPTIONS, compare=1199
        )
    assert not (tmp_path / "s.html").exists()


def test_the_browser_is_debians_chromium_and_runs() -> None:
    browser = install_chromium()  # installed with apt-get when missing
    version = subprocess.run([browser, "--version"], capture_output=True, text=True, check=True, timeout=60)
    assert version.stdout.startswith("Chromium ")


def test_analysis_subpackages_load_on_first_use() -> None:
    """``import hmyframe`` does not import matplotlib; hmyframe.plot / .report / .metrics load when used."""
    import subprocess
    import sys

    code = (
        "import sys, hmyframe; assert 'matplotlib' not in sys.modules; "
        "assert hmyframe.metrics.gini([1, 2, 3, 4]) == 0.25; "
        "assert callable(hmyframe.report.staking_report) and callable(hmyframe.plot.history); "
        "assert 'matplotlib' in sys.modules; print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout == "ok\n", done.stderr
