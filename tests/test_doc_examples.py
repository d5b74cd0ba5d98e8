"""The README's and the docs pages' code runs as written (tests/doc_examples.py says which blocks).

Each page's runnable blocks run in order in one namespace, as a reader would paste them into
one notebook, in an empty folder of its own (so ``cache=True`` means that folder's ``data/``),
against the embedded devnet the examples name (``rpc="devnet"``). A few claims the examples
make in their comments are then checked on what they computed. The named examples run in
tests/test_readme_examples.py and tests/engine/test_roundtrip.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import pytest
from doc_examples import README, ROOT, Block, all_blocks, blocks, pages, run_commands, run_python

matplotlib.use("Agg")

#: The named examples, and the test that runs each and checks its claims.
NAMED = {
    "sql": "tests/test_readme_examples.py",
    "provenance": "tests/test_readme_examples.py",
    "events": "tests/test_readme_examples.py",
    "roundtrip": "tests/engine/test_roundtrip.py",
}


def _quickstart(text: str) -> str:
    m = re.search(r"<!-- quickstart:start -->\n(```sh\n.*?```\n)<!-- quickstart:end -->", text, re.S)
    assert m is not None, "README.md has no quickstart:start / quickstart:end block"
    return m[1]


def test_the_quickstart_block_is_the_readmes_and_ci_runs_its_command_2() -> None:
    readme = README.read_text(encoding="utf-8")
    assert readme.count("<!-- quickstart:start -->") == 1
    block = _quickstart(readme)
    assert block in (ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8")
    commands = [line for line in block.splitlines()[1:-1] if line and not line.startswith("#")]
    assert len(commands) == 2
    assert commands[0].endswith(".venv/bin/hmyframe demo")
    assert commands[1].endswith(".venv/bin/python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[1] in ci, ".ci/run must run the Quick start's command 2 verbatim, as a line of its own"


def test_every_block_runs_or_says_why_not_and_each_named_example_has_its_test() -> None:
    every = list(all_blocks())
    assert sum(b.runs for b in every) >= 10  # the reader finds the blocks (12 when written)
    for b in every:
        if b.not_run is not None:
            assert b.not_run, f"{b.where}: a not-run marker gives its reason"
            assert b.language in ("python", "sh"), b.where
        if b.marked_run:
            assert b.language == "sh", f"{b.where}: <!-- run --> marks sh blocks (python blocks run anyway)"
    assert {b.example for b in every if b.example} == set(NAMED)
    for test in NAMED.values():
        assert (ROOT / test).is_file()
    # nothing hides a python block: each is run here, in a named example, or says why not
    for b in every:
        if b.language == "python":
            assert b.runs or b.example or b.not_run, b.where


def test_the_readmes_links_point_at_files_that_exist() -> None:
    # (mkdocs build --strict checks the links of docs/; the README is not part of the site)
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [t.split("#", 1)[0] for t in targets if not t.startswith(("http://", "https://", "#"))]
    assert len(local) >= 15
    missing = [t for t in local if not (ROOT / t).exists()]
    assert missing == []


def test_the_block_reader_sees_markers_and_reasons(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# t\n\n```python\na = 1\n```\n\n<!-- not-run: needs a cluster -->\n```python\nb = 2\n```\n\n"
        "<!-- example:demo:start -->\n```sh\nhmyframe schema\n```\n<!-- example:demo:end -->\n\n"
        "<!-- run -->\n```sh\nhmyframe schema blocks\n```\n\n```text\nnot code\n```\n",
        encoding="utf-8",
    )
    found = blocks(page)
    assert [(b.language, b.line, b.runs, b.example, b.not_run) for b in found] == [
        ("python", 3, True, None, None),
        ("python", 8, False, None, "needs a cluster"),
        ("sh", 13, False, "demo", None),
        ("sh", 19, True, None, None),
        ("text", 23, False, None, None),
    ]
    page.write_text("<!-- example:x:start -->\n```python\n1\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="never ends"):
        blocks(page)


def _readme(ns: dict[str, Any]) -> None:
    tx = ns["tx"]
    assert str(tx["value"].dtype) == "atto"
    assert ns["bl"]["shard_id"].value_counts().to_dict() == {0: 1000, 1: 1000}
    totals = ns["hmyframe"].sql(
        "select shard_id, sum(value) as value from transactions group by 1 order by 1", "data/"
    )
    assert str(totals["value"].dtype) == "atto"


def _fetching(ns: dict[str, Any]) -> None:
    tx = ns["tx"]  # the async twin's, last
    assert str(tx["value"].dtype) == "atto"
    assert tx["block_number"].min() >= 0
    assert tx["block_number"].max() <= 1999
    assert len(ns["bl"]) == 1000  # "-1000:"
    assert set(ns["vp"]["snapshot_block"]) == {1500}  # block=1500
    assert len(ns["tr"]) > 0


def _analysing(ns: dict[str, Any]) -> None:
    assert str(ns["both"]["change"].dtype) == "atto"  # "exact, atto"
    both = ns["both"]
    exact = [
        int(a) - int(b) for a, b in zip(both.total_delegation, both.total_delegation_before, strict=True)
    ]
    assert [int(v) for v in both["change"]] == exact
    assert len(ns["vals"]) > 0
    assert len(ns["tx"]) > 0


def _metrics(ns: dict[str, Any]) -> None:
    assert isinstance(ns["history"].network, pd.DataFrame)
    assert len(ns["history"].network) == 10  # the last 10 epochs
    assert isinstance(int(ns["receipts"]["fee"].sum()), int)


def _reports(ns: dict[str, Any]) -> None:
    assert ns["path"].read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")


def _defi(ns: dict[str, Any]) -> None:
    pairs, last, volume, swaps = ns["pairs"], ns["last"], ns["volume"], ns["swaps"]
    called = {(r.shard_id, r.pair_address_hex): (r.reserve0, r.reserve1) for r in pairs.itertuples()}
    assert len(last) == len(called) == 10  # five pairs per shard, each traded
    for row in last.itertuples():  # "each pair's state at the end": getReserves() at block 599
        assert (row.reserve0, row.reserve1) == called[(row.shard_id, row.pair_hex)]
    for row in volume.itertuples():  # "exact volume of each token"
        mine = swaps[(swaps.shard_id == row.shard_id) & (swaps.pair_hex == row.pair_hex)]
        assert int(row.volume0) == sum(
            int(a) + int(b) for a, b in zip(mine.amount0In, mine.amount0Out, strict=True)
        )
    assert ns["trades"]["chained"].all()
    assert ns["trades"]["hops"].max() == 3  # "a route through 3 pairs is one trade"
    assert ns["per_hour"]["timestamp"].notna().all()


#: Claims checked after a page's blocks ran, by page (relative to the repository root).
CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "README.md": _readme,
    "docs/fetching.md": _fetching,
    "docs/analysing.md": _analysing,
    "docs/metrics.md": _metrics,
    "docs/reports.md": _reports,
    "docs/defi.md": _defi,
}

RUNNABLE = [p for p in pages() if any(b.runs for b in blocks(p))]


def test_the_checked_pages_have_runnable_blocks() -> None:
    assert {p.relative_to(ROOT).as_posix() for p in RUNNABLE} >= set(CHECKS)


@pytest.mark.slow
@pytest.mark.parametrize("page", RUNNABLE, ids=[p.relative_to(ROOT).as_posix() for p in RUNNABLE])
def test_the_page_examples_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for variable in ("HMYFRAME_CACHE", "HMYFRAME_RPC", "HMYFRAME_TRACE_RPC"):
        monkeypatch.delenv(variable, raising=False)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    ran: list[Block] = []
    try:
        for block in blocks(page):
            if not block.runs:
                continue
            try:
                if block.language == "python":
                    run_python(block.code, namespace, block.where)
                else:
                    run_commands(block.code, capsys)
            except Exception as exc:
                raise AssertionError(f"the example at {block.where} fails: {exc!r}") from exc
            ran.append(block)
        assert ran
        check = CHECKS.get(page.relative_to(ROOT).as_posix())
        if check is not None:
            check(namespace)
    finally:
        plt.close("all")
