"""The reports with chain text chosen by strangers, in a real headless Chromium.

A devnet serving hostile token names and symbols and validator descriptions
(``Devnet(hostile_text=True)``: 10,000-character names, U+202E RIGHT-TO-LEFT OVERRIDE, zero-width
and control characters, HTML and script, newlines, emoji, mathtext dollars) feeds the throughput,
staking, validator and account reports (the account's label, given by the caller, is as hostile). In the browser: nothing sticks out of the page, no script or
markup came in with the names, the right-to-left override and the control characters show as
visible escapes (and are nowhere in the page as themselves), and the "Most active tokens" chart
keeps its bars (a 10,000-character label once squeezed them to nothing).
"""

from __future__ import annotations

import io
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from report_browser import PageReport, open_page

import hmyframe
from hmyframe import report
from hmyframe.devnet import Chain, Devnet

SCREENSHOTS = Path(__file__).parents[2] / "build" / "reports"
OPTIONS = hmyframe.FetchOptions(validator_pacing=None)
HRC20_BLUE = np.array([0, 114, 178])  # the HRC-20 bars' colour (plot.tokens.STANDARD_COLORS)

pytestmark = pytest.mark.slow


@dataclass
class Seen:
    path: Path
    page: PageReport


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Seen]:
    folder = tmp_path_factory.mktemp("hostile")
    with Devnet(blocks=600, seed=5, hostile_text=True, validator_rate_limit=False) as net:
        common = {"rpc": net, "cache": folder / "cache", "options": OPTIONS}
        paths = {
            "throughput": report.throughput_report(folder / "throughput.html", 300, 599, **common),
            "staking": report.staking_report(folder / "staking.html", compare=299, history=2, **common),
        }
        head = hmyframe.validators(rpc=net, cache=folder / "cache", options=OPTIONS)
        reversed_name = head["name"].astype(object).str.startswith("\u202e")
        address = head.loc[reversed_name, "validator_address"].iloc[0]
        paths["validator"] = report.validator_report(folder / "validator.html", address, epochs=3, **common)
        holder = _holder(net.chain, 599)
        label = "\u202eevil <script>alert(2)</script> $x$ " + "L" * 500
        paths["account"] = report.account_report(
            folder / "account.html", holder, epochs=2, labels={holder: label}, **common
        )
    out: dict[str, Seen] = {}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in paths.items():
        page = open_page(path)
        (SCREENSHOTS / f"hostile_{name}.png").write_bytes(page.screenshot)
        out[name] = Seen(path, page)
    return out


def _holder(chain: Chain, head: int) -> str:
    """The token holder of shard 0 holding the most tokens at ``head``."""
    counts: dict[int, int] = {}
    for balances in chain.token_ledger(0, head).balances.values():
        for i, v in balances.items():
            if v:
                counts[i] = counts.get(i, 0) + 1
    return chain.token_holder(max(counts, key=lambda i: counts[i]))


def hidden_characters(text: str) -> set[str]:
    """Characters a reader would not see as themselves (layout newlines and tabs aside)."""
    return {
        c for c in text if c not in "\n\t" and unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn", "Zl", "Zp")
    }


@pytest.mark.parametrize("name", ["throughput", "staking", "validator", "account"])
def test_hostile_names_leave_the_layout_intact(seen: dict[str, Seen], name: str) -> None:
    page = seen[name].page
    layout = page.layout
    assert layout["wide"] == []  # no element reaches beyond the page
    assert layout["scroll_width"] == layout["width"]
    assert layout["scripts"] == 0  # "<script>" in names stays text
    assert layout["h1"] == 1  # "<h1>" in a symbol too
    assert page.console_errors == []
    assert page.requests == []  # "<img src=x>" fetched nothing
    for image in page.images:
        assert image["complete"], image["alt"]
        assert min(image["natural"]) > 0, image["alt"]
        assert min(image["shown"]) > 0, image["alt"]
    assert hidden_characters(page.text) == set()
    assert hidden_characters(page.title) == set()
    assert "\\u202e" in page.text  # the right-to-left override, as a visible escape


def test_throughput_report_lists_hostile_tokens_as_text(seen: dict[str, Seen]) -> None:
    text = seen["throughput"].page.text
    assert "\\u202eevil (WWWWW" in text  # symbol (name), the name cut short
    assert "W" * 40 not in text
    assert "<script>alert('name')</script>" in text  # shown, not run
    assert "\\x1b[31mRED" in text  # an ANSI escape, written out
    assert "NL\\nCR\\rTAB\\tNU" in text
    assert "$\\frac{1}{0}$" in text  # mathtext stays text in the page
    markup = seen["throughput"].path.read_text()
    assert "&lt;script&gt;" in markup
    assert "\u202e" not in markup


def test_most_active_tokens_chart_keeps_its_bars(seen: dict[str, Seen]) -> None:
    page = seen["throughput"].page
    image = next(i for i in page.images if i["alt"].startswith("The tokens with the most transfers"))
    x, y, width, height = (round(v) for v in image["box"])
    shot = np.asarray(Image.open(io.BytesIO(page.screenshot)).convert("RGB")).astype(int)
    chart = shot[y : y + height, x : x + width]
    blue = np.abs(chart - HRC20_BLUE).sum(axis=2) < 40
    # the widest bar: the longest run of bar colour along a row of the chart
    longest = 0
    for row in blue:
        edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(int), [0]))))
        runs = edges[1::2] - edges[::2]
        longest = max(longest, int(runs.max()) if runs.size else 0)
    assert longest > 0.2 * width
    assert blue.mean() > 0.03


def test_staking_and_validator_reports_escape_validator_names(seen: dict[str, Seen]) -> None:
    staking = seen["staking"].page.text
    assert "<script>alert(1)</sc" in staking  # a name with HTML, in the tables, as text
    assert "\\n\\r\\t\\x00\\x07" in staking  # newline, return, tab, NUL, BEL written out
    assert "X" * 33 not in staking  # a 140-character name, cut
    validator = seen["validator"].page
    assert validator.title.startswith("Validator report: \\u202e")
    assert "\u202e" not in seen["validator"].path.read_text()


def test_account_report_escapes_token_names_and_its_label(seen: dict[str, Seen]) -> None:
    account = seen["account"].page
    assert account.title.startswith("Account report: \\u202eevil <script>alert(2)</script>")
    assert "L" * 60 not in account.title  # the 500-character label, cut
    held = account.text[account.text.index("Tokens held") :]
    assert any(s in held for s in ("\\u202eevil", "\\x1b[31mRED", "NL\\nCR\\rTAB")), held[:600]
    assert "W" * 40 not in held
    markup = seen["account"].path.read_text()
    assert "\u202e" not in markup
    assert "<script>alert(2)" not in markup
