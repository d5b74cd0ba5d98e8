"""docs/fidelity.md is generated from the corpus and lists every method hmyframe calls.

* The committed page equals what ``tests/real/fidelity.py`` writes now (corpus or methods
  changed: regenerate it).
* ``fidelity.METHODS`` names every node method the package calls (found by scanning hmyframe's
  source for method names) and nothing it does not call.
* Rows say which answers back them, and "devnet only" where none does.
"""

from __future__ import annotations

import re
from pathlib import Path

import fidelity
import real_corpus as rc

PACKAGE = fidelity.ROOT / "hmyframe"
NAMESPACES = ("hmy", "hmyv2", "eth", "trace", "web3", "net", "debug")


def _sources() -> dict[Path, str]:
    return {
        p: p.read_text()
        for p in sorted(PACKAGE.rglob("*.py"))
        if "devnet" not in p.relative_to(PACKAGE).parts  # the devnet serves methods, it does not call them
    }


def called_methods() -> set[str]:
    """Method names (without namespace) hmyframe's code calls, from its string literals.

    ``"hmy_getLogs"``-like literals (a camelCase name, or ``call``/``block``/``transaction`` after
    a namespace: column names such as ``trace_address`` are snake_case), ``method("getBlocks")`` /
    ``_call("getBlocks")`` (the namespace is the configured generation's), and f-strings
    ``f"{namespace}_getCode"``.
    """
    found: set[str] = set()
    ns = "|".join(NAMESPACES)
    for text in _sources().values():
        for name in re.findall(rf'"(?:{ns})_([a-z]+[A-Z]\w*|call|block|transaction)"', text):
            found.add(name)
        found.update(re.findall(r'(?:\.method|\b_call|\bmethod)\("([a-z][A-Za-z]+)"', text))
        found.update(re.findall(r'f"\{[^}]*namespace[^}]*\}_([a-z][A-Za-z]+)"', text))
    return found


def test_page_is_up_to_date() -> None:
    committed = fidelity.PAGE.read_text(encoding="utf-8") if fidelity.PAGE.exists() else ""
    assert committed == fidelity.render(), (
        "docs/fidelity.md is out of date: run `python tests/real/fidelity.py`"
    )


def test_methods_list_every_method_hmyframe_calls() -> None:
    listed = {m.name for m in fidelity.METHODS}
    called = called_methods()
    assert called >= {
        "getBlocks",
        "getLogs",
        "block",
        "transaction",
        "getCode",
        "call",
        "subscribe",
        "clientVersion",
    }
    assert called <= listed, f"hmyframe calls methods the fidelity table lacks: {sorted(called - listed)}"


def test_every_listed_method_is_named_in_the_package() -> None:
    text = "\n".join(_sources().values())
    for method in fidelity.METHODS:
        assert re.search(rf"(?<![A-Za-z]){method.name}\b", text), (
            f"{method.name} is listed but hmyframe never names it"
        )


def test_rows_cite_real_answers_or_say_devnet_only() -> None:
    page = fidelity.render()
    rows = {line.split("|")[1].strip(" `"): line for line in page.splitlines() if line.startswith("| `")}
    for method in fidelity.METHODS:
        for namespace in method.namespaces:
            full = f"{namespace}_{method.name}"
            row = rows[full]
            answers = rc.by_method(full)
            if answers:
                assert f"{len(answers)} real" in row
                assert f"`{answers[0].id.removesuffix('.json')}`" in row
            else:
                assert "**devnet only**" in row
    assert "`mainnet-2023/hmy_getLogs__getblock-docs`" in rows["hmy_getLogs"]
    assert rows["hmy_getLogs"].split("|")[6].strip() != "—"  # the 2023 column
